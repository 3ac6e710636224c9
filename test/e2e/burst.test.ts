/**
 * @run-alone 1,000 requests, each answered before its store calls' deadline: another test file's CPU would slow the store into 503s.
 */
import { createDocumentClient } from '../../lambda/table/client';
import { DEFAULT_TABLE_NAME } from '../../local/local-config';
import { LOCAL_CONCURRENCY } from '../../local/invocation-slots';
import { Fixtures, prompt, version } from '../support/fixtures';
import { type StackProcess, StackSet, temporaryFolder } from './support/processes';

/**
 * A load test's burst against `npm start` with a healthy store: 1,000 concurrent GETs on one key,
 * mixed as an application would send them. The store is fine, so no answer may be a 503: exactly
 * min(N, limit) succeed and the rest are told 429 (docs/local-stack.md says what the local
 * stack absorbs).
 */

const BURST = 1_000;
const ACCOUNT = 'bursty';
const PATHS = ['/prompts/welcome', '/prompts', '/prompts/welcome?version=1.0.0', '/prompts/welcome?version=1.1.0'];

const stacks = new StackSet();
let stack: StackProcess;
let fixtures: Fixtures;
let client: ReturnType<typeof createDocumentClient>;
let removeDataDir: () => Promise<void>;

beforeAll(async () => {
  const dataDir = await temporaryFolder('burst');
  removeDataDir = dataDir.remove;
  stack = await stacks.start({ DATA_DIR: dataDir.path, SEED_FILE: '' });
  client = createDocumentClient({ region: 'us-east-1', endpoint: stack.storeUrl });
  fixtures = new Fixtures(client, DEFAULT_TABLE_NAME);
  await fixtures.account(ACCOUNT);
  await fixtures.prompts(ACCOUNT, prompt('welcome', [version('1.0.0'), version('1.1.0'), version('1.2.0')]));
}, 90_000);

afterAll(async () => {
  client?.destroy();
  await stacks.stopAll();
  await removeDataDir?.();
});

async function burst(apiKey: string): Promise<Map<number, number>> {
  const statuses = await Promise.all(
    Array.from({ length: BURST }, async (_, i) => {
      const response = await fetch(`${stack.apiUrl}${PATHS[i % PATHS.length]}`, {
        headers: { Authorization: `Bearer ${apiKey}` },
      });
      await response.arrayBuffer();
      return response.status;
    }),
  );
  const counts = new Map<number, number>();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  return counts;
}

test('the burst is more than the local stack runs at once, so most of it waits in line', () => {
  expect(BURST).toBeGreaterThan(LOCAL_CONCURRENCY.maxRunning);
  expect(BURST).toBeLessThanOrEqual(LOCAL_CONCURRENCY.maxRunning + LOCAL_CONCURRENCY.maxWaiting);
});

test.each([1, 100])(
  'limit %i: exactly that many 200s, every other answer 429, none 503',
  async (limit) => {
    const apiKey = await fixtures.apiKey(ACCOUNT, { monthlyLimit: limit });
    const counts = await burst(apiKey);
    expect(Object.fromEntries(counts)).toEqual({ 200: limit, 429: BURST - limit });
  },
  60_000,
);
