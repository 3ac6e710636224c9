import { prompt, version } from '../support/fixtures';
import { ManagementHarness, type Person } from '../support/management-harness';

/**
 * docs/security.md, "What it refuses, and why" (every refusal is recorded, with what it was aimed at and what
 * it asked for): whatever refuses it (a role, a bad body or parameter, a conflict, a stale ETag), the entry
 * read back through the API names what it was aimed at and what was asked for.
 */
const api = new ManagementHarness();
const people = {} as Record<'owner' | 'admin' | 'editor' | 'viewer', Person>;
let keyId: string;

const A = '/api/accounts/acme';
const P = `${A}/prompts`;

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme', 'free');
  await api.fixtures.prompts('acme', prompt('welcome', [version('1.0.0'), version('1.1.0', { published: false })]));
  for (const role of ['owner', 'admin', 'editor', 'viewer'] as const) people[role] = await api.person(`${role}@acme.test`, 'acme', role);
  const created = await api.send('POST', `${A}/keys`, { as: people.admin, body: { name: 'revoked one' } });
  keyId = (created.body as { key: { keyId: string } }).key.keyId;
  expect((await api.send('POST', `${A}/keys/${keyId}/revoke`, { as: people.admin })).status).toBe(200);
});
afterAll(() => api.stop());

interface Entry {
  action: string;
  outcome: string;
  target: Record<string, string>;
  requested?: unknown;
  before?: Record<string, unknown>;
  reason?: { code: string; message: string };
}

/** The newest entry, read back as any member reads the log. */
async function lastEntry(): Promise<Entry> {
  const response = await api.send('GET', `${A}/audit`, { as: people.viewer });
  expect(response.status).toBe(200);
  return (response.body as { entries: Entry[] }).entries[0] as Entry;
}

test.each([
  [
    'a viewer moving a label',
    'viewer',
    'PUT',
    `${P}/welcome/labels/staging`,
    { version: '1.0.0' },
    403,
    { action: 'label.set', target: { promptId: 'welcome', label: 'staging' }, requested: { version: '1.0.0' } },
  ],
  [
    'an editor moving a protected label',
    'editor',
    'PUT',
    `${P}/welcome/labels/production`,
    { version: '1.0.0' },
    403,
    { action: 'label.set', target: { promptId: 'welcome', label: 'production' }, requested: { version: '1.0.0' } },
  ],
  [
    'an editor removing a protected label',
    'editor',
    'DELETE',
    `${P}/welcome/labels/production`,
    undefined,
    403,
    { action: 'label.remove', target: { promptId: 'welcome', label: 'production' } },
  ],
  [
    'a viewer creating a prompt',
    'viewer',
    'POST',
    P,
    { promptId: 'wanted', promptName: 'Wanted' },
    403,
    { action: 'prompt.create', target: { promptId: 'wanted' }, requested: { promptId: 'wanted', promptName: 'Wanted' } },
  ],
  ['an editor deleting a prompt', 'editor', 'POST', `${P}/welcome/delete`, undefined, 403, { action: 'prompt.delete', target: { promptId: 'welcome' } }],
  [
    'an admin adding an owner',
    'admin',
    'POST',
    `${A}/members`,
    { email: 'boss@acme.test', role: 'owner' },
    403,
    { action: 'member.add', target: { email: 'boss@acme.test' }, requested: { email: 'boss@acme.test', role: 'owner' } },
  ],
  [
    'an editor rotating a key',
    'editor',
    'POST',
    `${A}/keys/key_0123456789abcdef/rotate`,
    { graceSeconds: 60 },
    403,
    { action: 'key.rotate', target: { keyId: 'key_0123456789abcdef' }, requested: { graceSeconds: 60 } },
  ],
  [
    'an admin changing a role to one that does not exist',
    'admin',
    'PATCH',
    `${A}/members/someone`,
    { role: 'god' },
    400,
    { action: 'member.set-role', target: { userId: 'someone' }, requested: { role: 'god' } },
  ],
  [
    'an admin adding a member with no email',
    'admin',
    'POST',
    `${A}/members`,
    { email: 'not an email', role: 'viewer' },
    400,
    { action: 'member.add', target: { email: 'not an email' }, requested: { email: 'not an email', role: 'viewer' } },
  ],
  [
    'an editor naming a label against the rule',
    'editor',
    'PUT',
    `${P}/welcome/labels/Bad.Name`,
    { version: '1.0.0' },
    400,
    { action: 'label.set', target: { promptId: 'welcome', label: 'Bad.Name' }, requested: { version: '1.0.0' } },
  ],
  [
    'an admin lifting a key over the plan',
    'admin',
    'POST',
    `${A}/keys`,
    { name: 'greedy', monthlyLimit: 1_000_000 },
    400,
    { action: 'key.create', target: { name: 'greedy' }, requested: { name: 'greedy', monthlyLimit: 1_000_000 } },
  ],
  [
    'an owner protecting a name that can never be a label',
    'owner',
    'PATCH',
    A,
    { protectedLabels: ['Prod'] },
    400,
    { action: 'account.update', target: { accountId: 'acme' }, requested: { protectedLabels: ['Prod'] } },
  ],
  [
    'an editor publishing without If-Match',
    'editor',
    'POST',
    `${P}/welcome/versions/1.1.0/publish`,
    { note: 'go' },
    428,
    { action: 'version.publish', target: { promptId: 'welcome', version: '1.1.0' }, requested: { note: 'go' } },
  ],
] as const)('%s: refused, with its target and what was asked', async (_name, role, method, path, body, status, expected) => {
  const response = await api.send(method, path, { as: people[role], ...(body === undefined ? {} : { body }) });
  expect(response.status).toBe(status);
  const entry = await lastEntry();
  expect(entry).toMatchObject({ ...expected, outcome: 'refused', reason: { code: (response.body as { code: string }).code } });
  expect(entry.target).toEqual(expected.target);
  if (!('requested' in expected)) expect(entry).not.toHaveProperty('requested');
});

