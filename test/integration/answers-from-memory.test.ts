import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { apiKeyItem } from '../../lambda/table/item-builders';
import { newKeyRecord } from '../../lambda/features/keys/keys';
import { catchUpKeys } from '../../lambda/table/propagation';
import { Table } from '../../lambda/table/table';
import { CachedPromptStore, DEFAULT_PROMPT_CACHE } from '../../lambda/read-api/store/cached-prompt-store';
import { generateApiKey, hashApiKey, keyIdFromHash } from '../../lambda/domain/api-key';
import { ApiHarness } from '../support/api-harness';
import { prompt, version } from '../support/fixtures';
import { registerApiKey } from '../support/log-capture';

/**
 * Issue 21: a warm function answers every route with the one update that admits the request, and every
 * change is seen by the very next request with every key of the account. Store operations are counted as
 * the API's own clients send them to the real local store.
 */
const api = new ApiHarness();
let storeOperations = 0;

function countOperations(client: DynamoDBDocumentClient): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      storeOperations += 1;
      return next(args);
    },
    { step: 'initialize', name: 'countStoreOperations' },
  );
}

async function operationsOf(request: () => Promise<unknown>): Promise<number> {
  const before = storeOperations;
  await request();
  return storeOperations - before;
}

const ROUTES = [
  ['latest', '/prompts/welcome'],
  ['pinned', '/prompts/welcome?version=1.0.0'],
  ['label', '/prompts/welcome?label=production'],
  ['list', '/prompts'],
  ['list with versions', '/prompts?include_versions=true'],
  ['list at a label', '/prompts?label=production'],
  ['list with versions at a label', '/prompts?label=production&include_versions=true'],
] as const;

let account = 0;
/** A fresh account with two prompts, `production` on welcome 1.0.0, and two keys. */
async function freshAccount(): Promise<{ accountId: string; keys: [string, string] }> {
  account += 1;
  const accountId = `memory-${account}`;
  await api.fixtures.account(accountId, 'pro');
  await api.fixtures.prompts(
    accountId,
    { ...prompt('welcome', [version('1.0.0'), version('1.1.0')]), labels: { production: '1.0.0' } },
    prompt('other', [version('1.0.0')]),
  );
  return { accountId, keys: [await api.fixtures.apiKey(accountId), await api.fixtures.apiKey(accountId)] };
}

beforeAll(async () => {
  await api.start();
  countOperations(api.localStore.clients.reads);
  countOperations(api.localStore.clients.writes);
});
afterAll(() => api.stop());

describe('a warm function', () => {
  test.each(ROUTES)('answers %s with one store operation per request', async (_, path) => {
    const { keys } = await freshAccount();
    await api.get(path, keys[0]);
    await api.get(path, keys[0]);
    for (let i = 0; i < 3; i += 1) {
      let status = 0;
      expect(await operationsOf(async () => (status = (await api.get(path, keys[0])).status))).toBe(1);
      expect(status).toBe(200);
    }
  });

  test('answers a 404 for a prompt that does not exist with one store operation', async () => {
    const { keys } = await freshAccount();
    await api.get('/prompts/nowhere', keys[0]);
    await api.get('/prompts/nowhere', keys[0]);
    expect(await operationsOf(() => api.get('/prompts/nowhere', keys[0]))).toBe(1);
    expect(await operationsOf(() => api.get('/prompts/welcome?label=nowhere', keys[0]))).toBeGreaterThan(1);
    expect(await operationsOf(() => api.get('/prompts/welcome?label=nowhere', keys[0]))).toBe(1);
  });

  test('reads once after a change, then answers from memory again', async () => {
    const { accountId, keys } = await freshAccount();
    await api.get('/prompts', keys[0]);
    await api.get('/prompts', keys[0]);
    await api.fixtures.admin.publishVersion(accountId, { promptId: 'other', version: '1.0.1', content: content('after') });
    // The update, and one read under the new revision (what was read meanwhile under the old one came from memory).
    expect(await operationsOf(() => api.get('/prompts', keys[0]))).toBe(2);
    expect(await operationsOf(() => api.get('/prompts', keys[0]))).toBe(1);
  });
});

function content(text: string) {
  return { systemMessage: text, userMessage: text, config: version('1.0.0').config };
}

type Change = (accountId: string, keys: [string, string]) => Promise<void>;

