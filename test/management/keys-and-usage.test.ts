import { hashApiKey } from '../../lambda/domain/api-key';
import { DynamoStore } from '../../lambda/read-api/store/dynamo-store';
import { capturedLogRecords } from '../support/log-capture';
import { ManagementHarness, type Person } from '../support/management-harness';

/** docs/management-api.md, "The management API": keys (the secret shown once) and usage by day. */
const api = new ManagementHarness();
let admin: Person;
let editor: Person;
let viewer: Person;
const K = '/api/accounts/acme/keys';

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme', 'pro');
  admin = await api.person('admin@acme.test', 'acme', 'admin');
  editor = await api.person('editor@acme.test', 'acme', 'editor');
  viewer = await api.person('viewer@acme.test', 'acme', 'viewer');
});
afterAll(() => api.stop());

async function admit(apiKey: string, at: string) {
  const store = new DynamoStore(api.local.clients, api.local.tableName);
  const when = new Date(at);
  return store.admit({ keyHash: hashApiKey(apiKey), month: at.slice(0, 7), day: at.slice(8, 10), at: when }, AbortSignal.timeout(3000));
}

test('an admin creates a key: 201 with the key, this once; no later answer, list, audit entry or log line holds it', async () => {
  const created = await api.send('POST', K, { as: admin, body: { name: 'Web app', monthlyLimit: 100, scope: ['web.*'], expiresAt: '2030-01-01T00:00:00Z' } });
  expect(created.status).toBe(201);
  const { apiKey, key } = created.body as { apiKey: string; key: { keyId: string } };
  expect(apiKey).toMatch(/^prs_/);
  expect(key).toMatchObject({
    name: 'Web app',
    state: 'active',
    monthlyLimit: 100,
    scope: ['web.*'],
    expiresAt: '2030-01-01T00:00:00.000Z',
    createdBy: 'admin@acme.test',
  });
  expect(JSON.stringify(key)).not.toContain(apiKey);

  const later = [
    await api.send('GET', K, { as: viewer }),
    await api.send('PATCH', `${K}/${key.keyId}`, { as: admin, body: { name: 'Web' } }),
    await api.send('GET', '/api/accounts/acme/audit', { as: viewer }),
    await api.send('GET', '/api/accounts/acme/usage', { as: viewer }),
  ];
  for (const response of later) {
    expect(response.status).toBe(200);
    expect(response.rawBody).not.toContain(apiKey);
    expect(response.rawBody).not.toContain(apiKey.slice(8));
  }
  expect(JSON.stringify(capturedLogRecords())).not.toContain(apiKey.slice(8));
  expect((await admit(apiKey, '2026-11-23T10:00:00Z')).admitted).toBe(true);
});

test("the list: id, name, prefix, state, limit in force, scope, expiry, created at and by, this month's count", async () => {
  const { body } = await api.send('POST', K, { as: admin, body: { name: 'Counted' } });
  const { apiKey, key } = body as { apiKey: string; key: { keyId: string } };
  const month = new Date().toISOString().slice(0, 7);
  await admit(apiKey, new Date().toISOString());
  const list = await api.send('GET', K, { as: viewer });
  const entry = (list.body as { keys: { keyId: string }[] }).keys.find((k) => k.keyId === key.keyId);
  expect(entry).toEqual({
    keyId: key.keyId,
    name: 'Counted',
    displayPrefix: apiKey.slice(0, 8),
    state: 'active',
    limit: 50000,
    monthlyLimit: null,
    scope: null,
    expiresAt: null,
    createdAt: expect.any(String),
    createdBy: 'admin@acme.test',
    usedThisMonth: 1,
  });
  expect(month).toMatch(/^\d{4}-\d{2}$/);
});

test('change name, limit, scope, expiry, disable and enable; a revoked key stays revoked (409)', async () => {
  const { body } = await api.send('POST', K, { as: admin, body: { name: 'Change me' } });
  const { apiKey, key } = body as { apiKey: string; key: { keyId: string } };
  const path = `${K}/${key.keyId}`;
  const changed = await api.send('PATCH', path, {
    as: admin,
    body: { name: 'Changed', monthlyLimit: 1, scope: ['a', 'b*'], expiresAt: '2031-01-01T00:00:00Z' },
  });
  expect(changed.body).toMatchObject({ name: 'Changed', monthlyLimit: 1, scope: ['a', 'b*'], expiresAt: '2031-01-01T00:00:00.000Z' });
  expect((await admit(apiKey, '2026-11-23T10:00:00Z')).admitted).toBe(true);
  expect(await admit(apiKey, '2026-11-23T10:00:01Z')).toMatchObject({ admitted: false, reason: 'limit-reached' });
  expect((await api.send('PATCH', path, { as: admin, body: { monthlyLimit: null, scope: null, expiresAt: null } })).body).toMatchObject({
    monthlyLimit: null,
    scope: null,
    expiresAt: null,
  });
  expect((await admit(apiKey, '2026-11-23T10:00:02Z')).admitted).toBe(true);
  expect((await api.send('PATCH', path, { as: admin, body: { disabled: true } })).body).toMatchObject({ state: 'disabled' });
  expect(await admit(apiKey, '2026-11-23T10:00:03Z')).toMatchObject({ admitted: false, reason: 'invalid-key' });
  expect((await api.send('PATCH', path, { as: admin, body: { disabled: false } })).body).toMatchObject({ state: 'active' });
  expect((await api.send('POST', `${path}/revoke`, { as: admin })).body).toMatchObject({ state: 'revoked' });
  expect((await api.send('PATCH', path, { as: admin, body: { disabled: false } })).status).toBe(409);
  expect(await admit(apiKey, '2026-11-23T10:00:04Z')).toMatchObject({ admitted: false, reason: 'invalid-key' });
});

