import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CognitoIdentityProviderClient, ListUsersCommand } from '@aws-sdk/client-cognito-identity-provider';
import { type DemoUser, ensureDemoUser } from '../../local/identity/demo-user';
import { SESSION_COOKIE } from '../../local/identity/oauth';
import { type IdentityStandIn, startIdentityStandIn } from '../../local/identity/stand-in';
import { authorizeRequestUrl, codeOf, exchangeCode, newPkce, openSignInPage, postForm, type SignInTarget, signIn } from '../support/oauth-sign-in';
import { type RawRequest, sendRaw } from '../support/raw-http';

/**
 * The user pool's stand-in as a guest on the developer's machine (docs/behaviour-rules.md, "The local stack is a guest on the developer's machine"): its administrative API answers
 * this machine's programs only, every endpoint answers for its loopback names only, bodies are bounded, and
 * signing out ends the provider's session and revokes the refresh token (docs/management-api.md, "The dashboard": Sign in and out).
 */

jest.setTimeout(30_000);

const CALLBACK = 'http://127.0.0.1:41901/';
let dataDir: string;
let standIn: IdentityStandIn;
let demo: DemoUser;
let target: SignInTarget;
let port: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'identity-trust-'));
  standIn = await startIdentityStandIn({ dataDir, port: 0, callbackUrls: [CALLBACK] });
  demo = await ensureDemoUser({ endpoint: standIn.endpoint, userPoolId: standIn.userPoolId, dataDir });
  target = { authorizeUrl: standIn.authorizeUrl, tokenUrl: standIn.tokenUrl, clientId: standIn.clientId, redirectUri: CALLBACK };
  port = new URL(standIn.endpoint).port;
});

afterAll(async () => {
  await standIn.stop();
  await rm(dataDir, { recursive: true, force: true });
});

async function userEmails(): Promise<string[]> {
  const client = new CognitoIdentityProviderClient({
    region: 'us-east-1',
    endpoint: standIn.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    const { Users = [] } = await client.send(new ListUsersCommand({ UserPoolId: standIn.userPoolId }));
    return Users.map((user) => user.Attributes?.find((attribute) => attribute.Name === 'email')?.Value ?? '').sort();
  } finally {
    client.destroy();
  }
}

function adminCall(operation: string, body: unknown, headers: readonly (readonly [string, string])[] = []): RawRequest {
  return {
    method: 'POST',
    target: '/',
    headers: [['Content-Type', 'application/x-amz-json-1.1'], ['X-Amz-Target', operation], ...headers],
    body: Buffer.from(JSON.stringify(body)),
  };
}

const createUser = (email: string) => adminCall('AWSCognitoIdentityProviderService.AdminCreateUser', { UserPoolId: standIn.userPoolId, Username: email });
const setPassword = (password: string) =>
  adminCall('AWSCognitoIdentityProviderService.AdminSetUserPassword', {
    UserPoolId: standIn.userPoolId,
    Username: demo.email,
    Password: password,
    Permanent: true,
  });

/** The same request for another Host, as a DNS-rebinding page's would be. */
function withHost(request: RawRequest, host: string): Buffer {
  const body = request.body ?? Buffer.alloc(0);
  const head = [`${request.method} ${request.target} HTTP/1.1`, `Host: ${host}`, ...request.headers.map(([n, v]) => `${n}: ${v}`)];
  if (body.length > 0) head.push(`Content-Length: ${body.length}`);
  head.push('Connection: close', '', '');
  return Buffer.concat([Buffer.from(head.join('\r\n'), 'latin1'), body]);
}

describe("the administrative API answers this machine's programs only", () => {
  test.each([
    ['a page on another origin', 'https://attacker.example'],
    ['a page on the dashboard origin', 'http://127.0.0.1:3002'],
    ['a sandboxed page', 'null'],
  ])('from %s: 403, no CORS headers, no user created and no password changed', async (_, origin) => {
    const before = await userEmails();
    for (const request of [createUser('mallory@example.com'), setPassword('Attacker-Chosen-1!')]) {
      const answer = await sendRaw(standIn.endpoint, { ...request, headers: [...request.headers, ['Origin', origin]] });
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body)).toMatchObject({ __type: 'AccessDeniedException' });
      expect(Object.keys(answer.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
    expect(await userEmails()).toEqual(before);
    expect(await signIn(target, demo.email, demo.password)).toEqual(expect.any(String));
  });

  test.each(['attacker.example', `attacker.example:PORT`, '127.0.0.1:1', '10.0.0.5:PORT'])(
    'for Host %s (DNS rebinding): 403, and nothing changed',
    async (host) => {
      const before = await userEmails();
      const answer = await sendRaw(standIn.endpoint, withHost(createUser('rebound@example.com'), host.replace('PORT', port)));
      expect(answer.status).toBe(403);
      expect(await userEmails()).toEqual(before);
    },
  );

  test.each(['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf', '.hasOwnProperty'])(
    "an X-Amz-Target naming %s is an unknown operation: 400 in Cognito's format",
    async (name) => {
      const operation = name.startsWith('.') ? name : `AWSCognitoIdentityProviderService.${name}`;
      const answer = await sendRaw(standIn.endpoint, adminCall(operation, { UserPoolId: standIn.userPoolId }));
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ __type: 'UnknownOperationException' });
    },
  );
});

