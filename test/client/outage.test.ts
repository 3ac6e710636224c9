import { createPromptClient, type PromptSnapshot, ServiceUnavailableError } from '../../client/src/index';
import { prompt, version } from '../support/fixtures';
import { ClientStack } from './support/client-stack';

/**
 * The stack is started, used, then stopped: what an application sees when the service goes away.
 * Nothing here may surface as an unhandled rejection, background revalidations included.
 */
const stack = new ClientStack();
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
const clock = { now: Date.parse('2026-11-22T12:00:00Z') };
let baseUrl: string;
let apiKey: string;
let client: ReturnType<typeof createPromptClient>;
let snapshot: PromptSnapshot;

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  await stack.start();
  baseUrl = stack.url;
  await stack.fixtures.account('acme');
  await stack.fixtures.prompts(
    'acme',
    prompt('cached', [version('1.0.0'), version('1.1.0')]),
    prompt('only-in-snapshot', [version('3.0.0')]),
    prompt('pinned-in-snapshot', [version('1.0.0'), version('2.0.0')]),
  );
  apiKey = await stack.fixtures.apiKey('acme');
  const taker = createPromptClient({ baseUrl, apiKey });
  await taker.get('pinned-in-snapshot', { version: '1.0.0' });
  snapshot = await taker.snapshot();

  client = createPromptClient({ baseUrl, apiKey, snapshot, now: () => clock.now });
  await client.get('cached');
  await client.get('cached', { version: '1.0.0' });
  await stack.remove();
}, 60_000);

afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

test('with the stack stopped, a cached latest copy is served, and its failed revalidation changes nothing', async () => {
  clock.now += 3_600_000;
  const first = await client.get('cached');
  await client.idle();
  const again = await client.get('cached');

  expect(first).toMatchObject({ promptId: 'cached', version: '1.1.0', source: 'cache' });
  expect(again).toMatchObject({ version: '1.1.0', source: 'cache' });
});

test('with the stack stopped, a cached pinned version is served', async () => {
  expect(await client.get('cached', { version: '1.0.0' })).toMatchObject({ version: '1.0.0', source: 'cache' });
});

test('with the stack stopped, a prompt never fetched is served from the snapshot, and then from memory at once', async () => {
  const first = await client.get('only-in-snapshot');
  const again = await client.get('only-in-snapshot');

  expect(first).toMatchObject({ version: '3.0.0', source: 'snapshot' });
  expect(again).toBe(first);
});

test("with the stack stopped, a pinned version is served from the snapshot's copies", async () => {
  expect(await client.get('pinned-in-snapshot', { version: '1.0.0' })).toMatchObject({ version: '1.0.0', source: 'snapshot' });
  expect(await client.get('pinned-in-snapshot')).toMatchObject({ version: '2.0.0', source: 'snapshot' });
});

test('with the stack stopped, list() answers with every copy there is', async () => {
  const listed = await client.list();
  expect(listed.map((p) => `${p.promptId} ${p.version} ${p.source}`)).toEqual([
    'cached 1.1.0 cache',
    'only-in-snapshot 3.0.0 snapshot',
    'pinned-in-snapshot 2.0.0 snapshot',
  ]);
});

test('with the stack stopped, what has no copy anywhere throws SERVICE_UNAVAILABLE naming the failure', async () => {
  const latest = await client.get('never-seen').catch((caught: unknown) => caught);
  const pinned = await client.get('pinned-in-snapshot', { version: '2.0.1' }).catch((caught: unknown) => caught);

  expect(latest).toBeInstanceOf(ServiceUnavailableError);
  expect(latest).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  expect((latest as Error).message).toBe('GET /prompts/never-seen: fetch failed (ECONNREFUSED)');
  expect(pinned).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
});

test('with the stack stopped, a client started from the snapshot alone serves it', async () => {
  const fresh = createPromptClient({ baseUrl, apiKey, snapshot: JSON.stringify(snapshot) });

  const found = await fresh.get('cached');

  expect(found).toMatchObject({ version: '1.1.0', source: 'snapshot' });
  expect(found.compile({ name: 'Ada' }).userMessage).toBe('Hello Ada, this is 1.1.0');
});
