import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Prompt, PromptWithVersions } from '../../lambda/domain/prompt';
import { ApiHarness } from '../support/api-harness';
import { config, prompt, version } from '../support/fixtures';

/** docs/behaviour-rules.md, "Resources", and the Prompt fields of openapi.yaml. */
const api = new ApiHarness();
let key: string;
let globexKey: string;

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme');
  await api.fixtures.account('globex');
  key = await api.fixtures.apiKey('acme');
  globexKey = await api.fixtures.apiKey('globex');
  await api.fixtures.prompts(
    'acme',
    // Published out of order on purpose: the latest is the highest version, not the last written.
    prompt('semver', [version('1.10.0'), version('1.9.0'), version('1.2.0'), version('2.0.0', { published: false })], {
      promptName: 'Semantic ordering',
    }),
    prompt('zeta', [version('0.0.1')]),
    prompt('alpha', [version('3.0.0'), version('3.0.1')]),
    prompt('Beta', [version('1.0.0')]),
    prompt('draft-only', [version('1.0.0', { published: false })]),
    prompt('deleted', [version('1.0.0')], { deleted: true }),
  );
  await api.fixtures.prompts('globex', prompt('globex-only', [version('1.0.0')]), prompt('alpha', [version('9.0.0')]));
});
afterAll(() => api.stop());

describe('GET /prompts/{promptId}', () => {
  test('without version: the latest published version by semantic-version order (1.10.0 > 1.9.0)', async () => {
    const body = (await api.get('/prompts/semver', key)).json<Prompt>();
    expect(body.version).toBe('1.10.0');
    expect(body.userMessage).toBe('Hello ${name}, this is 1.10.0');
  });

  test('a higher version published later becomes the latest', async () => {
    await api.fixtures.prompts('acme', prompt('moving', [version('1.0.0')]));
    expect((await api.get('/prompts/moving', key)).json<Prompt>().version).toBe('1.0.0');
    await api.fixtures.prompts('acme', prompt('moving', [version('1.0.10')]));
    expect((await api.get('/prompts/moving', key)).json<Prompt>().version).toBe('1.0.10');
    await api.fixtures.prompts('acme', prompt('moving', [version('1.0.9')]));
    expect((await api.get('/prompts/moving', key)).json<Prompt>().version).toBe('1.0.10');
  });

  test('with version: that version, with `version` holding it', async () => {
    const body = (await api.get('/prompts/semver?version=1.9.0', key)).json<Prompt>();
    expect(body.version).toBe('1.9.0');
    expect(body.systemMessage).toBe('System message of 1.9.0');
  });

  test('the body has exactly the spec fields, in the spec order', async () => {
    const body = (await api.get('/prompts/semver', key)).json<Prompt>();
    expect(Object.keys(body)).toEqual(['promptId', 'promptName', 'version', 'systemMessage', 'userMessage', 'config']);
    expect(body).toEqual({
      promptId: 'semver',
      promptName: 'Semantic ordering',
      version: '1.10.0',
      systemMessage: 'System message of 1.10.0',
      userMessage: 'Hello ${name}, this is 1.10.0',
      config: { model: 'gpt-4o-mini', temperature: 0.7, schema: [], inputData: null, inputDataRootName: null },
    });
  });

  test('the template is returned as stored: the service never substitutes ${variables}', async () => {
    expect((await api.get('/prompts/zeta', key)).json<Prompt>().userMessage).toContain('${name}');
  });

  test('a draft above the latest published version is never served as latest', async () => {
    expect((await api.get('/prompts/semver', key)).json<Prompt>().version).not.toBe('2.0.0');
  });

  test('config always has model, temperature, schema, inputData and inputDataRootName', async () => {
    const partial = { model: 'claude-x', temperature: 0 } as unknown as ReturnType<typeof config>;
    await api.fixtures.prompts('acme', prompt('sparse-config', [version('1.0.0', { config: partial })]));
    expect((await api.get('/prompts/sparse-config', key)).json<Prompt>().config).toEqual({
      model: 'claude-x',
      temperature: 0,
      schema: [],
      inputData: null,
      inputDataRootName: null,
    });
  });

  test('structured config values are returned as stored', async () => {
    const rich = config({
      schema: [{ name: 'answer', type: 'string', required: true }],
      inputData: { rows: [1, 2, 3], nested: { ok: true } },
      inputDataRootName: 'data',
      temperature: 2,
    });
    await api.fixtures.prompts('acme', prompt('rich-config', [version('1.0.0', { config: rich })]));
    expect((await api.get('/prompts/rich-config', key)).json<Prompt>().config).toEqual(rich);
  });
});

