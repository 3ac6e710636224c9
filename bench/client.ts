/**
 * The client's rows of `npm run bench`: what a cached `get` costs in-process, and how many API requests
 * (each one a quota unit) an application makes through the client. The API is the local stack on its
 * own store; time for the simulated minutes comes from an injected clock, so the run takes seconds.
 */
import { createPromptClient, type PromptClient } from '../client/src/index';
import { AccountImporter } from '../admin/table/account-importer';
import { createDocumentClient } from '../lambda/table/client';
import { ensureTable } from '../admin/table/ensure-table';
import { generateApiKey, hashApiKey, keyIdFromHash } from '../lambda/domain/api-key';
import type { RequestLogRecord } from '../lambda/read-api/middleware/request-telemetry';
import { loadLocalConfig } from '../local/local-config';
import { startLocalStack } from '../local/local-stack';
import { startCountingStore } from './counting-store';

const TABLE = 'prompts-bench-client';
const PROMPTS = 20;
const GETS = 10_000;
const SIMULATED_MS = 5 * 60_000;
const TIMED_GETS = 200_000;
const WARMUP_GETS = 20_000;

export interface ClientReport {
  /** [operation, p50 µs, p99 µs] */
  readonly latency: Array<[string, string, string]>;
  /** [scenario, API requests, what they were] */
  readonly requests: Array<[string, string, string]>;
}

const promptIds = Array.from({ length: PROMPTS }, (_, i) => `p-${String(i).padStart(2, '0')}`);

export async function measureClient(): Promise<ClientReport> {
  const store = await startCountingStore(0);
  const documents = createDocumentClient({ region: 'us-east-1', endpoint: store.endpoint });
  await ensureTable(documents, TABLE);
  const keys = Array.from({ length: 3 }, () => generateApiKey());
  await new AccountImporter(documents, TABLE).importAccounts([
    {
      accountId: 'bench-client',
      name: 'bench-client',
      plan: 'pro',
      keys: keys.map((apiKey) => {
        const keyHash = hashApiKey(apiKey);
        return { keyHash, keyId: keyIdFromHash(keyHash), displayPrefix: apiKey.slice(0, 8), monthlyLimit: 1_000_000 };
      }),
      prompts: promptIds.map((promptId) => ({
        promptId,
        promptName: promptId,
        versions: ['1.0.0', '1.1.0'].map((version) => ({
          version,
          published: true,
          systemMessage: `You answer for \${company}, version ${version}.`,
          userMessage: `Answer the customer \${name} about \${topic}. `.repeat(4),
          config: { model: 'gpt-4o-mini', temperature: 0.3, schema: [], inputData: null, inputDataRootName: null },
        })),
      })),
    },
  ]);
  const served: RequestLogRecord[] = [];
  const stack = await startLocalStack(
    { ...loadLocalConfig({}), port: 0, storeEndpoint: store.endpoint, seedPath: undefined, tableName: TABLE },
    { log: (record) => served.push(record), onFunctionError: (name, error) => console.error(`${name} failed:`, error) },
  );
  const requestsOf = (apiKey: string) => served.filter((record) => record.keyId === keyIdFromHash(hashApiKey(apiKey)));

  try {
    const [latencyKey = '', getKey = '', preloadKey = ''] = keys;
    const latency = await measureLatency(createPromptClient({ baseUrl: stack.apiUrl, apiKey: latencyKey }));
    const requests: Array<[string, string, string]> = [
      [`plain \`fetch\` on every call (no client)`, GETS.toLocaleString('en'), 'one per call, by definition (not run)'],
    ];
    for (const [name, apiKey, preload] of [
      ['client, `get` only', getKey, false],
      ['client, `preload()` once, then `get`', preloadKey, true],
    ] as const) {
      await simulateMinutes(stack.apiUrl, apiKey, preload);
      const made = requestsOf(apiKey);
      const kinds = new Map<string, number>();
      for (const record of made) {
        const kind = `${record.path === '/prompts' ? 'list' : 'get'} ${record.status}`;
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      }
      requests.push([name, String(made.length), [...kinds].map(([kind, count]) => `${count} ${kind}`).join(', ')]);
    }
    return { latency, requests };
  } finally {
    await stack.stop();
    documents.destroy();
    await store.close();
  }
}

/** Each cached call timed on its own: the p99 is what a request path sees on a bad microsecond. */
async function measureLatency(prompts: PromptClient): Promise<Array<[string, string, string]>> {
  // Time stands still: every copy stays fresh, so only the cache is measured.
  await prompts.preload();
  await prompts.get('p-00', { version: '1.0.0' });
  const welcome = await prompts.get('p-00');
  const values = { company: 'Acme', name: 'Ada', topic: 'billing' };
  const cases: Array<[string, () => unknown]> = [
    ['`get` (latest, cached and fresh)', () => prompts.get(promptIds[Math.floor(Math.random() * PROMPTS)] ?? 'p-00')],
    ['`get` (pinned version, cached)', () => prompts.get('p-00', { version: '1.0.0' })],
    ['`compile` (3 variables, about 250 characters)', () => welcome.compile(values)],
  ];
  const rows: Array<[string, string, string]> = [];
  for (const [name, call] of cases) {
    for (let i = 0; i < WARMUP_GETS; i += 1) await call();
    const timings = new Float64Array(TIMED_GETS);
    for (let i = 0; i < TIMED_GETS; i += 1) {
      const started = performance.now();
      await call();
      timings[i] = performance.now() - started;
    }
    timings.sort();
    const at = (quantile: number) => ((timings[Math.floor(quantile * (TIMED_GETS - 1))] ?? Number.NaN) * 1000).toFixed(1);
    rows.push([name, at(0.5), at(0.99)]);
  }
  return rows;
}

/**
 * 10,000 gets spread evenly over 5 simulated minutes, round-robin over 20 prompts, with the default TTL.
 * Each background revalidation is let finish before the clock moves on, as a request of a few
 * milliseconds would in 30 ms of real time.
 */
async function simulateMinutes(baseUrl: string, apiKey: string, preload: boolean): Promise<void> {
  const clock = { now: Date.parse('2026-11-22T12:00:00Z') };
  const prompts = createPromptClient({ baseUrl, apiKey, now: () => clock.now });
  if (preload) await prompts.preload();
  const step = SIMULATED_MS / GETS;
  for (let i = 0; i < GETS; i += 1) {
    await prompts.get(promptIds[i % PROMPTS] ?? 'p-00');
    await prompts.idle();
    clock.now += step;
  }
}
