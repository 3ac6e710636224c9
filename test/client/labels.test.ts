import { createServer } from 'node:net';
import { createPromptClient, InvalidOptionsError, LabelNotFoundError, type PromptClient } from '../../client/src/index';
import { prompt, version } from '../support/fixtures';
import { ClientStack } from './support/client-stack';

/**
 * The client's labels against the real local stack: `get(id, { label })` cached and revalidated like
 * latest, `preload({ label })` in one request, and snapshots that keep labels. Requests are counted from
 * the stack's request log, one key per test.
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

async function setUp() {
  accountNumber += 1;
  const accountId = `labels-${accountNumber}`;
  await stack.fixtures.account(accountId);
  await stack.fixtures.prompts(
    accountId,
    prompt(
      'welcome-email',
      [version('1.0.0', { userMessage: 'Hi ${name}' }), version('1.1.0', { userMessage: 'Hello ${name} at ${company}' }), version('1.2.0')],
      {
        labels: { production: '1.0.0', staging: '1.1.0' },
      },
    ),
    prompt('summary', [version('2.0.0')], { labels: { production: '2.0.0' } }),
    prompt('unlabelled', [version('1.0.0')]),
  );
  const apiKey = await stack.fixtures.apiKey(accountId);
  const clock = { now: START };
  const client: PromptClient = createPromptClient({ baseUrl: stack.url, apiKey, now: () => clock.now });
  return {
    accountId,
    apiKey,
    clock,
    client,
    served: () => stack.requestsOf(apiKey).map((record) => `${record.method} ${record.path} ${record.status}`),
  };
}

test('get at a label waits for the first answer only, then serves it from memory within the TTL', async () => {
  const { client, clock, served } = await setUp();

  const first = await client.get('welcome-email', { label: 'production' });
  clock.now += TTL_MS - 1;
  const again = await client.get('welcome-email', { label: 'production' });
  await client.idle();

  expect(first).toMatchObject({ version: '1.0.0', source: 'network', variables: ['name'] });
  expect(again).toMatchObject({ version: '1.0.0', source: 'cache' });
  expect(served()).toEqual(['GET /prompts/welcome-email 200']);
});

test('after the TTL the copy is served at once and revalidated in the background with If-None-Match: 304', async () => {
  const { client, clock, served } = await setUp();
  await client.get('welcome-email', { label: 'production' });

  clock.now += TTL_MS;
  expect(await client.get('welcome-email', { label: 'production' })).toMatchObject({ version: '1.0.0', source: 'cache' });
  await client.idle();

  expect(served()).toEqual(['GET /prompts/welcome-email 200', 'GET /prompts/welcome-email 304']);
});

test('a moved label is seen once the copy is revalidated; latest and other labels are their own', async () => {
  const { accountId, client, clock } = await setUp();
  await client.get('welcome-email', { label: 'production' });
  expect((await client.get('welcome-email')).version).toBe('1.2.0');

  await stack.fixtures.admin.setLabel(accountId, 'welcome-email', 'production', '1.1.0');
  clock.now += TTL_MS;
  await client.get('welcome-email', { label: 'production' });
  await client.idle();

  const moved = await client.get('welcome-email', { label: 'production' });
  expect(moved).toMatchObject({ version: '1.1.0', variables: ['name', 'company'] });
  expect((await client.get('welcome-email')).version).toBe('1.2.0');
  expect((await client.get('welcome-email', { label: 'staging' })).version).toBe('1.1.0');
});

test('preload({ label }) fills the cache for every prompt at the label with one list request', async () => {
  const { client, clock, served } = await setUp();

  await client.preload({ label: 'production' });
  const answers = [await client.get('welcome-email', { label: 'production' }), await client.get('summary', { label: 'production' })];

  expect(answers.map((p) => `${p.promptId} ${p.version} ${p.source}`)).toEqual(['welcome-email 1.0.0 cache', 'summary 2.0.0 cache']);
  expect(served()).toEqual(['GET /prompts 200']);

  // After the TTL the list at the label is revalidated as a whole: one conditional request.
  clock.now += TTL_MS;
  await client.get('summary', { label: 'production' });
  await client.idle();
  expect(served()).toEqual(['GET /prompts 200', 'GET /prompts 304']);
});

test('list({ label }) holds only the prompts that carry the label, at its versions', async () => {
  const { client } = await setUp();
  expect((await client.list({ label: 'staging' })).map((p) => `${p.promptId} ${p.version}`)).toEqual(['welcome-email 1.1.0']);
});

test('a label the prompt does not carry fails with LABEL_NOT_FOUND; a removed label drops its copy only', async () => {
  const { accountId, client, clock } = await setUp();
  const missing = await client.get('unlabelled', { label: 'production' }).catch((error: unknown) => error);
  expect(missing).toBeInstanceOf(LabelNotFoundError);
  expect(missing).toMatchObject({ code: 'LABEL_NOT_FOUND', promptId: 'unlabelled', label: 'production', status: 404 });

  await client.get('welcome-email', { label: 'staging' });
  await stack.fixtures.admin.removeLabel(accountId, 'welcome-email', 'staging');
  clock.now += TTL_MS;
  await client.get('welcome-email', { label: 'staging' });
  await client.idle();

  await expect(client.get('welcome-email', { label: 'staging' })).rejects.toMatchObject({ code: 'LABEL_NOT_FOUND' });
  expect((await client.get('welcome-email', { label: 'production' })).version).toBe('1.0.0');
});

test('version and label together, or a malformed label, are refused before any request', async () => {
  const { client, served } = await setUp();
  await expect(client.get('welcome-email', { label: 'production', version: '1.0.0' } as never)).rejects.toBeInstanceOf(InvalidOptionsError);
  await expect(client.get('welcome-email', { label: 'Production' })).rejects.toThrow(
    'get: label must be 1 to 32 characters of a-z, 0-9, "-" or "_", starting with a letter',
  );
  await expect(client.list({ label: '' })).rejects.toBeInstanceOf(InvalidOptionsError);
  expect(served()).toEqual([]);
});

test('label latest is latest', async () => {
  const { client, served } = await setUp();
  expect((await client.get('welcome-email', { label: 'latest' })).version).toBe('1.2.0');
  expect((await client.get('welcome-email')).source).toBe('cache');
  expect(served()).toEqual(['GET /prompts/welcome-email 200']);
});

test('snapshot() keeps where each label fetched points, so an app offline resolves it', async () => {
  const { client } = await setUp();
  await client.get('welcome-email', { label: 'production' });
  await client.preload({ label: 'staging' });

  const snapshot = await client.snapshot();
  expect(snapshot.labels).toEqual({ production: { 'welcome-email': '1.0.0' }, staging: { 'welcome-email': '1.1.0' } });
  expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);

  const offline = createPromptClient({ baseUrl: await deadUrl(), apiKey: 'prs_any_key_the_app_holds_0000', snapshot: JSON.stringify(snapshot) });
  expect(await offline.get('welcome-email', { label: 'production' })).toMatchObject({ version: '1.0.0', source: 'snapshot' });
  expect(await offline.get('welcome-email', { label: 'staging' })).toMatchObject({ version: '1.1.0', source: 'snapshot' });
  // A snapshot of the offline client keeps them too.
  expect((await offline.snapshot()).labels).toEqual(snapshot.labels);
});

test('a snapshot whose label points at a version it does not hold is refused at start-up', () => {
  const damaged = {
    format: 'prompt-retrieval-snapshot',
    formatVersion: 1,
    createdAt: new Date(START).toISOString(),
    prompts: [],
    versions: [],
    labels: { production: { 'welcome-email': '1.0.0' } },
  };
  expect(() => createPromptClient({ baseUrl: stack.url, apiKey: 'prs_any', snapshot: damaged as never })).toThrow(
    'snapshot.labels["production"]["welcome-email"]: must be a version of that prompt held in the snapshot',
  );
});

async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}