describe('GET /prompts', () => {
  test('every prompt with a published version, ordered by promptId ascending, each at its latest version', async () => {
    const body = (await api.get('/prompts', key)).json<Prompt[]>();
    const ids = body.map((p) => p.promptId);
    expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(ids).toEqual(expect.arrayContaining(['Beta', 'alpha', 'semver', 'zeta']));
    expect(ids.indexOf('Beta')).toBeLessThan(ids.indexOf('alpha'));
    expect(body.find((p) => p.promptId === 'semver')?.version).toBe('1.10.0');
    expect(body.find((p) => p.promptId === 'alpha')?.version).toBe('3.0.1');
  });

  test('drafts-only and deleted prompts are not listed', async () => {
    const ids = (await api.get('/prompts', key)).json<Prompt[]>().map((p) => p.promptId);
    expect(ids).not.toContain('draft-only');
    expect(ids).not.toContain('deleted');
  });

  test('without include_versions no publishedVersions field is present', async () => {
    for (const path of ['/prompts', '/prompts?include_versions=false']) {
      for (const item of (await api.get(path, key)).json<Prompt[]>()) {
        expect(Object.keys(item)).toEqual(['promptId', 'promptName', 'version', 'systemMessage', 'userMessage', 'config']);
      }
    }
  });

  test('include_versions=true: every published version in ascending semantic-version order, own version included', async () => {
    const body = (await api.get('/prompts?include_versions=true', key)).json<PromptWithVersions[]>();
    const semver = body.find((p) => p.promptId === 'semver');
    expect(semver?.publishedVersions).toEqual([
      { version: '1.2.0', userMessage: 'Hello ${name}, this is 1.2.0' },
      { version: '1.9.0', userMessage: 'Hello ${name}, this is 1.9.0' },
      { version: '1.10.0', userMessage: 'Hello ${name}, this is 1.10.0' },
    ]);
    for (const item of body) {
      expect(item.publishedVersions.map((v) => v.version)).toContain(item.version);
      for (const entry of item.publishedVersions) expect(Object.keys(entry)).toEqual(['version', 'userMessage']);
    }
  });

  test('a prompt id that is a prefix of another keeps its own versions', async () => {
    await api.fixtures.account('prefixes');
    const prefixKey = await api.fixtures.apiKey('prefixes');
    await api.fixtures.prompts(
      'prefixes',
      prompt('a', [version('1.0.0')]),
      prompt('a.b', [version('2.0.0')]),
      prompt('a-b', [version('3.0.0')]),
      prompt('a_b', [version('4.0.0')]),
    );
    const body = (await api.get('/prompts?include_versions=true', prefixKey)).json<PromptWithVersions[]>();
    expect(body.map((p) => [p.promptId, p.publishedVersions.map((v) => v.version)])).toEqual([
      ['a', ['1.0.0']],
      ['a-b', ['3.0.0']],
      ['a.b', ['2.0.0']],
      ['a_b', ['4.0.0']],
    ]);
  });

  test('an account without prompts gets an empty array', async () => {
    await api.fixtures.account('empty');
    const emptyKey = await api.fixtures.apiKey('empty');
    const response = await api.get('/prompts', emptyKey);
    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
  });
});

describe('deleting a prompt', () => {
  test('hides it from the very next request: latest, the list, and pinned versions a container keeps in memory', async () => {
    await api.fixtures.prompts('acme', prompt('short-lived', [version('1.0.0')]));
    expect((await api.get('/prompts/short-lived?version=1.0.0', key)).status).toBe(200);
    expect((await api.get('/prompts/short-lived?version=1.0.0', key)).status).toBe(200);

    await api.fixtures.admin.deletePrompt('acme', 'short-lived');
    expect((await api.get('/prompts/short-lived?version=1.0.0', key)).status).toBe(404);
    expect((await api.get('/prompts/short-lived', key)).status).toBe(404);
    expect((await api.get('/prompts', key)).json<Prompt[]>().map((p) => p.promptId)).not.toContain('short-lived');
  });

  test('a restored prompt is served again, pinned versions included', async () => {
    await api.fixtures.prompts('acme', prompt('comeback', [version('1.0.0'), version('1.1.0')]));
    expect((await api.get('/prompts/comeback?version=1.0.0', key)).status).toBe(200);
    await api.fixtures.admin.deletePrompt('acme', 'comeback');
    expect((await api.get('/prompts/comeback?version=1.0.0', key)).status).toBe(404);

    await api.fixtures.admin.restorePrompt('acme', 'comeback');
    expect((await api.get('/prompts/comeback?version=1.0.0', key)).status).toBe(200);
    expect((await api.get('/prompts/comeback', key)).json<Prompt>().version).toBe('1.1.0');
  });
});