const CHANGES: [string, string, Change, (body: unknown, status: number) => boolean][] = [
  [
    'a publish',
    '/prompts/welcome',
    (accountId) => api.fixtures.admin.publishVersion(accountId, { promptId: 'welcome', version: '2.0.0', content: content('new') }).then(() => undefined),
    (body) => (body as { version: string }).version === '2.0.0',
  ],
  [
    'a publish (in the list with versions)',
    '/prompts?include_versions=true',
    (accountId) => api.fixtures.admin.publishVersion(accountId, { promptId: 'other', version: '0.9.0', content: content('old') }).then(() => undefined),
    (body) =>
      (body as { promptId: string; publishedVersions: { version: string }[] }[])
        .find((p) => p.promptId === 'other')
        ?.publishedVersions.some((v) => v.version === '0.9.0') === true,
  ],
  [
    'a label move',
    '/prompts/welcome?label=production',
    (accountId) => api.fixtures.admin.setLabel(accountId, 'welcome', 'production', '1.1.0').then(() => undefined),
    (body) => (body as { version: string }).version === '1.1.0',
  ],
  [
    'a label move (in the list at the label)',
    '/prompts?label=production',
    (accountId) => api.fixtures.admin.setLabel(accountId, 'other', 'production', '1.0.0').then(() => undefined),
    (body) => (body as unknown[]).length === 2,
  ],
  [
    'a label removal',
    '/prompts/welcome?label=production',
    (accountId) => api.fixtures.admin.removeLabel(accountId, 'welcome', 'production').then(() => undefined),
    (_, status) => status === 404,
  ],
  [
    'a delete',
    '/prompts',
    (accountId) => api.fixtures.admin.deletePrompt(accountId, 'other').then(() => undefined),
    (body) => (body as unknown[]).length === 1,
  ],
  [
    'a delete (latest)',
    '/prompts/welcome',
    (accountId) => api.fixtures.admin.deletePrompt(accountId, 'welcome').then(() => undefined),
    (_, status) => status === 404,
  ],
  [
    'a restore',
    '/prompts/other',
    async (accountId) => {
      await api.fixtures.admin.restorePrompt(accountId, 'other');
    },
    (_, status) => status === 200,
  ],
];

describe('a change is seen by the very next request with each of two keys', () => {
  test.each(CHANGES)('%s (%s)', async (name, path, change, seen) => {
    const { accountId, keys } = await freshAccount();
    if (name === 'a restore') await api.fixtures.admin.deletePrompt(accountId, 'other');
    for (const key of keys) {
      await api.get(path, key);
      const warm = await api.get(path, key);
      expect(seen(warm.body, warm.status)).toBe(false);
    }
    await change(accountId, keys);
    for (const key of keys) {
      const next = await api.get(path, key);
      expect(seen(next.body, next.status)).toBe(true);
    }
  });

  test('a scope change: the key sees its new scope at once, the other key keeps the whole account', async () => {
    const { accountId, keys } = await freshAccount();
    for (const key of keys) {
      await api.get('/prompts', key);
      expect((await api.get('/prompts', key)).json<unknown[]>()).toHaveLength(2);
      expect((await api.get('/prompts/other', key)).status).toBe(200);
    }
    await api.fixtures.admin.updateApiKey(accountId, keyIdFromHash(hashApiKey(keys[0])), { scope: ['welcome'] });
    expect((await api.get('/prompts', keys[0])).json<{ promptId: string }[]>().map((p) => p.promptId)).toEqual(['welcome']);
    expect((await api.get('/prompts/other', keys[0])).status).toBe(404);
    expect((await api.get('/prompts', keys[1])).json<unknown[]>()).toHaveLength(2);
    await api.fixtures.admin.updateApiKey(accountId, keyIdFromHash(hashApiKey(keys[0])), { scope: null });
    expect((await api.get('/prompts', keys[0])).json<unknown[]>()).toHaveLength(2);
    expect((await api.get('/prompts/other', keys[0])).status).toBe(200);
  });
});

