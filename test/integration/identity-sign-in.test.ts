import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminCreateUserCommand, CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { type DemoUser, ensureDemoUser } from '../../local/identity/demo-user';
import { type IdentityStandIn, startIdentityStandIn } from '../../local/identity/stand-in';
import { createTokenVerifier, type VerifyToken } from '../../local/identity/verify-token';
import { codeOf, exchangeCode, formOf, newPkce, openSignInPage, postForm, type SignInTarget, signIn } from '../support/oauth-sign-in';

/** Signing in to the local user pool as the dashboard does: the real OAuth flow, over HTTP. */

jest.setTimeout(30_000);

const CALLBACK = 'http://127.0.0.1:41901/';
let dataDir: string;
let standIn: IdentityStandIn;
let demo: DemoUser;
let verify: VerifyToken;
let target: SignInTarget;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'identity-sign-in-'));
  standIn = await startIdentityStandIn({ dataDir, port: 0, callbackUrls: [CALLBACK] });
  demo = await ensureDemoUser({ endpoint: standIn.endpoint, userPoolId: standIn.userPoolId, dataDir });
  verify = createTokenVerifier(standIn);
  target = { authorizeUrl: standIn.authorizeUrl, tokenUrl: standIn.tokenUrl, clientId: standIn.clientId, redirectUri: CALLBACK };
});

afterAll(async () => {
  await standIn.stop();
  await rm(dataDir, { recursive: true, force: true });
});

async function codeFor(email: string, password: string, pkce = newPkce()): Promise<{ code: string; verifier: string }> {
  const posted = await postForm(await openSignInPage(target, pkce), { username: email, password });
  return { code: codeOf(posted.location), verifier: pkce.verifier };
}

