import { ManagementHarness, type Person } from '../support/management-harness';

/** docs/management-api.md, "The management API": who the caller is, their accounts, an account's settings. */
const api = new ManagementHarness();
let owner: Person;
let viewer: Person;
let outsider: Person;

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme', 'pro');
  await api.fixtures.account('bigco', 'free');
  owner = await api.person('owner@acme.test', 'acme', 'owner');
  viewer = await api.person('viewer@acme.test', 'acme', 'viewer');
  await api.person('viewer@acme.test', 'bigco', 'editor');
  outsider = await api.person('outsider@elsewhere.test');
});
afterAll(() => api.stop());

test('GET /api/me: the user and every account they are in, with their role there', async () => {
  const response = await api.send('GET', '/api/me', { as: viewer });
  expect(response.status).toBe(200);
  expect(response.body).toEqual({
    userId: viewer.userId,
    email: 'viewer@acme.test',
    accounts: [
      { accountId: 'acme', name: 'Account acme', plan: 'pro', role: 'viewer' },
      { accountId: 'bigco', name: 'Account bigco', plan: 'free', role: 'editor' },
    ],
  });
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers['access-control-allow-origin']).toBeUndefined();
});

test('GET /api/me of someone in no account: no accounts', async () => {
  expect((await api.send('GET', '/api/me', { as: outsider })).body).toMatchObject({ accounts: [] });
});

test('no claims from the authorizer: 401 UNAUTHORIZED', async () => {
  const response = await api.send('GET', '/api/me', { as: null });
  expect(response.status).toBe(401);
  expect(response.body).toEqual({ error: expect.any(String), code: 'UNAUTHORIZED' });
});

test('the claims of an access token (no email, token_use access): 401', async () => {
  const response = await api.send('GET', '/api/me', { claims: { sub: owner.userId, token_use: 'access' } });
  expect(response.status).toBe(401);
});

test('GET the account: name, plan, protected labels (production by default), no approvals, no budget of model tokens, the caller role', async () => {
  const response = await api.send('GET', '/api/accounts/acme', { as: viewer });
  expect(response.status).toBe(200);
  expect(response.body).toEqual({
    accountId: 'acme',
    name: 'Account acme',
    plan: 'pro',
    protectedLabels: ['production'],
    approvals: { labels: [], required: 1 },
    models: { monthlyTokens: null },
    role: 'viewer',
  });
});

test('an account the caller is not in, and one that does not exist, are the same 404', async () => {
  const notMember = await api.send('GET', '/api/accounts/acme', { as: outsider });
  const missing = await api.send('GET', '/api/accounts/nowhere', { as: outsider });
  expect(notMember.status).toBe(404);
  expect(missing.status).toBe(404);
  expect(notMember.body).toEqual(missing.body);
});

test('owners change the name and the protected labels; the plan is not theirs to change', async () => {
  const response = await api.send('PATCH', '/api/accounts/acme', { as: owner, body: { name: 'Acme Ltd', protectedLabels: ['production', 'staging'] } });
  expect(response.status).toBe(200);
  expect(response.body).toMatchObject({ name: 'Acme Ltd', protectedLabels: ['production', 'staging'], plan: 'pro' });
  const plan = await api.send('PATCH', '/api/accounts/acme', { as: owner, body: { plan: 'free' } });
  expect(plan.status).toBe(400);
  expect(plan.body).toMatchObject({ code: 'BAD_REQUEST', field: 'plan' });
});

test('a viewer may not change the account: 403, and nothing changes', async () => {
  const response = await api.send('PATCH', '/api/accounts/acme', { as: viewer, body: { name: 'Hijacked' } });
  expect(response.status).toBe(403);
  expect(response.body).toMatchObject({ code: 'FORBIDDEN' });
  expect((await api.send('GET', '/api/accounts/acme', { as: viewer })).body).toMatchObject({ name: 'Acme Ltd' });
});

test('a bad body names the field: protectedLabels.1', async () => {
  const response = await api.send('PATCH', '/api/accounts/acme', { as: owner, body: { protectedLabels: ['ok', 'not ok!'] } });
  expect(response.status).toBe(400);
  expect(response.body).toMatchObject({ code: 'BAD_REQUEST', field: 'protectedLabels.1' });
  expect((response.body as { error: string }).error).toMatch(/^protectedLabels\.1: must be/);
});

test('a body that is not JSON: 400 naming the body', async () => {
  const response = await api.send('PATCH', '/api/accounts/acme', { as: owner, rawBody: '{"name": ' });
  expect(response).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST', field: 'body' } });
});
