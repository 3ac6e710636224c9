import { prompt, version } from '../support/fixtures';
import { ManagementHarness, type Person } from '../support/management-harness';

/**
 * docs/security.md, "What it refuses, and why" (and "Names are data" below it): names from requests are data, never object keys;
 * JSON however deep is refused with 400, never a 5xx; any cursor that is not one is 400.
 */
const api = new ManagementHarness();
let owner: Person;
let editor: Person;
let viewer: Person;

const A = '/api/accounts/acme';
const P = `${A}/prompts`;

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme', 'pro');
  await api.fixtures.prompts('acme', prompt('welcome', [version('1.0.0'), version('1.1.0')]), prompt('__proto__', [version('1.0.0')]));
  owner = await api.person('owner@acme.test', 'acme', 'owner');
  editor = await api.person('editor@acme.test', 'acme', 'editor');
  viewer = await api.person('viewer@acme.test', 'acme', 'viewer');
});
afterAll(() => api.stop());

type AuditEntry = { action: string; target: Record<string, string>; outcome: string; reason?: { code: string } };

async function audit(): Promise<AuditEntry[]> {
  return ((await api.send('GET', `${A}/audit`, { as: viewer })).body as { entries: AuditEntry[] }).entries;
}

async function labelsOf(promptId: string): Promise<unknown> {
  return ((await api.send('GET', `${P}/${promptId}`, { as: viewer })).body as { labels: unknown }).labels;
}

/** JSON text of arrays and objects in turn, `depth` levels deep: as text, because JSON.stringify itself cannot write 100,000 levels. */
const nestedText = (depth: number): string => {
  const opening = Array.from({ length: depth }, (_, level) => (level % 2 === 0 ? '[' : '{"a":'));
  return `${opening.join('')}1${opening
    .reverse()
    .map((open) => (open === '[' ? ']' : '}'))
    .join('')}`;
};
const nested = (depth: number): unknown => JSON.parse(nestedText(depth));

