import { hashApiKey } from '../../lambda/domain/api-key';
import {
  createPromptClient,
  NotFoundError,
  type PromptClient,
  type PromptClientOptions,
  UnauthorizedError,
  UsageLimitExceededError,
  VersionNotFoundError,
} from '../../client/src/index';
import { prompt, version } from '../support/fixtures';
import { ClientStack, UPGRADE_URL } from './support/client-stack';

/**
 * The client against the real local stack (started here, not mocked). Every request the stack serves
 * is counted from its request log; each test has its own key, so its counts are its own.
 */
const stack = new ClientStack();
let accountNumber = 0;

beforeAll(async () => {
  await stack.start();
}, 60_000);
afterAll(() => stack.remove());
afterEach(() => expect(stack.failures).toEqual([]));

const START = Date.parse('2026-11-22T12:00:00Z');
const TTL_MS = 60_000;

/** A fresh account with the given prompts, a key to it, and a client whose clock the test moves. */
async function setUp(
  prompts: Parameters<ClientStack['fixtures']['prompts']>[1][],
  options: { monthlyLimit?: number; client?: Partial<PromptClientOptions> } = {},
) {
  accountNumber += 1;
  const accountId = `account-${accountNumber}`;
  await stack.fixtures.account(accountId);
  await stack.fixtures.prompts(accountId, ...prompts);
  const apiKey = await stack.fixtures.apiKey(accountId, options.monthlyLimit === undefined ? {} : { monthlyLimit: options.monthlyLimit });
  const clock = { now: START };
  const client: PromptClient = createPromptClient({ baseUrl: stack.url, apiKey, now: () => clock.now, ...options.client });
  return {
    accountId,
    apiKey,
    clock,
    client,
    /** Requests the stack served for this key: `GET /path status`. */
    served: () => stack.requestsOf(apiKey).map((record) => `${record.method} ${record.path} ${record.status}`),
  };
}

const welcome = () => prompt('welcome-email', [version('1.0.0', { systemMessage: 'You write to ${name}.', userMessage: 'Welcome ${name} to ${company}.' })]);

test('the first call for a prompt waits for the API and returns it, its variables and its source', async () => {
  const { client, served } = await setUp([welcome()]);

  const found = await client.get('welcome-email');

  expect(found).toMatchObject({ promptId: 'welcome-email', version: '1.0.0', source: 'network', variables: ['name', 'company'] });
  expect(found.compile({ name: 'Ada', company: 'Acme' })).toEqual({ systemMessage: 'You write to Ada.', userMessage: 'Welcome Ada to Acme.' });
  expect(served()).toEqual(['GET /prompts/welcome-email 200']);
});

test('calls within the TTL are answered from memory and make no request', async () => {
  const { client, clock, served } = await setUp([welcome()]);
  await client.get('welcome-email');

  clock.now += TTL_MS - 1;
  const answers = [];
  for (let i = 0; i < 100; i += 1) answers.push(await client.get('welcome-email'));
  await client.idle();

  expect(answers.every((answer) => answer.source === 'cache' && answer.version === '1.0.0')).toBe(true);
  expect(served()).toHaveLength(1);
});

test('the latest copy also answers for its own version, which never changes', async () => {
  const { client, served } = await setUp([welcome()]);
  await client.get('welcome-email');

  expect(await client.get('welcome-email', { version: '1.0.0' })).toMatchObject({ version: '1.0.0', source: 'cache' });
  expect(served()).toHaveLength(1);
});

test('a pinned version is fetched once and never again, however much time passes', async () => {
  const { client, clock, served } = await setUp([prompt('p', [version('1.0.0'), version('1.1.0')])]);

  expect((await client.get('p', { version: '1.0.0' })).source).toBe('network');
  clock.now += 365 * 24 * 3600_000;
  const again = await client.get('p', { version: '1.0.0' });
  await client.idle();

  expect(again).toMatchObject({ version: '1.0.0', source: 'cache' });
  expect(served()).toEqual(['GET /prompts/p 200']);
});

