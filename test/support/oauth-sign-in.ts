import { createHash, randomBytes } from 'node:crypto';

/**
 * Signing in as a browser does, over HTTP against the identity stand-in: the authorize request with a
 * PKCE challenge, the sign-in form posted back with the page's own fields, the redirect to the callback
 * with a code, and the code exchanged with the verifier at the token endpoint.
 */

export interface SignInTarget {
  readonly authorizeUrl: string;
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly redirectUri: string;
}

export interface Pkce {
  readonly verifier: string;
  readonly challenge: string;
}

export function newPkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface FormPage {
  readonly status: number;
  readonly html: string;
  /** The form's action, absolute. */
  readonly action: string;
  /** Its hidden fields, as the browser would send them. */
  readonly fields: Record<string, string>;
}

const unescapeHtml = (text: string): string => text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

export function formOf(status: number, html: string, base: string): FormPage {
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error(`no form on the page (status ${status}):\n${html}`);
  const fields: Record<string, string> = {};
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields[unescapeHtml(name as string)] = unescapeHtml(value as string);
  }
  return { status, html, action: new URL(unescapeHtml(action), base).href, fields };
}

/** The authorize request the dashboard sends the browser to. */
export function authorizeRequestUrl(target: SignInTarget, pkce: Pkce, state = 'state-1'): URL {
  const url = new URL(target.authorizeUrl);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: target.clientId,
    redirect_uri: target.redirectUri,
    scope: 'openid email',
    state,
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
  }).toString();
  return url;
}

/** GET /oauth2/authorize: the sign-in page. */
export async function openSignInPage(target: SignInTarget, pkce: Pkce, state = 'state-1'): Promise<FormPage> {
  const url = authorizeRequestUrl(target, pkce, state);
  const response = await fetch(url, { redirect: 'manual' });
  return formOf(response.status, await response.text(), url.href);
}

export interface PostedForm {
  readonly status: number;
  /** The redirect, when the server answered with one. */
  readonly location: string | undefined;
  /** The cookie the answer set (the stand-in's sign-in session), as `name=value`. */
  readonly cookie: string | undefined;
  readonly html: string;
}

/** Posts a form as the browser does from the stand-in's own page (so with its Origin). */
export async function postForm(page: FormPage, values: Record<string, string>): Promise<PostedForm> {
  const response = await fetch(page.action, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: new URL(page.action).origin },
    body: new URLSearchParams({ ...page.fields, ...values }).toString(),
  });
  const cookie = response.headers.get('set-cookie')?.split(';')[0];
  return { status: response.status, location: response.headers.get('location') ?? undefined, cookie, html: await response.text() };
}

export interface TokenAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

export async function exchangeCode(target: SignInTarget, code: string, verifier: string): Promise<TokenAnswer> {
  const response = await fetch(target.tokenUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: target.clientId,
      code,
      redirect_uri: target.redirectUri,
      code_verifier: verifier,
    }).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The code in a redirect to the callback, checked against the state sent. */
export function codeOf(location: string | undefined, state = 'state-1'): string {
  if (!location) throw new Error('no redirect');
  const url = new URL(location);
  if (url.searchParams.get('state') !== state) throw new Error(`state not echoed: ${location}`);
  const code = url.searchParams.get('code');
  if (!code) throw new Error(`no code in ${location}`);
  return code;
}

/** The whole flow for a confirmed user: the ID token. */
export async function signIn(target: SignInTarget, email: string, password: string): Promise<string> {
  const pkce = newPkce();
  const page = await openSignInPage(target, pkce);
  const posted = await postForm(page, { username: email, password });
  const tokens = await exchangeCode(target, codeOf(posted.location), pkce.verifier);
  const idToken = tokens.body.id_token;
  if (tokens.status !== 200 || typeof idToken !== 'string') throw new Error(`no ID token: ${JSON.stringify(tokens)}`);
  return idToken;
}