describe('the browser-facing endpoints answer for their loopback names only', () => {
  test.each(['/oauth2/authorize', '/logout', '/local_PromptsDev/.well-known/jwks.json'])('GET %s for a rebinding Host: 403', async (path) => {
    const answer = await sendRaw(standIn.endpoint, withHost({ method: 'GET', target: path, headers: [] }, `attacker.example:${port}`));
    expect(answer.status).toBe(403);
  });

  test.each(['localhost', '127.0.0.1'])('GET the JWKS by %s: 200', async (name) => {
    const response = await fetch(`http://${name}:${port}/local_PromptsDev/.well-known/jwks.json`);
    expect(response.status).toBe(200);
  });
});

describe('request targets', () => {
  test.each(['http://[', 'http://a:b:c/'])('a target that is no URL (%s) is 400, never a 5xx, and a rebinding Host still 403', async (path) => {
    const own = await sendRaw(standIn.endpoint, { method: 'GET', target: path, headers: [] });
    const rebound = await sendRaw(standIn.endpoint, withHost({ method: 'GET', target: path, headers: [] }, `attacker.example:${port}`));
    expect([own.status, rebound.status]).toEqual([400, 403]);
    expect(JSON.parse(own.body)).toMatchObject({ error: 'invalid_request' });
  });
});

describe('bodies', () => {
  test('a declared body over 64 KB is refused with 413 before it is sent', async () => {
    const head = `POST /login HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000000\r\n\r\n`;
    const answer = await sendRaw(standIn.endpoint, Buffer.from(head), 5_000);
    expect(answer.status).toBe(413);
  });
});

describe('sign-out ends the session at the provider, as Cognito does', () => {
  async function signInWithSession(): Promise<{ cookie: string; refreshToken: string }> {
    const pkce = newPkce();
    const posted = await postForm(await openSignInPage(target, pkce), { username: demo.email, password: demo.password });
    expect(posted.cookie).toMatch(new RegExp(`^${SESSION_COOKIE}=.+`));
    const tokens = await exchangeCode(target, codeOf(posted.location), pkce.verifier);
    return { cookie: posted.cookie as string, refreshToken: tokens.body.refresh_token as string };
  }

  const authorizeWith = (cookie: string) => fetch(authorizeRequestUrl(target, newPkce()), { redirect: 'manual', headers: { Cookie: cookie } });

  test('while the session lasts, authorize sends the browser straight back with a code, asking for nothing', async () => {
    const { cookie } = await signInWithSession();
    const again = await authorizeWith(cookie);
    expect(again.status).toBe(302);
    expect(codeOf(again.headers.get('location') ?? undefined)).toEqual(expect.any(String));
  });

  test('GET /logout with a registered logout_uri ends it: back to the app, cookie cleared, and the next sign-in asks for the password', async () => {
    const { cookie } = await signInWithSession();
    const logout = new URL(standIn.logoutUrl);
    logout.search = new URLSearchParams({ client_id: standIn.clientId, logout_uri: CALLBACK }).toString();
    const answer = await fetch(logout, { redirect: 'manual', headers: { Cookie: cookie } });
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe(CALLBACK);
    expect(answer.headers.get('set-cookie')).toMatch(new RegExp(`^${SESSION_COOKIE}=;.*Max-Age=0`));
    const again = await authorizeWith(cookie);
    expect(again.status).toBe(200);
    expect(await again.text()).toContain('<label for="password">Password</label>');
  });

  test('GET /logout with a logout_uri the client does not list is refused, and the session goes on', async () => {
    const { cookie } = await signInWithSession();
    const logout = new URL(standIn.logoutUrl);
    logout.search = new URLSearchParams({ client_id: standIn.clientId, logout_uri: 'https://attacker.example/' }).toString();
    const answer = await fetch(logout, { redirect: 'manual', headers: { Cookie: cookie } });
    expect(answer.status).toBe(400);
    expect((await authorizeWith(cookie)).status).toBe(302);
  });

  test('a revoked refresh token gives no more tokens', async () => {
    const { refreshToken } = await signInWithSession();
    const refresh = () =>
      fetch(standIn.tokenUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', client_id: standIn.clientId, refresh_token: refreshToken }),
      });
    expect((await refresh()).status).toBe(200);
    const revoked = await fetch(standIn.revokeUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: refreshToken, client_id: standIn.clientId }),
    });
    expect(revoked.status).toBe(200);
    const after = await refresh();
    expect(after.status).toBe(400);
    expect(await after.json()).toEqual({ error: 'invalid_grant' });
  });
});
