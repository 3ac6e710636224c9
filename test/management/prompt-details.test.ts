import { hashApiKey } from '../../lambda/domain/api-key';
import { DynamoStore } from '../../lambda/read-api/store/dynamo-store';
import { prompt, version } from '../support/fixtures';
import { ManagementHarness, type Person } from '../support/management-harness';

/**
 * docs/management-api.md, "The management API" (Prompt details): `PATCH /api/accounts/{a}/prompts/{p}` `{promptName?, description?, tags?}`,
 * editor and up, audited; the read API serves the new name from the next request.
 */

const api = new ManagementHarness();
let editor: Person;
let viewer: Person;
const P = '/api/accounts/acme/prompts';

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme', 'pro');
  await api.fixtures.account('other', 'pro');
  await api.fixtures.prompts('acme', prompt('welcome', [version('1.0.0')]), prompt('farewell', [version('1.0.0')]));
  await api.fixtures.prompts('other', prompt('welcome', [version('1.0.0')]));
  editor = await api.person('editor@acme.test', 'acme', 'editor');
  viewer = await api.person('viewer@acme.test', 'acme', 'viewer');
});
afterAll(() => api.stop());

const listed = async (promptId: string) =>
  ((await api.send('GET', P, { as: viewer })).body as { prompts: { promptId: string }[] }).prompts.find((entry) => entry.promptId === promptId);

test('an editor sets the description and tags: 200 with the details; the list and the prompt show them', async () => {
  const response = await api.send('PATCH', `${P}/farewell`, {
    as: editor,
    body: { description: 'Said when a customer leaves.', tags: ['email', 'lifecycle'] },
  });
  expect(response.status).toBe(200);
  expect(response.body).toEqual({
    promptId: 'farewell',
    promptName: 'Prompt farewell',
    description: 'Said when a customer leaves.',
    tags: ['email', 'lifecycle'],
  });
  expect(await listed('farewell')).toMatchObject({ description: 'Said when a customer leaves.', tags: ['email', 'lifecycle'] });
  expect((await api.send('GET', `${P}/farewell`, { as: viewer })).body).toMatchObject({
    description: 'Said when a customer leaves.',
    tags: ['email', 'lifecycle'],
  });
});

test('a prompt without details lists a null description and no tags', async () => {
  expect(await listed('welcome')).toMatchObject({ description: null, tags: [] });
});

test('null removes the description, [] the tags; fields not given are left as they are', async () => {
  await api.send('PATCH', `${P}/farewell`, { as: editor, body: { description: 'Kept?', tags: ['a'] } });
  expect((await api.send('PATCH', `${P}/farewell`, { as: editor, body: { tags: [] } })).body).toMatchObject({ description: 'Kept?', tags: [] });
  expect((await api.send('PATCH', `${P}/farewell`, { as: editor, body: { description: null } })).body).toMatchObject({ description: null, tags: [] });
  expect(await listed('farewell')).toMatchObject({ description: null, tags: [] });
});

test('a new name is what the read API serves from the next request, at latest and at a label', async () => {
  const apiKey = await api.fixtures.apiKey('acme');
  const store = new DynamoStore(api.local.clients, api.local.tableName);
  const revision = async () => {
    const admission = await store.admit(
      { keyHash: hashApiKey(apiKey), month: '2026-11', day: '24', at: new Date('2026-11-24T00:00:00Z') },
      AbortSignal.timeout(3000),
    );
    return admission.admitted ? admission.key.promptsRevision : -1;
  };
  expect(
    (await api.send('PUT', `${P}/welcome/labels/production`, { as: await api.person('admin@acme.test', 'acme', 'admin'), body: { version: '1.0.0' } })).status,
  ).toBe(200);
  const before = await revision();
  expect((await api.send('PATCH', `${P}/welcome`, { as: editor, body: { promptName: 'Welcome, renamed' } })).status).toBe(200);
  expect(await revision()).toBeGreaterThan(before);
  const reader = { accountId: 'acme', promptsRevision: await revision(), deadline: AbortSignal.timeout(3000) };
  expect(await store.findLatestPrompt(reader, 'welcome')).toMatchObject({ found: true, prompt: { promptName: 'Welcome, renamed' } });
  expect(await store.findLabelledPrompt(reader, 'welcome', 'production')).toMatchObject({ found: true, prompt: { promptName: 'Welcome, renamed' } });
  expect((await store.listLabelledPrompts(reader, 'production'))[0]).toMatchObject({ promptName: 'Welcome, renamed' });
  // Another account's prompt of the same id is untouched.
  const otherReader = { accountId: 'other', promptsRevision: 0, deadline: AbortSignal.timeout(3000) };
  expect(await store.findLatestPrompt(otherReader, 'welcome')).toMatchObject({ prompt: { promptName: 'Prompt welcome' } });
});

test('a change of details is audited with what it was and what it became', async () => {
  await api.send('PATCH', `${P}/farewell`, { as: editor, body: { tags: ['audited'] } });
  const audit = (await api.send('GET', '/api/accounts/acme/audit?action=prompt.update&prompt=farewell', { as: viewer })).body as {
    entries: { action: string; outcome: string; target: Record<string, string>; after?: Record<string, unknown>; actor: { email?: string } }[];
  };
  expect(audit.entries[0]).toMatchObject({
    action: 'prompt.update',
    outcome: 'succeeded',
    target: { promptId: 'farewell' },
    after: { tags: ['audited'] },
    actor: { email: 'editor@acme.test' },
  });
});

test.each([
  ['no field at all', {}],
  ['a tag with capitals', { tags: ['Email'] }],
  ['a tag of 33 characters', { tags: ['a'.repeat(33)] }],
  ['21 tags', { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }],
  ['the same tag twice', { tags: ['a', 'a'] }],
  ['a description of 1,001 characters', { description: 'x'.repeat(1001) }],
  ['an empty name', { promptName: '  ' }],
  ['an unknown field', { owner: 'me' }],
  ['a field named __proto__', JSON.parse('{"__proto__": {"x": 1}}')],
])('%s: 400, and nothing changes', async (_, body) => {
  const before = await listed('farewell');
  const response = await api.send('PATCH', `${P}/farewell`, { as: editor, body });
  expect(response.status).toBe(400);
  expect(response.body).toMatchObject({ code: 'BAD_REQUEST' });
  expect(await listed('farewell')).toEqual(before);
});

test('a viewer may not change details: 403, audited as refused, nothing changed', async () => {
  const before = await listed('farewell');
  const response = await api.send('PATCH', `${P}/farewell`, { as: viewer, body: { promptName: 'Viewer was here' } });
  expect(response.status).toBe(403);
  expect(await listed('farewell')).toEqual(before);
  const audit = (await api.send('GET', '/api/accounts/acme/audit?outcome=refused&prompt=farewell', { as: viewer })).body as {
    entries: { actor: { email?: string }; action: string }[];
  };
  expect(audit.entries[0]).toMatchObject({ action: 'prompt.update', actor: { email: 'viewer@acme.test' } });
});

test('an unknown prompt is 404', async () => {
  expect((await api.send('PATCH', `${P}/nobody`, { as: editor, body: { tags: ['x'] } })).status).toBe(404);
});