describe('a key created while a change propagates', () => {
  test('a key created at the same moment as a publish sees it', async () => {
    const { accountId, keys } = await freshAccount();
    await api.get('/prompts/welcome', keys[0]);
    const [, created] = await Promise.all([
      api.fixtures.admin.publishVersion(accountId, { promptId: 'welcome', version: '3.0.0', content: content('three') }),
      api.fixtures.apiKey(accountId),
    ]);
    await api.get('/prompts/welcome', keys[0]);
    expect((await api.get('/prompts/welcome', created)).json<{ version: string }>().version).toBe('3.0.0');
  });

  test('a key the admin index does not list yet still takes the revision of a change made after it was written', async () => {
    const { accountId, keys } = await freshAccount();
    const table = new Table(api.localStore.client, api.localStore.tableName, () => new Date());
    // Written without its index attributes: as a key looks while the eventually consistent index lags.
    const apiKey = generateApiKey();
    registerApiKey(apiKey);
    const keyHash = hashApiKey(apiKey);
    const {
      gsi1pk: _pk,
      gsi1sk: _sk,
      ...unindexed
    } = apiKeyItem(keyHash, newKeyRecord(table, { keyHash, keyId: keyIdFromHash(keyHash), accountId, displayPrefix: apiKey.slice(0, 8) }, 'pro'));
    await table.put('test', { Item: unindexed });
    await catchUpKeys(table, [{ accountId, keyHash }]);
    await api.get('/prompts/welcome', apiKey);
    await api.get('/prompts/welcome', keys[0]);
    await api.fixtures.admin.publishVersion(accountId, { promptId: 'welcome', version: '4.0.0', content: content('four') });
    expect((await api.get('/prompts/welcome', apiKey)).json<{ version: string }>().version).toBe('4.0.0');
  });
});

describe('a key ahead of its account', () => {
  test('takes the next change all the same (the account item was replaced, as imports once did)', async () => {
    const { accountId, keys } = await freshAccount();
    await api.fixtures.admin.setLabel(accountId, 'welcome', 'staging', '1.0.0');
    await api.get('/prompts/welcome', keys[0]);
    await api.get('/prompts/welcome', keys[0]);
    // A put of the account item, without the revision its keys carry.
    await api.fixtures.admin.putAccount({ accountId, name: 'Replaced', plan: 'pro' });
    await api.fixtures.admin.publishVersion(accountId, { promptId: 'welcome', version: '5.0.0', content: content('five') });
    for (const key of keys) expect((await api.get('/prompts/welcome', key)).json<{ version: string }>().version).toBe('5.0.0');
  });
});

describe('memory stays bounded', () => {
  const deadline = new AbortController().signal;

  test('a list is counted at about its size: a list over the bound is read every time, never kept', async () => {
    const { accountId } = await freshAccount();
    const text = 'Answer the customer ${name} about ${topic}. '.repeat(50);
    await api.fixtures.prompts(accountId, ...Array.from({ length: 40 }, (_, i) => prompt(`bulk-${i}`, [version('1.0.0', { userMessage: text })])));
    const reader = { accountId, promptsRevision: 1, deadline };
    const roomy = new CachedPromptStore(api.realStore(), { ...DEFAULT_PROMPT_CACHE });
    const listed = await roomy.listPrompts(reader);
    const bytes = JSON.stringify(listed).length;
    expect(roomy.answersKept.entries).toBe(1);
    expect(roomy.answersKept.characters).toBeGreaterThan(bytes * 0.8);
    expect(roomy.answersKept.characters).toBeLessThan(bytes * 1.2);

    const tight = new CachedPromptStore(api.realStore(), { ...DEFAULT_PROMPT_CACHE, maxAnswerCharacters: Math.floor(bytes / 2) });
    const reads = await operationsOf(async () => {
      await tight.listPrompts(reader);
      await tight.listPrompts(reader);
    });
    expect(reads).toBe(2);
    expect(tight.answersKept).toEqual({ entries: 0, characters: 0 });
  });

  test('answers beyond the entry bound push out the least recently used', async () => {
    const { accountId } = await freshAccount();
    const reader = { accountId, promptsRevision: 1, deadline };
    const cached = new CachedPromptStore(api.realStore(), { ...DEFAULT_PROMPT_CACHE, maxAnswers: 3 });
    for (const id of ['welcome', 'other', 'a', 'b', 'c']) await cached.findLatestPrompt(reader, id);
    expect(cached.answersKept.entries).toBe(3);
    expect(await operationsOf(() => cached.findLatestPrompt(reader, 'c'))).toBe(0);
    expect(await operationsOf(() => cached.findLatestPrompt(reader, 'welcome'))).toBe(1);
  });
});
