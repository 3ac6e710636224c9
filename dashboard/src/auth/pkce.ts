/**
 * The authorization-code flow with PKCE (RFC 7636, S256) as a public client does it: nothing here
 * is secret but the verifier, which stays in this tab until the code comes back.
 */

/** What `/config.json` on the dashboard's origin tells the page: the user pool's endpoints and its app client. */
export interface SignInConfig {
  readonly authorizeUrl: string;
  readonly tokenUrl: string;
  /** The pool's sign-out endpoint (Cognito's `/logout`), which ends its own session. */
  readonly logoutUrl: string;
  /** Where a refresh token is revoked (Cognito's `/oauth2/revoke`). */
  readonly revokeUrl: string;
  readonly clientId: string;
  /** The read API's URL, for the code samples shown with a new key; optional. */
  readonly readApiUrl?: string;
}

export const SIGN_IN_SCOPE = 'openid email profile';

/** Base64url without padding (RFC 4648 section 5), as PKCE and JWTs write bytes. */
export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function randomText(byteCount: number, random: (bytes: Uint8Array) => Uint8Array = (bytes) => crypto.getRandomValues(bytes)): string {
  return base64url(random(new Uint8Array(byteCount)));
}

/** 32 random bytes: a 43-character verifier, the shortest RFC 7636 allows and 256 bits of entropy. */
export const createVerifier = (random?: (bytes: Uint8Array) => Uint8Array): string => randomText(32, random);

/** The S256 challenge: base64url(SHA-256(verifier)). */
export async function challengeFor(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

export interface AuthorizeRequest {
  readonly redirectUri: string;
  readonly state: string;
  readonly challenge: string;
}

export function authorizeUrl(config: SignInConfig, request: AuthorizeRequest): string {
  const url = new URL(config.authorizeUrl);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: config.clientId,
    redirect_uri: request.redirectUri,
    scope: SIGN_IN_SCOPE,
    state: request.state,
    code_challenge: request.challenge,
    code_challenge_method: 'S256',
  }).toString();
  return url.href;
}

/** The form the token endpoint takes in exchange for the code (RFC 6749 section 4.1.3). */
export function tokenRequestBody(config: SignInConfig, code: string, redirectUri: string, verifier: string): URLSearchParams {
  return new URLSearchParams({
    grant_type: 'authorization_code',
    client_id: config.clientId,
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  });
}

/** Cognito's sign-out request: the pool ends its session and sends the browser back to `logoutUri`. */
export function logoutUrl(config: SignInConfig, logoutUri: string): string {
  const url = new URL(config.logoutUrl);
  url.search = new URLSearchParams({ client_id: config.clientId, logout_uri: logoutUri }).toString();
  return url.href;
}

/** The form the revocation endpoint takes (RFC 7009), as Cognito's public clients send it. */
export function revokeRequestBody(config: SignInConfig, refreshToken: string): URLSearchParams {
  return new URLSearchParams({ token: refreshToken, client_id: config.clientId });
}

/** What the tab remembered when it left for the sign-in page. */
export interface PendingSignIn {
  readonly verifier: string;
  readonly state: string;
  /** The page to come back to, e.g. `#/accounts/acme/keys`. */
  readonly returnTo: string;
}

export type CallbackResult =
  | { readonly kind: 'none' }
  | { readonly kind: 'code'; readonly code: string }
  | { readonly kind: 'error'; readonly message: string };

/** Reads the redirect back from the sign-in page; only an answer to this tab's own request is accepted. */
export function readCallback(search: string, pending: PendingSignIn | undefined): CallbackResult {
  const params = new URLSearchParams(search);
  if (!params.has('code') && !params.has('error')) return { kind: 'none' };
  if (params.has('error')) {
    const description = params.get('error_description');
    return {
      kind: 'error',
      message: params.get('error') === 'access_denied' ? 'Sign-in was cancelled.' : `Sign-in was refused${description ? `: ${description}` : ''}. Try again.`,
    };
  }
  if (!pending || pending.state !== params.get('state')) {
    return { kind: 'error', message: 'This sign-in answer was not for this tab (it may have been opened in another one). Sign in again.' };
  }
  return { kind: 'code', code: params.get('code') ?? '' };
}