describe('signing in through authorize, code and token with PKCE', () => {
  it('gives the demo user an ID token that the local verifier accepts, with the claims of the pool', async () => {
    const idToken = await signIn(target, demo.email, demo.password);

    const claims = await verify(idToken);

    expect(claims).toMatchObject({
      sub: demo.userId,
      email: demo.email,
      email_verified: 'true',
      token_use: 'id',
      aud: standIn.clientId,
      iss: standIn.issuer,
      'cognito:username': demo.userId,
    });
  });

  it('shows a sign-in form with labelled fields that posts back to the stand-in', async () => {
    const page = await openSignInPage(target, newPkce());

    expect(page.status).toBe(200);
    expect(page.action).toBe(`${standIn.endpoint}/login`);
    expect(page.html).toContain('<label for="username">Email</label>');
    expect(page.html).toContain('<label for="password">Password</label>');
    expect(page.fields).toMatchObject({ client_id: standIn.clientId, redirect_uri: CALLBACK, state: 'state-1' });
  });

  it('answers the token request with ID, access and refresh tokens, Bearer, for an hour', async () => {
    const { code, verifier } = await codeFor(demo.email, demo.password);
    const tokens = await exchangeCode(target, code, verifier);

    expect(tokens.status).toBe(200);
    expect(tokens.body).toEqual({
      id_token: expect.any(String),
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
    });
  });

  it('refuses a wrong password: the form again with an error, and no code', async () => {
    const posted = await postForm(await openSignInPage(target, newPkce()), { username: demo.email, password: `${demo.password}x` });

    expect(posted.status).toBe(401);
    expect(posted.location).toBeUndefined();
    expect(posted.html).toContain('Incorrect username or password.');
  });

  it('answers an unknown email exactly as a wrong password', async () => {
    const posted = await postForm(await openSignInPage(target, newPkce()), { username: 'nobody@example.com', password: demo.password });

    expect(posted.status).toBe(401);
    expect(posted.html).toContain('Incorrect username or password.');
  });

  it('refuses a code with the wrong verifier, and the code is spent by that attempt', async () => {
    const { code, verifier } = await codeFor(demo.email, demo.password);

    const wrong = await exchangeCode(target, code, newPkce().verifier);
    const right = await exchangeCode(target, code, verifier);

    expect(wrong).toEqual({ status: 400, body: { error: 'invalid_grant' } });
    expect(right).toEqual({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('refuses a code used a second time', async () => {
    const { code, verifier } = await codeFor(demo.email, demo.password);

    const first = await exchangeCode(target, code, verifier);
    const again = await exchangeCode(target, code, verifier);

    expect(first.status).toBe(200);
    expect(again).toEqual({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('refuses a code sent with another redirect_uri than it was issued for', async () => {
    const { code, verifier } = await codeFor(demo.email, demo.password);

    const answer = await exchangeCode({ ...target, redirectUri: 'http://127.0.0.1:41902/' }, code, verifier);

    expect(answer).toEqual({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('refuses another client_id at the token endpoint', async () => {
    const { code, verifier } = await codeFor(demo.email, demo.password);

    const answer = await exchangeCode({ ...target, clientId: 'someoneelse' }, code, verifier);

    expect(answer).toEqual({ status: 401, body: { error: 'invalid_client' } });
  });
});

describe('the authorize request', () => {
  it('never redirects to a callback URL the client does not list', async () => {
    const page = await fetch(
      `${standIn.authorizeUrl}?${new URLSearchParams({
        response_type: 'code',
        client_id: standIn.clientId,
        redirect_uri: 'https://attacker.example/',
        code_challenge: newPkce().challenge,
        code_challenge_method: 'S256',
      })}`,
      { redirect: 'manual' },
    );

    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
    expect(await page.text()).toContain('redirect_uri is not a callback URL of this client.');
  });

  it('sends a request without PKCE back to the callback with invalid_request', async () => {
    const answer = await fetch(
      `${standIn.authorizeUrl}?${new URLSearchParams({ response_type: 'code', client_id: standIn.clientId, redirect_uri: CALLBACK, state: 's' })}`,
      { redirect: 'manual' },
    );

    const location = new URL(answer.headers.get('location') ?? '');
    expect(answer.status).toBe(302);
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('state')).toBe('s');
  });

  it('escapes what it echoes into the page', async () => {
    const page = await openSignInPage(target, newPkce(), '"><script>alert(1)</script>');

    expect(page.html).not.toContain('<script>');
    expect(page.fields.state).toBe('"><script>alert(1)</script>');
  });

  it('refuses a sign-in form posted from another origin (login CSRF)', async () => {
    const page = await openSignInPage(target, newPkce());
    const answer = await fetch(page.action, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'https://attacker.example' },
      body: new URLSearchParams({ ...page.fields, username: demo.email, password: demo.password }).toString(),
    });

    expect(answer.status).toBe(403);
    expect(answer.headers.get('location')).toBeNull();
  });
});

describe('a person invited with a temporary password', () => {
  const email = 'invited@example.com';
  const temporary = 'Temporary-Pass-123';
  const chosen = 'Chosen-Password-456';

  beforeAll(async () => {
    const client = new CognitoIdentityProviderClient({
      endpoint: standIn.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await client.send(new AdminCreateUserCommand({ UserPoolId: standIn.userPoolId, Username: email, TemporaryPassword: temporary, MessageAction: 'SUPPRESS' }));
    client.destroy();
  });

  it('chooses a new password (held to the policy) before getting a code, and then signs in with it only', async () => {
    const pkce = newPkce();
    const posted = await postForm(await openSignInPage(target, pkce), { username: email, password: temporary });
    expect(posted.location).toBeUndefined();
    const newPasswordPage = formOf(posted.status, posted.html, standIn.endpoint);
    expect(newPasswordPage.html).toContain('<label for="new_password">New password</label>');

    const weak = await postForm(newPasswordPage, { new_password: 'short', confirm_password: 'short' });
    expect(weak.status).toBe(400);
    expect(weak.html).toContain('Password not long enough');

    const done = await postForm(formOf(weak.status, weak.html, standIn.endpoint), { new_password: chosen, confirm_password: chosen });
    const tokens = await exchangeCode(target, codeOf(done.location), pkce.verifier);
    expect(await verify(String(tokens.body.id_token))).toMatchObject({ email, token_use: 'id' });

    const withTemporary = await postForm(await openSignInPage(target, newPkce()), { username: email, password: temporary });
    expect(withTemporary.status).toBe(401);
    await expect(signIn(target, email, chosen)).resolves.toEqual(expect.any(String));
  });
});

describe('the token endpoint from the dashboard page', () => {
  it('allows the callback URL origin cross-origin, and no other', async () => {
    const preflight = (origin: string) => fetch(standIn.tokenUrl, { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' } });

    const allowed = await preflight('http://127.0.0.1:41901');
    const other = await preflight('https://attacker.example');

    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:41901');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});
