/**
 * `npm run bench`: the service on the local stack against a plain baseline, side by side, on one
 * embedded store; store operations counted per request; bundle sizes and load times. Prints a
 * Markdown table and writes it to bench/RESULTS.md.
 */
import { writeFileSync } from 'node:fs';
import { cpus, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { AdminStore } from '../admin/store/admin-store';
import type { AccountImport } from '../admin/store/import-plan';
import { createDocumentClient } from '../lambda/data/dynamo-client';
import { ensureTable } from '../admin/store/ensure-table';
import { keys } from '../lambda/data/table-schema';
import { generateApiKey, hashApiKey, keyIdFromHash } from '../lambda/domain/api-key';
import { loadLocalConfig } from '../local/local-config';
import { startLocalStack } from '../local/local-stack';
import { startBaselineServer } from './baseline-server';
import { type BundleReport, measureBundles, median } from './bundles';
import { measureClient } from './client';
import { startCountingStore } from './counting-store';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const TABLE = 'prompts-bench';
const DURATION_S = Number(process.env.BENCH_DURATION ?? 2);
const WARMUP_S = 1;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const LARGE_ACCOUNT_PROMPTS = 1_500;
/** DynamoDB answers a single-item call in a few milliseconds from inside its region. */
const STORE_LATENCY_MS = Number(process.env.BENCH_STORE_LATENCY_MS ?? 3);

interface Scenario {
  readonly name: string;
  readonly url: string;
  readonly apiKey: string;
}

interface Sample {
  readonly requests: number;
  readonly failures: number;
  readonly storeOps: number;
  readonly reqPerSec: number;
  readonly p50: number;
  readonly p99: number;
}

/** `labelled`: each prompt's `production` label points at 1.1.0, below latest, as after a canary. */
function account(accountId: string, prompts: number, apiKey: string, labelled = false): AccountImport {
  const keyHash = hashApiKey(apiKey);
  const text = (what: string, id: number, version: string) =>
    `${what} for prompt ${id}, version ${version}: answer the customer \${name} about \${topic}. `.repeat(6);
  return {
    accountId,
    name: accountId,
    plan: 'pro',
    keys: [{ keyHash, keyId: keyIdFromHash(keyHash), displayPrefix: apiKey.slice(0, 8), monthlyLimit: 1_000_000_000 }],
    prompts: Array.from({ length: prompts }, (_, id) => ({
      promptId: `p-${String(id).padStart(4, '0')}`,
      promptName: `Prompt ${id}`,
      versions: ['1.0.0', '1.1.0', '1.2.0'].map((version) => ({
        version,
        published: true,
        systemMessage: text('System message', id, version),
        userMessage: text('User message', id, version),
        config: { model: 'gpt-4o-mini', temperature: 0.3, schema: [], inputData: null, inputDataRootName: null },
      })),
      ...(labelled ? { labels: { production: '1.1.0' } } : {}),
    })),
  };
}

async function run(scenario: Scenario, seconds: number, countOps: () => Promise<number>): Promise<Sample> {
  const before = await countOps();
  const result = await autocannon({
    url: scenario.url,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${scenario.apiKey}` },
  });
  const requests = result.requests.total;
  return {
    requests,
    failures: result.non2xx + result.errors + result.timeouts,
    storeOps: (await countOps()) - before,
    reqPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
  };
}

function table(rows: Array<[string, ...string[]]>, header: string[]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

interface PassResult {
  readonly latencyMs: number;
  readonly rows: Array<[string, ...string[]]>;
  readonly seedSeconds: number;
}

/** One store (with the given added latency), the service and the baseline on it, every scenario interleaved. */
async function measurePass(latencyMs: number): Promise<PassResult> {
  const store = await startCountingStore(latencyMs);
  const client = createDocumentClient({ region: 'us-east-1', endpoint: store.endpoint });
  await ensureTable(client, TABLE);

  const smallKey = generateApiKey();
  const largeKey = generateApiKey();
  const seeded = performance.now();
  await new AdminStore(client, TABLE).importAccounts([
    account('bench-small', 10, smallKey, true),
    account('bench-large', LARGE_ACCOUNT_PROMPTS, largeKey),
  ]);
  const seedSeconds = (performance.now() - seeded) / 1000;

  const stack = await startLocalStack(
    { ...loadLocalConfig({}), port: 0, storeEndpoint: store.endpoint, seedPath: undefined, tableName: TABLE },
    { onFunctionError: (name, error) => console.error(`${name} failed:`, error) },
  );
  const baseline = await startBaselineServer({
    client,
    tableName: TABLE,
    itemKey: keys.promptVersion('bench-small', 'p-0001', '1.1.0'),
  });

  const scenarios: Scenario[] = [
    { name: 'baseline (hash, counter update, item read)', url: `${baseline.url}/`, apiKey: smallKey },
    { name: 'GET /prompts/{id}?version= (pinned)', url: `${stack.apiUrl}/prompts/p-0001?version=1.1.0`, apiKey: smallKey },
    { name: 'GET /prompts/{id} (latest)', url: `${stack.apiUrl}/prompts/p-0001`, apiKey: smallKey },
    { name: 'GET /prompts/{id}?label= (label)', url: `${stack.apiUrl}/prompts/p-0001?label=production`, apiKey: smallKey },
    { name: 'GET /prompts (10 prompts)', url: `${stack.apiUrl}/prompts`, apiKey: smallKey },
    { name: 'GET /prompts?label= (10 prompts)', url: `${stack.apiUrl}/prompts?label=production`, apiKey: smallKey },
    {
      name: 'GET /prompts?include_versions=true (10 prompts)',
      url: `${stack.apiUrl}/prompts?include_versions=true`,
      apiKey: smallKey,
    },
    {
      name: `GET /prompts (${LARGE_ACCOUNT_PROMPTS.toLocaleString('en')} prompts)`,
      url: `${stack.apiUrl}/prompts`,
      apiKey: largeKey,
    },
  ];

  const samples = new Map<string, Sample[]>(scenarios.map((scenario) => [scenario.name, []]));
  const ratios = new Map<string, number[]>(scenarios.map((scenario) => [scenario.name, []]));
  // Warm every path once (caches, connections), as a warm Lambda container would be.
  for (const scenario of scenarios) await run(scenario, WARMUP_S, store.requests);
  for (let round = 1; round <= ROUNDS; round += 1) {
    let baselineRate = 0;
    for (const scenario of scenarios) {
      const sample = await run(scenario, DURATION_S, store.requests);
      samples.get(scenario.name)?.push(sample);
      if (scenario === scenarios[0]) baselineRate = sample.reqPerSec;
      ratios.get(scenario.name)?.push(sample.reqPerSec / baselineRate);
      process.stderr.write(`store +${latencyMs} ms, round ${round}: ${scenario.name}: ${sample.reqPerSec.toFixed(0)} req/s\n`);
    }
  }
  await stack.stop();
  await new Promise((resolve) => baseline.server.close(resolve));
  client.destroy();
  await store.close();

  const rows = scenarios.map((scenario): [string, ...string[]] => {
    const list = samples.get(scenario.name) ?? [];
    const requests = list.reduce((sum, sample) => sum + sample.requests, 0);
    const ops = list.reduce((sum, sample) => sum + sample.storeOps, 0);
    const failures = list.reduce((sum, sample) => sum + sample.failures, 0);
    return [
      scenario.name,
      (ops / requests).toFixed(2),
      median(list.map((sample) => sample.reqPerSec)).toFixed(0),
      median(list.map((sample) => sample.p50)).toFixed(1),
      median(list.map((sample) => sample.p99)).toFixed(1),
      `${median(ratios.get(scenario.name) ?? []).toFixed(2)}x`,
      String(failures),
    ];
  });
  return { latencyMs, rows, seedSeconds };
}

/**
 * The functions write their log line and metrics for every request, as deployed (that work is part of
 * what is measured); the lines themselves are dropped here rather than printed by the thousand.
 */
function dropServiceLogLines(): void {
  const write = process.stdout.write.bind(process.stdout) as (...args: unknown[]) => boolean;
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) =>
    typeof chunk === 'string' && /^\{"(?:level|_aws)":/.test(chunk) ? true : write(chunk, ...rest)) as typeof process.stdout.write;
}

async function main(): Promise<void> {
  const started = performance.now();
  dropServiceLogLines();
  // Bundles first, while nothing else runs on the machine.
  const bundles = await measureBundles();
  // The client's microsecond figures next, also on a quiet machine.
  const client = await measureClient();
  const passes: PassResult[] = [];
  for (const latencyMs of [0, STORE_LATENCY_MS]) passes.push(await measurePass(latencyMs));

  const header = ['scenario', 'store ops/request', 'req/s (median)', 'p50 ms', 'p99 ms', 'ratio to baseline', 'non-2xx'];
  const bundleRows = bundles.map((bundle: BundleReport): [string, ...string[]] => [
    bundle.functionName,
    `${(bundle.bytes / 1024).toFixed(0)} KiB`,
    `${(bundle.gzipBytes / 1024).toFixed(0)} KiB`,
    bundle.loadMs.toFixed(1),
    bundle.loadRunsMs.map((ms) => ms.toFixed(1)).join(', '),
  ]);
  const cpu = cpus();
  const report = [
    `Command: \`npm run bench\` (${ROUNDS} interleaved rounds of ${DURATION_S} s per scenario, ${CONNECTIONS} connections, autocannon; dynalite in its own process)`,
    `Machine: ${cpu.length} x ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ${platform()} ${release()}, Node ${process.version}; ${new Date().toISOString().slice(0, 10)}`,
    ...passes.flatMap((pass) => [
      '',
      pass.latencyMs === 0
        ? 'Store as it is (loopback, no added latency: the store\'s CPU per operation dominates):'
        : `Store with ${pass.latencyMs} ms added to every round trip (standing for the network between Lambda and DynamoDB):`,
      '',
      table(pass.rows, header),
    ]),
    '',
    'Bundles (what `cdk synth` builds; load = `import()` of the bundle in a fresh Node process, module scope included):',
    '',
    table(bundleRows, ['function', 'size', 'gzip', 'load ms (median of 5)', 'runs']),
    '',
    'Client (`client/`, in the bench process; each call timed on its own, 200,000 calls after 20,000 to warm up):',
    '',
    table(client.latency, ['client call', 'p50 µs', 'p99 µs']),
    '',
    'API requests (each one a quota unit) for 10,000 `get`s of 20 prompts over 5 simulated minutes (an injected clock), round-robin, default TTL (60 s), against the local stack:',
    '',
    table(client.requests, ['how the app fetches', 'API requests', 'of which']),
    '',
    `Seeding ${(10 + LARGE_ACCOUNT_PROMPTS) * 3} versions: ${passes[0]?.seedSeconds.toFixed(1)} s. Whole run: ${((performance.now() - started) / 1000).toFixed(0)} s.`,
  ].join('\n');
  writeFileSync(join(__dirname, 'RESULTS.md'), `# Benchmark results\n\n${report}\n`);
  process.stdout.write(`${report}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