test('after the TTL the cached copy is returned at once and revalidated in the background with If-None-Match; a 304 keeps it', async () => {
  const { client, clock, served } = await setUp([welcome()]);
  const first = await client.get('welcome-email');

  clock.now += TTL_MS;
  const stale = await client.get('welcome-email');
  expect(served()).toHaveLength(1);
  await client.idle();

  expect(stale.source).toBe('cache');
  expect(stale.userMessage).toBe(first.userMessage);
  expect(served()).toEqual(['GET /prompts/welcome-email 200', 'GET /prompts/welcome-email 304']);

  clock.now += TTL_MS - 1;
  await client.get('welcome-email');
  await client.idle();
  expect(served()).toHaveLength(2);
});

test('a background revalidation that finds a newer version serves it from the next call on', async () => {
  const { accountId, client, clock } = await setUp([welcome()]);
  await client.get('welcome-email');
  await stack.fixtures.prompts(accountId, prompt('welcome-email', [version('1.1.0', { userMessage: 'Hi ${name}.' })]));

  clock.now += TTL_MS;
  expect((await client.get('welcome-email')).version).toBe('1.0.0');
  await client.idle();

  expect(await client.get('welcome-email')).toMatchObject({ version: '1.1.0', variables: ['name'], source: 'cache' });
});

test('concurrent first calls for the same prompt share one request', async () => {
  const { client, served } = await setUp([welcome()]);

  const answers = await Promise.all(Array.from({ length: 20 }, () => client.get('welcome-email')));

  expect(new Set(answers.map((answer) => answer.version))).toEqual(new Set(['1.0.0']));
  expect(served()).toEqual(['GET /prompts/welcome-email 200']);
});

test('concurrent calls after the TTL share one background revalidation', async () => {
  const { client, clock, served } = await setUp([welcome()]);
  await client.get('welcome-email');

  clock.now += TTL_MS;
  await Promise.all(Array.from({ length: 20 }, () => client.get('welcome-email')));
  await client.idle();

  expect(served()).toEqual(['GET /prompts/welcome-email 200', 'GET /prompts/welcome-email 304']);
});

test('list() fills the cache for every prompt in one request', async () => {
  const { client, served } = await setUp([welcome(), prompt('a', [version('1.0.0')]), prompt('b', [version('2.0.0')])]);

  const listed = await client.list();
  const got = await Promise.all(['a', 'b', 'welcome-email'].map((id) => client.get(id)));

  expect(listed.map((p) => `${p.promptId} ${p.version} ${p.source}`)).toEqual(['a 1.0.0 network', 'b 2.0.0 network', 'welcome-email 1.0.0 network']);
  expect(got.map((p) => p.source)).toEqual(['cache', 'cache', 'cache']);
  expect(served()).toEqual(['GET /prompts 200']);
});

test('prompts filled by preload() are revalidated as a whole, by one conditional list request', async () => {
  const { client, clock, served } = await setUp([welcome(), prompt('a', [version('1.0.0')]), prompt('b', [version('2.0.0')])]);
  await client.preload();

  clock.now += TTL_MS;
  for (const id of ['a', 'b', 'welcome-email']) await client.get(id);
  await client.idle();
  for (const id of ['a', 'b', 'welcome-email']) await client.get(id);
  await client.idle();

  expect(served()).toEqual(['GET /prompts 200', 'GET /prompts 304']);
});

test('a list revalidation drops the prompts the list no longer has', async () => {
  const { accountId, client, clock } = await setUp([welcome(), prompt('a', [version('1.0.0')])]);
  await client.preload();
  await stack.fixtures.admin.deletePrompt(accountId, 'a');

  clock.now += TTL_MS;
  await client.list();
  await client.idle();

  expect((await client.list()).map((p) => p.promptId)).toEqual(['welcome-email']);
  await expect(client.get('a')).rejects.toMatchObject({ code: 'NOT_FOUND' });
});