test.each([
  [
    'labelling a draft (409)',
    'editor',
    'PUT',
    `${P}/welcome/labels/beta`,
    { version: '1.1.0' },
    {},
    409,
    { action: 'label.set', target: { promptId: 'welcome', label: 'beta' }, requested: { version: '1.1.0' } },
  ],
  [
    'removing a label the prompt does not carry (404)',
    'editor',
    'DELETE',
    `${P}/welcome/labels/absent`,
    undefined,
    {},
    404,
    { action: 'label.remove', target: { promptId: 'welcome', label: 'absent' } },
  ],
  [
    'adding a member twice (409)',
    'admin',
    'POST',
    `${A}/members`,
    { email: 'editor@acme.test', role: 'viewer' },
    {},
    409,
    { action: 'member.add', target: { email: 'editor@acme.test' }, requested: { email: 'editor@acme.test', role: 'viewer' } },
  ],
  [
    'saving over a draft someone saved since (412)',
    'editor',
    'PUT',
    `${P}/welcome/versions/1.1.0`,
    { systemMessage: 'mine', userMessage: 'u', config: { model: 'm', temperature: 1 } },
    { 'If-Match': '"stale"' },
    412,
    {
      action: 'draft.save',
      target: { promptId: 'welcome', version: '1.1.0' },
      requested: { systemMessage: 'mine', userMessage: 'u' },
      before: { etag: 'stale' },
    },
  ],
] as const)('%s: refused, with its target and what was asked', async (_name, role, method, path, body, headers, status, expected) => {
  const response = await api.send(method, path, { as: people[role], headers, ...(body === undefined ? {} : { body }) });
  expect(response.status).toBe(status);
  expect(await lastEntry()).toMatchObject({ ...expected, outcome: 'refused', reason: { code: (response.body as { code: string }).code } });
});

test("changing a revoked key (409): refused, with the key and the change asked for in the API's words", async () => {
  const response = await api.send('PATCH', `${A}/keys/${keyId}`, {
    as: people.admin,
    body: { name: 'back', expiresAt: '2031-01-01T00:00:00Z', disabled: false },
  });
  expect(response.status).toBe(409);
  expect(await lastEntry()).toMatchObject({
    action: 'key.update',
    outcome: 'refused',
    target: { keyId },
    requested: { name: 'back', expiresAt: '2031-01-01T00:00:00.000Z', disabled: false },
    reason: { code: 'CONFLICT' },
  });
});

test('a draft over 300 KB (413): the entry keeps what was asked cut short, never the whole of it', async () => {
  const systemMessage = 'x'.repeat(310 * 1024);
  const response = await api.send('PUT', `${P}/welcome/versions/2.0.0`, {
    as: people.editor,
    body: { systemMessage, userMessage: 'u', config: { model: 'm', temperature: 1 } },
    headers: { 'If-None-Match': '*' },
  });
  expect(response.status).toBe(413);
  const entry = await lastEntry();
  expect(entry).toMatchObject({
    action: 'draft.save',
    outcome: 'refused',
    target: { promptId: 'welcome', version: '2.0.0' },
    reason: { code: 'PAYLOAD_TOO_LARGE' },
  });
  expect(entry.requested).toMatchObject({ systemMessage: `${'x'.repeat(200)}… (${systemMessage.length} characters)`, userMessage: 'u' });
});

test('a body with names objects inherit and 60 levels of nesting: refused, recorded with those names as data and a bounded copy', async () => {
  const deep = `${'['.repeat(60)}${']'.repeat(60)}`;
  const rawBody = `{"__proto__":{"polluted":true},"constructor":"x","name":"hostile","scope":${deep}}`;
  const response = await api.send('POST', `${A}/keys`, { as: people.admin, rawBody });
  expect(response).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST' } });
  const read = await api.send('GET', `${A}/audit`, { as: people.viewer });
  const entry = (read.body as { entries: Entry[] }).entries[0] as Entry;
  expect(entry).toMatchObject({ action: 'key.create', outcome: 'refused', target: { name: 'hostile' } });
  expect(read.rawBody).toContain('"requested":{"__proto__":{"polluted":true},"constructor":"x","name":"hostile","scope":[[["…"]]]}');
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

test('no refusal is recorded in an account the caller is not a member of', async () => {
  const outsider = await api.person('outsider@else.test');
  const before = (await api.send('GET', `${A}/audit`, { as: people.viewer })).body;
  expect((await api.send('PUT', `${P}/welcome/labels/staging`, { as: outsider, body: { version: '1.0.0' } })).status).toBe(404);
  expect((await api.send('GET', `${A}/audit`, { as: people.viewer })).body).toEqual(before);
});