test('rotate: 201 with the new key once; the old one works through the grace', async () => {
  const { body } = await api.send('POST', K, { as: admin, body: { name: 'Rotating', monthlyLimit: 7 } });
  const { apiKey: oldKey, key } = body as { apiKey: string; key: { keyId: string } };
  const rotated = await api.send('POST', `${K}/${key.keyId}/rotate`, { as: admin, body: { graceSeconds: 3600 } });
  expect(rotated.status).toBe(201);
  const { apiKey: newKey, key: created, retired } = rotated.body as { apiKey: string; key: { keyId: string }; retired: { expiresAt: string } };
  expect(created).toMatchObject({ name: 'Rotating', monthlyLimit: 7, state: 'active' });
  expect(new Date(retired.expiresAt).getTime()).toBeGreaterThan(Date.now());
  expect((await admit(newKey, new Date().toISOString())).admitted).toBe(true);
  expect((await admit(oldKey, new Date().toISOString())).admitted).toBe(true);
  expect((await api.send('POST', `${K}/${key.keyId}/rotate`, { as: admin, body: { graceSeconds: -1 } })).body).toMatchObject({ field: 'graceSeconds' });
});

test('keys are for admins: an editor may list them, not create, change, rotate or revoke (403)', async () => {
  const { body } = await api.send('POST', K, { as: admin, body: { name: 'Guarded' } });
  const keyId = (body as { key: { keyId: string } }).key.keyId;
  expect((await api.send('GET', K, { as: editor })).status).toBe(200);
  expect((await api.send('POST', K, { as: editor, body: { name: 'Nope' } })).status).toBe(403);
  expect((await api.send('PATCH', `${K}/${keyId}`, { as: editor, body: { name: 'Nope' } })).status).toBe(403);
  expect((await api.send('POST', `${K}/${keyId}/rotate`, { as: editor, body: { graceSeconds: 0 } })).status).toBe(403);
  expect((await api.send('POST', `${K}/${keyId}/revoke`, { as: editor })).status).toBe(403);
  expect((await api.send('POST', `${K}/key_0000000000000000/revoke`, { as: admin })).status).toBe(404);
});

test('bad key settings name the field', async () => {
  for (const [body, field] of [
    [{}, 'name'],
    [{ name: 'x', monthlyLimit: 1.5 }, 'monthlyLimit'],
    [{ name: 'x', scope: ['bad id!'] }, 'scope.0'],
    [{ name: 'x', expiresAt: 'tomorrow' }, 'expiresAt'],
    [{ name: 'x', extra: true }, 'extra'],
  ] as const) {
    const response = await api.send('POST', K, { as: admin, body });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'BAD_REQUEST', field });
  }
});

test('usage: per key, the count and limit of the month and a count per UTC day', async () => {
  const { body } = await api.send('POST', K, { as: admin, body: { name: 'Daily', monthlyLimit: 1000 } });
  const { apiKey, key } = body as { apiKey: string; key: { keyId: string } };
  await admit(apiKey, '2026-10-31T23:00:00Z');
  await admit(apiKey, '2026-11-01T00:00:00Z');
  await admit(apiKey, '2026-11-01T12:00:00Z');
  await admit(apiKey, '2026-11-03T08:00:00Z');
  const find = async (month: string) => {
    const response = await api.send('GET', `/api/accounts/acme/usage?month=${month}`, { as: viewer });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ month });
    return (response.body as { keys: { keyId: string }[] }).keys.find((k) => k.keyId === key.keyId);
  };
  expect(await find('2026-11')).toEqual({ keyId: key.keyId, name: 'Daily', used: 3, limit: 1000, days: { '01': 2, '03': 1 } });
  expect(await find('2026-10')).toEqual({ keyId: key.keyId, name: 'Daily', used: 1, limit: 1000, days: { '31': 1 } });
  expect(await find('2026-08')).toEqual({ keyId: key.keyId, name: 'Daily', used: 0, limit: 1000, days: null });
  expect((await api.send('GET', '/api/accounts/acme/usage?month=2026-13', { as: viewer })).body).toMatchObject({ field: 'month' });
});
