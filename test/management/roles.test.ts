import { ROLES, type Role } from '../../lambda/domain/roles';
import { prompt, version } from '../support/fixtures';
import { ManagementHarness, type Person } from '../support/management-harness';

/** docs/management-api.md, "The management API" (Roles), each including the one before it, checked on every request. */
const api = new ManagementHarness();
const people = {} as Record<Role, Person>;
let keyId: string;
let ownerId: string;

const A = '/api/accounts/acme';
/** Each change the API offers and the least role that may make it (protected labels and owners need more, below). */
const CHANGES: readonly [string, (ids: { keyId: string; ownerId: string }) => string, Role, unknown?][] = [
  ['PATCH', () => A, 'owner', { name: 'n' }],
  ['POST', () => `${A}/prompts`, 'editor', { promptId: 'new', promptName: 'N' }],
  ['PUT', () => `${A}/prompts/welcome/versions/3.0.0`, 'editor', { systemMessage: 's', userMessage: 'u', config: { model: 'm', temperature: 0 } }],
  ['POST', () => `${A}/prompts/welcome/versions/1.1.0/publish`, 'editor', { note: 'n' }],
  ['PUT', () => `${A}/prompts/welcome/labels/staging`, 'editor', { version: '1.0.0' }],
  ['PUT', () => `${A}/prompts/welcome/labels/production`, 'admin', { version: '1.0.0' }],
  ['POST', () => `${A}/prompts/welcome/delete`, 'admin'],
  ['POST', () => `${A}/prompts/welcome/restore`, 'admin'],
  ['POST', () => `${A}/keys`, 'admin', { name: 'k' }],
  ['PATCH', ({ keyId }) => `${A}/keys/${keyId}`, 'admin', { name: 'k' }],
  ['POST', ({ keyId }) => `${A}/keys/${keyId}/rotate`, 'admin', { graceSeconds: 0 }],
  ['POST', ({ keyId }) => `${A}/keys/${keyId}/revoke`, 'admin'],
  ['POST', () => `${A}/members`, 'admin', { email: 'someone@acme.test', role: 'viewer' }],
  ['PATCH', ({ ownerId }) => `${A}/members/${ownerId}`, 'owner', { role: 'viewer' }],
  ['DELETE', ({ ownerId }) => `${A}/members/${ownerId}`, 'owner'],
];
const READS = ['', '/prompts', '/prompts/welcome', '/prompts/welcome/versions/1.0.0', '/keys', '/usage', '/members', '/audit'];

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme', 'pro');
  await api.fixtures.prompts('acme', prompt('welcome', [version('1.0.0'), version('1.1.0', { published: false })]));
  for (const role of ROLES) people[role] = await api.person(`${role}@acme.test`, 'acme', role);
  ownerId = people.owner.userId;
  const { key } = await api.operations().keys.create('acme', { name: 'fixture' });
  keyId = key.keyId;
});
afterAll(() => api.stop());

test.each(ROLES.map((role) => [role]))('a %s reads everything of the account', async (role) => {
  for (const path of READS) {
    const response = await api.send('GET', `${A}${path}`, { as: people[role as Role] });
    expect([path, response.status]).toEqual([path, 200]);
  }
});

const refusals = CHANGES.flatMap(([method, path, least, body]) =>
  ROLES.slice(0, ROLES.indexOf(least)).map((role) => [role, method, path({ keyId: ':keyId', ownerId: ':ownerId' }), least, path, body] as const),
);

test.each(refusals)('a %s is refused %s %s (needs %s): 403, recorded, nothing changed', async (role, method, _shown, _least, path, body) => {
  const response = await api.send(method, path({ keyId, ownerId }), {
    as: people[role],
    ...(body === undefined ? {} : { body }),
    headers: { 'If-Match': '"x"', 'If-None-Match': '*' },
  });
  expect(response.status).toBe(403);
  expect(response.body).toMatchObject({ code: 'FORBIDDEN' });
  const audit = await api.send('GET', `${A}/audit`, { as: people.viewer });
  expect((audit.body as { entries: unknown[] }).entries[0]).toMatchObject({
    outcome: 'refused',
    reason: { code: 'FORBIDDEN' },
    actor: { userId: people[role].userId },
  });
});

test('each role may make the changes of its rank (the ones no later test depends on)', async () => {
  expect((await api.send('PUT', `${A}/prompts/welcome/labels/staging`, { as: people.editor, body: { version: '1.0.0' } })).status).toBe(200);
  expect((await api.send('PUT', `${A}/prompts/welcome/labels/production`, { as: people.admin, body: { version: '1.0.0' } })).status).toBe(200);
  expect((await api.send('POST', `${A}/keys`, { as: people.admin, body: { name: 'mine' } })).status).toBe(201);
  expect((await api.send('PATCH', A, { as: people.owner, body: { name: 'Owned' } })).status).toBe(200);
  expect((await api.send('PATCH', `${A}/members/${people.admin.userId}`, { as: people.owner, body: { role: 'owner' } })).status).toBe(200);
  // Now an owner too: owners manage owners.
  expect((await api.send('PATCH', `${A}/members/${ownerId}`, { as: people.admin, body: { role: 'admin' } })).status).toBe(200);
});