test('a 404 on revalidation removes the prompt from the cache: the next call waits for the API and gets NOT_FOUND', async () => {
  const { accountId, client, clock, served } = await setUp([welcome()]);
  await client.get('welcome-email');
  await client.get('welcome-email', { version: '1.0.0' });
  await stack.fixtures.admin.deletePrompt(accountId, 'welcome-email');

  clock.now += TTL_MS;
  expect((await client.get('welcome-email')).source).toBe('cache');
  await client.idle();

  const error = await client.get('welcome-email').catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(NotFoundError);
  expect(error).toMatchObject({ code: 'NOT_FOUND', promptId: 'welcome-email' });
  await expect(client.get('welcome-email', { version: '1.0.0' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  expect(served().slice(1)).toEqual(['GET /prompts/welcome-email 404', 'GET /prompts/welcome-email 404', 'GET /prompts/welcome-email 404']);
});

test('a version that is not published throws VERSION_NOT_FOUND', async () => {
  const { client } = await setUp([welcome()]);

  const error = await client.get('welcome-email', { version: '9.0.0' }).catch((caught: unknown) => caught);

  expect(error).toBeInstanceOf(VersionNotFoundError);
  expect(error).toMatchObject({ code: 'VERSION_NOT_FOUND', promptId: 'welcome-email', version: '9.0.0' });
});

test('401 is never hidden behind a cache: once the API refuses the key, cached copies are not served', async () => {
  const { apiKey, client, clock } = await setUp([welcome()]);
  await client.get('welcome-email');
  await client.get('welcome-email', { version: '1.0.0' });
  await stack.fixtures.admin.revokeApiKey(hashApiKey(apiKey));

  clock.now += TTL_MS;
  await client.get('welcome-email');
  await client.idle();

  await expect(client.get('welcome-email')).rejects.toBeInstanceOf(UnauthorizedError);
  await expect(client.get('welcome-email', { version: '1.0.0' })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  await expect(client.list()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
});

test('a key the API does not know fails the first call with UNAUTHORIZED, even with a snapshot to fall back on', async () => {
  const { client } = await setUp([welcome()]);
  const snapshot = await client.snapshot();
  const stranger = createPromptClient({ baseUrl: stack.url, apiKey: 'prs_not_a_key_of_this_service_0000', snapshot });

  const error = await stranger.get('welcome-email').catch((caught: unknown) => caught);

  expect(error).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  expect(String((error as Error).message)).not.toContain('prs_not_a_key');
});

test('429: copies are served, and no request is made until Retry-After has passed', async () => {
  const { client, clock, served } = await setUp([welcome(), prompt('a', [version('1.0.0')]), prompt('b', [version('1.0.0')])], {
    monthlyLimit: 2,
  });
  await client.get('welcome-email');
  await client.get('a');

  clock.now += TTL_MS;
  expect((await client.get('welcome-email')).source).toBe('cache');
  await client.idle();
  expect(served().at(-1)).toBe('GET /prompts/welcome-email 429');

  clock.now += 10 * TTL_MS;
  expect((await client.get('welcome-email')).source).toBe('cache');
  expect((await client.get('a')).source).toBe('cache');
  const error = await client.get('b').catch((caught: unknown) => caught);
  await client.idle();

  expect(error).toBeInstanceOf(UsageLimitExceededError);
  expect(error).toMatchObject({ code: 'USAGE_LIMIT_EXCEEDED', usage: { used: 2, limit: 2 }, upgradeUrl: UPGRADE_URL });
  const { resetsAt } = error as UsageLimitExceededError;
  expect(resetsAt.getTime()).toBe(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 1));
  expect(served()).toHaveLength(3);

  clock.now = resetsAt.getTime();
  await client.get('b').catch(() => undefined);
  expect(served()).toHaveLength(4);
});

test('quota reports the X-RateLimit headers of the last answer', async () => {
  const { client } = await setUp([prompt('p', [version('1.0.0'), version('1.1.0')])], { monthlyLimit: 10 });
  expect(client.quota).toBeUndefined();

  await client.get('p');
  await client.get('p', { version: '1.0.0' });

  expect(client.quota).toEqual({
    limit: 10,
    remaining: 8,
    resetsAt: new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 1)),
  });
});

test('snapshot() holds every prompt at its latest version and every version fetched so far', async () => {
  const { client } = await setUp([prompt('a', [version('1.0.0'), version('1.1.0')]), prompt('b', [version('2.0.0')])]);
  await client.get('a', { version: '1.0.0' });

  const snapshot = await client.snapshot();

  expect(snapshot).toMatchObject({ format: 'prompt-retrieval-snapshot', formatVersion: 1, createdAt: new Date(START).toISOString() });
  expect(snapshot.prompts.map((p) => `${p.promptId} ${p.version}`)).toEqual(['a 1.1.0', 'b 2.0.0']);
  expect(snapshot.versions.map((p) => `${p.promptId} ${p.version}`)).toEqual(['a 1.0.0']);
  expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
  expect(Object.keys(snapshot.prompts[0] ?? {})).toEqual(['promptId', 'promptName', 'version', 'systemMessage', 'userMessage', 'config']);
});