describe('label names', () => {
  test('a label named constructor is a label like any other: set, read back, moved, removed', async () => {
    const path = `${P}/welcome/labels/constructor`;
    expect(await api.send('PUT', path, { as: editor, body: { version: '1.0.0' } })).toMatchObject({
      status: 200,
      body: { label: 'constructor', previous: null },
    });
    expect(await labelsOf('welcome')).toEqual({ constructor: '1.0.0' });
    expect(await api.send('PUT', path, { as: editor, body: { version: '1.1.0' } })).toMatchObject({ status: 200, body: { previous: '1.0.0' } });
    expect((await api.send('DELETE', path, { as: editor })).status).toBe(204);
    expect(await labelsOf('welcome')).toEqual({});
  });

  test('removing a label named constructor that the prompt does not carry: 404 as for any absent label, audited as refused, nothing changed', async () => {
    // A prompt that carries some label: its labels map exists, and inherits from nothing.
    expect((await api.send('PUT', `${P}/welcome/labels/staging`, { as: editor, body: { version: '1.0.0' } })).status).toBe(200);
    const before = await labelsOf('welcome');
    expect(before).toEqual({ staging: '1.0.0' });
    for (const label of ['constructor', 'absent']) {
      const response = await api.send('DELETE', `${P}/welcome/labels/${label}`, { as: editor });
      expect(response).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
      const [entry] = await audit();
      expect(entry).toMatchObject({ action: 'label.remove', target: { promptId: 'welcome', label }, outcome: 'refused', reason: { code: 'NOT_FOUND' } });
    }
    expect(await labelsOf('welcome')).toEqual(before);
  });

  test('the CLI too: prompts show --label constructor of a prompt without it says there is no such label', async () => {
    await api.operations().labels.set('acme', 'welcome', 'canary', '1.0.0');
    const show = (label: string) => api.cli('ops', 'prompts', 'show', '--account', 'acme', '--prompt', 'welcome', '--label', label);
    const absent = await show('constructor');
    expect(absent.code).toBe(1);
    expect(absent.stderr).toMatch(/^admin: prompt welcome of account acme has no label constructor \(labels: /);
    expect((await show('canary')).code).toBe(0);
  });

  test.each([
    ['__proto__', '__proto__'],
    ['toString', 'toString'],
    ['hasOwnProperty', 'hasOwnProperty'],
    ['valueOf', 'valueOf'],
    ['__defineGetter__', '__defineGetter__'],
    ['Production', 'Production'],
    ['prod.v2', 'prod.v2'],
    ['latest', 'latest'],
    ['33 characters', 'x'.repeat(33)],
  ])('a label named %s does not follow the label rule: 400 naming label on every label route, nothing changed', async (_name, label) => {
    const before = await labelsOf('welcome');
    const path = `${P}/welcome/labels/${encodeURIComponent(label)}`;
    for (const [method, body] of [
      ['PUT', { version: '1.0.0' }],
      ['DELETE', undefined],
    ] as const) {
      const response = await api.send(method, path, { as: editor, ...(body ? { body } : {}) });
      expect([method, response.status, response.body]).toEqual([method, 400, expect.objectContaining({ code: 'BAD_REQUEST', field: 'label' })]);
    }
    expect(await labelsOf('welcome')).toEqual(before);
  });

  test('a prompt with the id __proto__ is a prompt like any other: labelled constructor, listed, unlabelled', async () => {
    expect((await api.send('PUT', `${P}/__proto__/labels/constructor`, { as: editor, body: { version: '1.0.0' } })).status).toBe(200);
    const list = (await api.send('GET', P, { as: viewer })).body as { prompts: { promptId: string; labels: unknown }[] };
    expect(list.prompts.find((entry) => entry.promptId === '__proto__')).toMatchObject({ labels: { constructor: '1.0.0' } });
    expect((await api.send('DELETE', `${P}/__proto__/labels/constructor`, { as: editor })).status).toBe(204);
    expect((await api.send('DELETE', `${P}/__proto__/labels/constructor`, { as: editor })).status).toBe(404);
    expect((await api.send('GET', `${P}/constructor`, { as: viewer })).status).toBe(404);
  });

  test('protectedLabels takes only names of the label rule, the same rule as the label routes', async () => {
    const before = (await api.send('GET', A, { as: viewer })).body;
    for (const label of ['Production', 'prod.v2', 'x'.repeat(33), 'x'.repeat(64), '1st', 'latest', '__proto__', 'toString', '']) {
      const response = await api.send('PATCH', A, { as: owner, body: { protectedLabels: ['production', label] } });
      expect([label, response.status, response.body]).toEqual([label, 400, expect.objectContaining({ code: 'BAD_REQUEST', field: 'protectedLabels.1' })]);
    }
    expect((await api.send('GET', A, { as: viewer })).body).toEqual(before);
    const accepted = await api.send('PATCH', A, { as: owner, body: { protectedLabels: ['production', 'constructor', 'canary_2', 'x'.repeat(32)] } });
    expect(accepted).toMatchObject({ status: 200, body: { protectedLabels: ['production', 'constructor', 'canary_2', 'x'.repeat(32)] } });
    // constructor is now protected: an editor may not move it.
    expect((await api.send('PUT', `${P}/welcome/labels/constructor`, { as: editor, body: { version: '1.0.0' } })).status).toBe(403);
  });
});

describe('deep JSON', () => {
  beforeAll(async () => {
    await api.send('POST', P, { as: editor, body: { promptId: 'deep', promptName: 'Deep' } });
  });

  /** A draft's body as text, its config.`field` nested `depth` levels (schema is an array itself). */
  const draftText = (field: string, depth: number) =>
    `{"systemMessage":"s","userMessage":"u","config":{"model":"m","temperature":0,"${field}":${field === 'schema' ? `[${nestedText(depth - 1)}]` : nestedText(depth)}}}`;

  const draft = (config: Record<string, unknown>) => ({ systemMessage: 's', userMessage: 'u', config: { model: 'm', temperature: 0, ...config } });

  test.each([
    ['inputData', 25, '9.0.1'],
    ['inputData', 62, '9.0.2'],
    ['schema', 25, '9.0.3'],
    ['schema', 62, '9.0.4'],
  ])('a draft whose config.%s nests %i levels deep: 400 naming the field, nothing stored', async (field, depth, number) => {
    const path = `${P}/deep/versions/${number}`;
    const response = await api.send('PUT', path, { as: editor, rawBody: draftText(field, depth), headers: { 'If-None-Match': '*' } });
    expect(response).toMatchObject({
      status: 400,
      body: { code: 'BAD_REQUEST', field: `config.${field}`, error: `config.${field}: must nest at most 24 levels deep` },
    });
    expect((await api.send('GET', path, { as: viewer })).status).toBe(404);
  });

  test.each([
    ['inputData', 100_000, '9.1.1'],
    ['schema', 100_000, '9.1.2'],
    ['inputData', 3_000_000, '9.1.3'],
  ])('a draft whose config.%s nests %i levels deep: refused unread, 400 naming the body, nothing stored', async (field, depth, number) => {
    const path = `${P}/deep/versions/${number}`;
    const response = await api.send('PUT', path, { as: editor, rawBody: draftText(field, depth), headers: { 'If-None-Match': '*' } });
    expect(response).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST', field: 'body', error: 'body: must nest at most 64 levels deep' } });
    expect((await api.send('GET', path, { as: viewer })).status).toBe(404);
  });

  test('brackets inside strings are text, not nesting: a message of 10,000 brackets is stored', async () => {
    const body = draft({});
    const created = await api.send('PUT', `${P}/deep/versions/9.2.0`, {
      as: editor,
      body: { ...body, systemMessage: '[{'.repeat(10_000) },
      headers: { 'If-None-Match': '*' },
    });
    expect(created.status).toBe(201);
  });

  test('24 levels of inputData and schema are stored and read back as written', async () => {
    const config = { inputData: nested(24), schema: [nested(23)] };
    const created = await api.send('PUT', `${P}/deep/versions/1.0.0`, { as: editor, body: draft(config), headers: { 'If-None-Match': '*' } });
    expect(created.status).toBe(201);
    expect((await api.send('GET', `${P}/deep/versions/1.0.0`, { as: viewer })).body).toMatchObject({ config });
  });

  test('names that objects inherit, deep inside inputData and schema, are kept as written', async () => {
    const config = { inputData: JSON.parse('{"__proto__":{"constructor":{"toString":1}},"constructor":[]}'), schema: [JSON.parse('{"__proto__":null}')] };
    const path = `${P}/deep/versions/2.0.0`;
    expect((await api.send('PUT', path, { as: editor, body: draft(config), headers: { 'If-None-Match': '*' } })).status).toBe(201);
    const read = await api.send('GET', path, { as: viewer });
    expect(read.rawBody).toContain('"inputData":{"__proto__":{"constructor":{"toString":1}},"constructor":[]}');
    expect(read.rawBody).toContain('"schema":[{"__proto__":null}]');
  });
});

describe('audit cursors', () => {
  test.each([
    ['AUDIT# itself', 'QVVESVQj'],
    ['AUDIT# in base64url', Buffer.from('AUDIT#').toString('base64url')],
    ['no time', Buffer.from('AUDIT#x').toString('base64url')],
    ['no tail', Buffer.from('AUDIT#2026-11-23T10:00:00.000Z#').toString('base64url')],
    ['a NUL after the tail', Buffer.from('AUDIT#2026-11-23T10:00:00.000Z#abcd1234\u0000').toString('base64url')],
    ['another item', Buffer.from('PROMPT#welcome').toString('base64url')],
    ['empty', ''],
    ['a lone %', '%'],
    ['5,000 characters', 'x'.repeat(5_000)],
    ['a prototype name', '__proto__'],
  ])('before= %s: 400 naming before', async (_description, cursor) => {
    const response = await api.send('GET', `${A}/audit?before=${encodeURIComponent(cursor)}`, { as: viewer });
    expect(response).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST', field: 'before' } });
  });

  test('a cursor from a page still reads the next page', async () => {
    const ops = api.operations({ type: 'cli', operator: 'seed' });
    for (let index = 0; index < 55; index += 1) await ops.prompts.create('acme', { promptId: `many-${index}`, promptName: `Many ${index}` });
    const first = (await api.send('GET', `${A}/audit`, { as: viewer })).body as { next: string };
    const second = await api.send('GET', `${A}/audit?before=${first.next}`, { as: viewer });
    expect(second.status).toBe(200);
  }, 30_000);
});
