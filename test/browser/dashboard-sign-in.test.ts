import { createHash } from 'node:crypto';
import { AdminCreateUserCommand, CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import type { RequestListener } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type DashboardServer, startDashboardServer } from '../../local/dashboard-server';
import { type DemoUser, ensureDemoUser } from '../../local/identity/demo-user';
import { type IdentityStandIn, startIdentityStandIn } from '../../local/identity/stand-in';
import { createTokenVerifier, type VerifyToken } from '../../local/identity/verify-token';
import { launchChromium } from './support/chromium';

/**
 * The built-in page of the dashboard's local origin, signing in in a real browser: PKCE computed in the page,
 * the stand-in's sign-in form filled in by its labels, the code exchanged from the page, and /api/me called
 * with the ID token on the same origin. The /api listener here is the test's own: it verifies the token and
 * echoes the claims, as the management API's gateway will hand them on.
 */

jest.setTimeout(60_000);

const SCREENSHOT_PATH = join(__dirname, '..', '..', 'test-artifacts', 'dashboard-signed-in.png');

let browser: Browser;
let dataDir: string;
let standIn: IdentityStandIn;
let demo: DemoUser;
let dashboard: DashboardServer;
let context: BrowserContext | undefined;
let page: Page;
let pageProblems: string[] = [];

const echoClaims =
  (verify: VerifyToken): RequestListener =>
  (request, response) => {
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    void (token ? verify(token) : Promise.resolve(undefined)).then((claims) => {
      response.writeHead(claims ? 200 : 401, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify(claims ? { userId: claims.sub, email: claims.email } : { error: 'Unauthorized', code: 'UNAUTHORIZED' }));
    });
  };

beforeAll(async () => {
  browser = await launchChromium();
  dataDir = await mkdtemp(join(tmpdir(), 'dashboard-browser-'));
  standIn = await startIdentityStandIn({ dataDir, port: 0 });
  demo = await ensureDemoUser({ endpoint: standIn.endpoint, userPoolId: standIn.userPoolId, dataDir });
  dashboard = await startDashboardServer({ port: 0, identity: standIn, api: echoClaims(createTokenVerifier(standIn)), root: join(dataDir, 'none') });
  standIn.allowCallbackUrl(`${dashboard.url}/`);
});

afterAll(async () => {
  await browser?.close();
  await dashboard?.close();
  await standIn?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

beforeEach(async () => {
  context = await browser.newContext();
  page = await context.newPage();
  pageProblems = [];
  page.on('pageerror', (error) => pageProblems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // Chromium logs a 401 sign-in answer as "Failed to load resource"; CSP violations are errors too.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageProblems.push(`console error: ${message.text()}`);
  });
});

afterEach(async () => {
  await context?.close();
  expect(pageProblems).toEqual([]);
});

async function signInThroughTheForm(password: string, email = demo.email): Promise<void> {
  await page.goto(dashboard.url);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${standIn.endpoint}/oauth2/authorize?**`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

test('signs in with PKCE from the page and shows what /api/me answers with the ID token', async () => {
  const authorizeUrls: URL[] = [];
  const tokenBodies: URLSearchParams[] = [];
  page.on('request', (request) => {
    if (request.url().startsWith(standIn.authorizeUrl)) authorizeUrls.push(new URL(request.url()));
    if (request.url() === standIn.tokenUrl && request.method() === 'POST') tokenBodies.push(new URLSearchParams(request.postData() ?? ''));
  });

  await page.goto(dashboard.url);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${standIn.endpoint}/oauth2/authorize?**`);
  // While the person is on the sign-in page, nothing of the flow is in any origin's localStorage.
  const pending = await context?.storageState();
  expect(pending?.origins.flatMap((origin) => origin.localStorage)).toEqual([]);
  await mkdir(dirname(SCREENSHOT_PATH), { recursive: true });
  await page.screenshot({ path: SCREENSHOT_PATH.replace('signed-in', 'sign-in-form') });
  await page.getByLabel('Email').fill(demo.email);
  await page.getByLabel('Password').fill(demo.password);
  await page.getByRole('button', { name: 'Sign in' }).click();

  await page.getByRole('status').filter({ hasText: 'Signed in.' }).waitFor();
  // The page says it is signed in, then asks /api/me: its answer comes a moment later.
  await page.locator('#me-answer', { hasText: demo.userId }).waitFor();
  await page.screenshot({ path: SCREENSHOT_PATH, fullPage: true });
  const answer = await page.locator('#me-answer').textContent();
  expect(answer).toContain('200');
  expect(answer).toContain(demo.email);
  expect(answer).toContain(demo.userId);

  // The challenge the page sent is the S256 of the verifier it later sent: PKCE, computed in the browser.
  const [authorize] = authorizeUrls;
  const [tokenBody] = tokenBodies;
  expect(authorize?.searchParams.get('code_challenge_method')).toBe('S256');
  const verifier = tokenBody?.get('code_verifier') ?? '';
  expect(createHash('sha256').update(verifier).digest('base64url')).toBe(authorize?.searchParams.get('code_challenge'));
  // The code is gone from the address bar, the verifier from sessionStorage, and nothing is in localStorage.
  expect(new URL(page.url()).search).toBe('');
  expect(await page.evaluate('[sessionStorage.length, localStorage.length]')).toEqual([0, 0]);
});

test('a wrong password keeps the person on the sign-in form, with the reason', async () => {
  await signInThroughTheForm(`${demo.password}-wrong`);

  await page.getByRole('alert').filter({ hasText: 'Incorrect username or password.' }).waitFor();
  expect(page.url().startsWith(standIn.endpoint)).toBe(true);
});

test("signing out forgets the token and ends the pool's session", async () => {
  await signInThroughTheForm(demo.password);
  await page.getByRole('status').filter({ hasText: 'Signed in.' }).waitFor();

  await page.getByRole('button', { name: 'Sign out' }).click();

  // Through the pool's sign-out endpoint and back: the pool's session is over too.
  await page.getByRole('status').filter({ hasText: 'Not signed in.' }).waitFor();
  expect(page.url()).toBe(`${dashboard.url}/`);
  expect(await page.locator('#me').isHidden()).toBe(true);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Password').waitFor();
});

test('an invited person chooses a new password on the way, and arrives signed in', async () => {
  const client = new CognitoIdentityProviderClient({
    endpoint: standIn.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await client.send(
    new AdminCreateUserCommand({
      UserPoolId: standIn.userPoolId,
      Username: 'grace@example.com',
      TemporaryPassword: 'Temporary-Pass-123',
      MessageAction: 'SUPPRESS',
    }),
  );
  client.destroy();

  await signInThroughTheForm('Temporary-Pass-123', 'grace@example.com');
  await page.getByLabel('New password', { exact: true }).fill('Grace-Chose-This-1');
  await page.getByLabel('Confirm new password').fill('Grace-Chose-This-1');
  await page.getByRole('button', { name: 'Set password and sign in' }).click();

  await page.getByRole('status').filter({ hasText: 'Signed in.' }).waitFor();
  // The page says it is signed in, then asks /api/me: its answer comes a moment later.
  await page.locator('#me-answer', { hasText: 'grace@example.com' }).waitFor();
});
