import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOAuth } from '../../local/identity/oauth';
import { CLIENT_BURST, CLIENT_REFILL_MS, FAILURES_BEFORE_LOCKOUT, SignInThrottle } from '../../local/identity/sign-in-throttle';
import { loadOrCreateSigningKey } from '../../local/identity/signing-key';
import { UserStore } from '../../local/identity/user-store';

/**
 * docs/behaviour-rules.md, "The local stack is a guest on the developer's machine": sign-in fails slowly for guessers. After 5 failed passwords for one user, further attempts are
 * refused for a growing time without checking the password (as Cognito does), a burst from one client is limited
 * too, and a success resets it; an unknown user and a wrong password answer the same, with the same work.
 */

const CALLBACK = 'http://127.0.0.1:41999/';
const ORIGIN = 'http://127.0.0.1:41998';
const PASSWORD = 'Correct-Horse-9-Battery';
let dir: string;
let store: UserStore;
let clock: number;
let oauth: ReturnType<typeof createOAuth>;
let passwordChecks: number;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'identity-lockout-'));
  store = await UserStore.open(dir);
  const user = await store.create({ email: 'ana@example.com', emailVerified: true, temporaryPassword: 'Temporary-Pass-1' });
  await store.setPassword(user.userId, PASSWORD, true);
  const verify = store.verifyPassword.bind(store);
  store.verifyPassword = async (...args) => {
    passwordChecks += 1;
    return verify(...args);
  };
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  clock = Date.parse('2026-11-24T12:00:00Z');
  passwordChecks = 0;
  const settings = {
    issuer: `${ORIGIN}/local_PromptsDev`,
    clientId: 'client',
    callbackUrls: new Set([CALLBACK]),
    logoutUrls: new Set([CALLBACK]),
    origin: ORIGIN,
  };
  oauth = createOAuth(settings, store, await loadOrCreateSigningKey(dir), new SignInThrottle(() => clock));
});

const form = (username: string, password: string) =>
  new URLSearchParams({
    client_id: 'client',
    redirect_uri: CALLBACK,
    response_type: 'code',
    scope: 'openid',
    state: 's',
    code_challenge: 'a'.repeat(43),
    code_challenge_method: 'S256',
    username,
    password,
  });

const attempt = (username: string, password: string, client = '127.0.0.1') => oauth.login(form(username, password), { client, origin: ORIGIN });

async function failTimes(times: number, username = 'ana@example.com', client = '127.0.0.1'): Promise<void> {
  for (let i = 0; i < times; i++) expect((await attempt(username, 'Wrong-Password-1', client)).status).toBe(401);
}

test('the right password signs in after fewer than 5 failures', async () => {
  await failTimes(FAILURES_BEFORE_LOCKOUT - 1);
  expect((await attempt('ana@example.com', PASSWORD)).status).toBe(302);
});

test('after 5 failed passwords even the right one is refused, and no password is checked', async () => {
  await failTimes(FAILURES_BEFORE_LOCKOUT);
  passwordChecks = 0;
  const refused = await attempt('ana@example.com', PASSWORD);
  expect(refused.status).toBe(429);
  expect(refused.headers['Retry-After']).toBe('1');
  expect(refused.body).toContain('Too many failed sign-in attempts for this email');
  expect(passwordChecks).toBe(0);
});

test('the lockout starts at 1 s and doubles with each further failure; once over, the right password signs in', async () => {
  await failTimes(FAILURES_BEFORE_LOCKOUT);
  clock += 1_000;
  await failTimes(1);
  expect((await attempt('ana@example.com', PASSWORD)).headers['Retry-After']).toBe('2');
  clock += 2_000;
  await failTimes(1);
  expect((await attempt('ana@example.com', PASSWORD)).headers['Retry-After']).toBe('4');
  clock += 4_000;
  expect((await attempt('ana@example.com', PASSWORD)).status).toBe(302);
});

test('a success resets the count of failures', async () => {
  await failTimes(FAILURES_BEFORE_LOCKOUT - 1);
  expect((await attempt('ana@example.com', PASSWORD)).status).toBe(302);
  await failTimes(FAILURES_BEFORE_LOCKOUT - 1);
  expect((await attempt('ana@example.com', PASSWORD)).status).toBe(302);
});

test('the email is one name whatever its case: failures in capitals count for it too', async () => {
  await failTimes(FAILURES_BEFORE_LOCKOUT, 'ANA@Example.com');
  expect((await attempt('ana@example.com', PASSWORD)).status).toBe(429);
});

test('an unknown email and a wrong password get the same answer, each after one password check', async () => {
  passwordChecks = 0;
  const unknown = await attempt('nobody@example.com', 'Wrong-Password-1');
  expect(passwordChecks).toBe(1);
  const wrong = await attempt('ana@example.com', 'Wrong-Password-1');
  expect(passwordChecks).toBe(2);
  expect(unknown).toEqual(wrong);
});

test('an unknown email is locked out after 5 failures exactly as a real one, so a lockout tells nobody who has an account', async () => {
  await failTimes(FAILURES_BEFORE_LOCKOUT, 'nobody@example.com');
  await failTimes(FAILURES_BEFORE_LOCKOUT, 'ana@example.com', '127.0.0.2');
  const unknown = await attempt('nobody@example.com', 'Wrong-Password-1');
  const known = await attempt('ana@example.com', 'Wrong-Password-1', '127.0.0.2');
  expect(unknown.status).toBe(429);
  expect(unknown).toEqual(known);
});

test(`one client gets a burst of ${CLIENT_BURST} failed attempts, whatever names it tries, then one every ${CLIENT_REFILL_MS / 1000} s`, async () => {
  for (let i = 0; i < CLIENT_BURST; i++) expect((await attempt(`guess${i}@example.com`, 'Wrong-Password-1')).status).toBe(401);
  passwordChecks = 0;
  const limited = await attempt('ana@example.com', PASSWORD);
  expect(limited.status).toBe(429);
  expect(limited.body).toContain('Too many sign-in attempts from this computer');
  expect(passwordChecks).toBe(0);
  // Another client is not held back by this one.
  expect((await attempt('ana@example.com', PASSWORD, '127.0.0.9')).status).toBe(302);
  clock += CLIENT_REFILL_MS;
  expect((await attempt('ana@example.com', PASSWORD)).status).toBe(302);
});

test('names such as __proto__ and constructor are counted as any other name', async () => {
  for (const name of ['__proto__', 'constructor', 'toString']) {
    await failTimes(FAILURES_BEFORE_LOCKOUT, name, `10.0.0.${name.length}`);
    expect((await attempt(name, 'x', `10.0.0.${name.length}`)).status).toBe(429);
  }
});