describe('tenant isolation', () => {
  test('a prompt of one account is invisible to every key of another: 404, exactly as if it did not exist', async () => {
    const other = await api.get('/prompts/globex-only', key);
    const missing = await api.get('/prompts/never-existed', key);
    expect(other.status).toBe(404);
    expect(other.json<{ code: string }>().code).toBe(missing.json<{ code: string }>().code);
    expect(other.rawBody?.replace('globex-only', 'X')).toBe(missing.rawBody?.replace('never-existed', 'X'));
  });

  test("the same promptId in two accounts resolves within the caller's account", async () => {
    expect((await api.get('/prompts/alpha', key)).json<Prompt>().version).toBe('3.0.1');
    expect((await api.get('/prompts/alpha', globexKey)).json<Prompt>().version).toBe('9.0.0');
  });

  test("the list holds only the caller's account", async () => {
    const ids = (await api.get('/prompts', globexKey)).json<Prompt[]>().map((p) => p.promptId);
    expect(ids).toEqual(['alpha', 'globex-only']);
  });
});

describe('lists larger than one store page', () => {
  test("GET /prompts follows the store's pages to the end: a list over 1 MB comes back whole", async () => {
    await api.fixtures.account('bulk');
    const bulkKey = await api.fixtures.apiKey('bulk');
    const big = 'x'.repeat(3_000);
    const count = 400;
    // ~3 KB per prompt head and per version item: each range is over 1 MB, so each takes several pages.
    await Promise.all(
      Array.from({ length: 4 }, async (_, worker) => {
        for (let i = worker; i < count; i += 4) {
          const id = `bulk-${String(i).padStart(4, '0')}`;
          await api.fixtures.prompts('bulk', prompt(id, [version('1.0.0', { systemMessage: big, userMessage: big })]));
        }
      }),
    );
    const client = api.localStore.clients.reads;
    const queries: number[] = [];
    const send = client.send.bind(client);
    const spy = jest.spyOn(client, 'send').mockImplementation(((command: unknown, options: unknown) => {
      if (command instanceof QueryCommand) queries.push(1);
      return send(command as never, options as never);
    }) as typeof client.send);
    try {
      const list = await api.get('/prompts', bulkKey);
      expect(list.json<Prompt[]>()).toHaveLength(count);
      expect(list.json<Prompt[]>().map((p) => p.promptId)).toEqual(Array.from({ length: count }, (_, i) => `bulk-${String(i).padStart(4, '0')}`));
      expect(queries.length).toBeGreaterThan(1);

      const gzipped = await api.get('/prompts', bulkKey, { 'Accept-Encoding': 'gzip, br' });
      expect(gzipped.headers['content-encoding']).toBe('gzip');
      expect(gzipped.body).toEqual(list.body);

      const withVersions = await api.get('/prompts?include_versions=true', bulkKey);
      expect(withVersions.json<PromptWithVersions[]>()).toHaveLength(count);
      expect(withVersions.json<PromptWithVersions[]>().every((p) => p.publishedVersions.length === 1)).toBe(true);
    } finally {
      spy.mockRestore();
    }
  }, 30_000);
});

describe('stored data the API reads defensively', () => {
  test('a prompt head without a published copy is not served', async () => {
    const { client, tableName } = api.localStore;
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: { pk: 'ACCOUNT#acme', sk: 'PROMPT#hollow', promptId: 'hollow', promptName: 'Hollow', deleted: false },
      }),
    );
    expect((await api.get('/prompts/hollow', key)).status).toBe(404);
    const stored = await client.send(new GetCommand({ TableName: tableName, Key: { pk: 'ACCOUNT#acme', sk: 'PROMPT#hollow' } }));
    expect(stored.Item).toBeDefined();
  });

  test('a version stored with its config as a map (written before config was JSON text) is served the same', async () => {
    const { client, tableName } = api.localStore;
    const content = { version: '1.0.0', systemMessage: 's', userMessage: 'u', config: config({ inputData: { a: [1, { b: null }] } }) };
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: { pk: 'ACCOUNT#acme', sk: 'PROMPT#legacy', promptId: 'legacy', promptName: 'Legacy', deleted: false, latest: content },
      }),
    );
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: { pk: 'ACCOUNT#acme', sk: 'VERSION#legacy#000000001.000000000.000000000', promptId: 'legacy', published: true, ...content },
      }),
    );
    for (const path of ['/prompts/legacy', '/prompts/legacy?version=1.0.0']) {
      const response = await api.get(path, key);
      expect(response.status).toBe(200);
      expect(response.json<Prompt>().config).toEqual(content.config);
    }
  });

  test('a version written now holds its config as JSON text, so every key of it is kept', async () => {
    const { client, tableName } = api.localStore;
    const stored = await client.send(new GetCommand({ TableName: tableName, Key: { pk: 'ACCOUNT#acme', sk: 'VERSION#zeta#000000000.000000000.000000001' } }));
    expect(typeof stored.Item?.config).toBe('string');
    expect(JSON.parse(String(stored.Item?.config))).toEqual(config());
  });
});
