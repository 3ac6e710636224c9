import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { RequestListener } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DashboardServer, startDashboardServer } from '../../local/dashboard-server';
import { type DemoUser, ensureDemoUser } from '../../local/identity/demo-user';
import { type IdentityStandIn, startIdentityStandIn } from '../../local/identity/stand-in';
import { createTokenVerifier } from '../../local/identity/verify-token';
import { signIn } from '../support/oauth-sign-in';

/**
 * The dashboard's local origin: its files with the dashboard's security headers, and /api/* handed to the
 * management API's listener on the same origin. Here that listener is the test's own: it checks the token
 * with the local verifier and echoes the claims, as the management functions will receive them.
 */

jest.setTimeout(30_000);

let dataDir: string;
let standIn: IdentityStandIn;
let demo: DemoUser;
let dashboard: DashboardServer;

const echoClaims =
  (verify: ReturnType<typeof createTokenVerifier>): RequestListener =>
  (request, response) => {
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    void (token ? verify(token) : Promise.resolve(undefined)).then((claims) => {
      const status = claims ? 200 : 401;
      const body = claims ? { path: request.url, method: request.method, claims } : { error: 'Unauthorized', code: 'UNAUTHORIZED' };
      response.writeHead(status, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify(body));
    });
  };

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'dashboard-server-'));
  standIn = await startIdentityStandIn({ dataDir, port: 0 });
  demo = await ensureDemoUser({ endpoint: standIn.endpoint, userPoolId: standIn.userPoolId, dataDir });
  dashboard = await startDashboardServer({
    port: 0,
    identity: standIn,
    api: echoClaims(createTokenVerifier(standIn)),
    root: join(dataDir, 'no-dashboard-built'),
  });
  standIn.allowCallbackUrl(`${dashboard.url}/`);
});

afterAll(async () => {
  await dashboard.close();
  await standIn.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the dashboard origin', () => {
  it('hands /api/* to the management API with the Authorization header, and a token from the local sign-in passes', async () => {
    const idToken = await signIn(
      { authorizeUrl: standIn.authorizeUrl, tokenUrl: standIn.tokenUrl, clientId: standIn.clientId, redirectUri: `${dashboard.url}/` },
      demo.email,
      demo.password,
    );

    const response = await fetch(`${dashboard.url}/api/me?x=1`, { headers: { Authorization: `Bearer ${idToken}` } });

    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      path: '/api/me?x=1',
      method: 'GET',
      claims: { sub: demo.userId, email: demo.email, token_use: 'id' },
    });
  });

  it('sends /api/* without a token on to the API, which refuses it', async () => {
    const response = await fetch(`${dashboard.url}/api/accounts/a/prompts`, { method: 'POST' });

    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: 'Unauthorized', code: 'UNAUTHORIZED' });
  });

  it("adds the security headers to the API's answers, as CloudFront's response headers policy does", async () => {
    const response = await fetch(`${dashboard.url}/api/me`);

    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('serves the built-in sign-in page while no dashboard is built, with the security headers', async () => {
    const response = await fetch(`${dashboard.url}/`);
    const html = await response.text();

    expect(dashboard.serving).toBe('built-in page');
    expect(response.status).toBe(200);
    expect(html).toContain('<button id="sign-in" type="button" hidden>Sign in</button>');
    expect(response.headers.get('content-security-policy')).toBe(
      `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self' ${standIn.endpoint}; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('tells the page where to sign in: /config.json', async () => {
    const response = await fetch(`${dashboard.url}/config.json`);

    expect(await response.json()).toEqual({
      authorizeUrl: standIn.authorizeUrl,
      tokenUrl: standIn.tokenUrl,
      logoutUrl: standIn.logoutUrl,
      revokeUrl: standIn.revokeUrl,
      clientId: standIn.clientId,
    });
  });

  it('answers 405 to other methods on its files, and 404 to unknown files', async () => {
    expect((await fetch(`${dashboard.url}/`, { method: 'POST' })).status).toBe(405);
    expect((await fetch(`${dashboard.url}/missing.js`)).status).toBe(404);
  });

  it('keeps the PKCE verifier in sessionStorage and never in localStorage', async () => {
    const script = await (await fetch(`${dashboard.url}/app.js`)).text();

    expect(script).toContain('sessionStorage.setItem(PENDING');
    expect(script).not.toMatch(/localStorage\s*\./);
  });
});

describe('with a built dashboard', () => {
  let built: DashboardServer;
  let root: string;

  beforeAll(async () => {
    root = join(dataDir, 'dist');
    await mkdir(join(root, 'assets'), { recursive: true });
    await writeFile(join(root, 'index.html'), '<!doctype html><title>Built dashboard</title>');
    await writeFile(join(root, 'assets', 'app.js'), 'console.log(1);');
    await writeFile(join(dataDir, 'secret.txt'), 'outside the root');
    built = await startDashboardServer({ port: 0, identity: standIn, root });
  });

  afterAll(() => built.close());

  it('serves its files, and index.html for the single-page app routes', async () => {
    const asset = await fetch(`${built.url}/assets/app.js`);
    const route = await fetch(`${built.url}/accounts/acct_demo/prompts`);

    expect(built.serving).toBe('dashboard/dist');
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await asset.text()).toBe('console.log(1);');
    expect(await route.text()).toContain('Built dashboard');
  });

  it('never serves a file outside its folder', async () => {
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt']) {
      const response = await fetch(`${built.url}${path}`);
      expect(await response.text()).not.toContain('outside the root');
    }
  });

  it('answers /api/* 404 in the API format when no management API is given', async () => {
    const response = await fetch(`${built.url}/api/me`);

    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'Not found', code: 'NOT_FOUND' });
  });
});
