/**
 * `npm run bench`: the service on the local stack against a plain baseline, side by side, on one
 * embedded store; store operations counted per request; bundle sizes and load times. Prints a
 * Markdown table and writes it to bench/RESULTS.md.
 */
import { writeFileSync } from 'node:fs';
import { cpus, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { AccountImporter } from '../admin/table/account-importer';
import type { AccountImport } from '../admin/table/import-plan';
import { createDocumentClient } from '../lambda/table/client';
import { Table } from '../lambda/table/table';
import { Operations } from '../lambda/operations';
import { type EventCost, measureEventCosts } from './event-costs';
import { measureRuns, runOverheadReport } from './run-overhead';
import { ensureTable } from '../admin/table/ensure-table';
import { keys } from '../lambda/table/schema';
import { generateApiKey, hashApiKey, keyIdFromHash } from '../lambda/domain/api-key';
import { loadLocalConfig } from '../local/local-config';
import { startLocalStack } from '../local/local-stack';
import { startBaselineServer } from './baseline-server';
import { type AfterChange, measureAfterChange } from './after-change';
import { type BundleReport, measureBundles, median } from './bundles';
import { table, units } from './markdown-table';
import { measureClient } from './client';
import { type CountingStore, startCountingStore } from './counting-store';
import { LOG_LINES_BEFORE, LOG_LINES_BEFORE_SOURCE } from './log-lines-before';
import { type PerRequest, type Probe, perRequestMeter } from './per-request';
import { type ServiceLogTally, tallyServiceLogLines } from './service-log-lines';
import { API_MEMORY_MB } from '../lib/api-function';
import { costPerMillion, LAMBDA_PLATFORM_BYTES, LAMBDA_PLATFORM_LINES } from './costs';
import { setLabel } from '../lambda/features/labels/operations';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const TABLE = 'prompts-bench';
const DURATION_S = Number(process.env.BENCH_DURATION ?? 2);
const WARMUP_S = 1;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
/** Paired rounds of the runs' measurement (a run through the function, the same request straight to the model). */
const RUN_ROUNDS = Number(process.env.BENCH_RUN_ROUNDS ?? 40);
const LARGE_ACCOUNT_PROMPTS = 1_500;
/** A read at a label rolling out, each request for another subject: its side decided and counted (docs/rollouts.md). */
const ROLLING_OUT = 'GET /prompts/{id}?label= (rolling out, a new subject each)';

/** DynamoDB answers a single-item call in a few milliseconds from inside its region. */
const STORE_LATENCY_MS = Number(process.env.BENCH_STORE_LATENCY_MS ?? 3);

interface Scenario {
  readonly name: string;
  readonly url: string;
  readonly apiKey: string;
  /** Each request names a new subject (`X-Prompt-Subject`), as reads at a rolling-out label do. */
  readonly subjects?: boolean;
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

/** Sets a new `X-Prompt-Subject` on every request autocannon sends: users arriving one after another. */
function withNextSubject(): (request: autocannon.Request) => autocannon.Request {
  let subject = 0;
  return (request) => {
    subject += 1;
    return { ...request, headers: { ...request.headers, 'x-prompt-subject': `user-${subject}` } };
  };
}

async function run(scenario: Scenario, seconds: number, store: CountingStore): Promise<Sample> {
  const countOps = async () => (await store.usage()).requests;
  const before = await countOps();
  const result = await autocannon({
    url: scenario.url,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${scenario.apiKey}` },
    ...(scenario.subjects ? { requests: [{ setupRequest: withNextSubject() }] } : {}),
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

interface PassResult {
  readonly latencyMs: number;
  readonly rows: Array<[string, ...string[]]>;
  readonly seedSeconds: number;
  /** Each kind of request on its own, one at a time: its log lines, store units and billed time. */
  readonly perRequest: readonly PerRequest[];
  /** Each route warm, and right after a change to its account. */
  readonly afterChange: readonly AfterChange[];
  /** What announcing itself adds to each kind of change (measured in the probing pass). */
  readonly eventCosts: readonly EventCost[];
}

/** The prompt sizes the cost table is for. */
const SIZED_PROMPTS = { 'prompt-2kb': 2 * 1024, 'prompt-300kb': 300 * 1024 } as const;

/** A version whose content (as `prompts import` weighs it: the JSON of its messages and config) has exactly `bytes`. */
function contentOfBytes(bytes: number) {
  const config = { model: 'gpt-4o-mini', temperature: 0.3, schema: [], inputData: null, inputDataRootName: null };
  const systemMessage = 'You answer customer questions about ${product} in a friendly, precise tone.';
  const empty = Buffer.byteLength(JSON.stringify({ systemMessage, userMessage: '', config }));
  const filler = 'Answer the customer ${name} about ${topic}, citing the relevant policy section. ';
  const userMessage = filler.repeat(Math.ceil(bytes / filler.length)).slice(0, bytes - empty);
  return { systemMessage, userMessage, config };
}

function sizedAccount(accountId: string, apiKey: string, overQuotaKey: string): AccountImport {
  const key = (plaintext: string, monthlyLimit: number) => {
    const keyHash = hashApiKey(plaintext);
    return { keyHash, keyId: keyIdFromHash(keyHash), displayPrefix: plaintext.slice(0, 8), monthlyLimit };
  };
  return {
    accountId,
    name: accountId,
    plan: 'pro',
    keys: [key(apiKey, 1_000_000_000), key(overQuotaKey, 0)],
    prompts: Object.entries(SIZED_PROMPTS).map(([promptId, bytes]) => ({
      promptId,
      promptName: promptId,
      versions: ['1.0.0', '1.1.0'].map((version) => ({ version, published: true, ...contentOfBytes(bytes) })),
      // Below latest, as after a canary: a read at the label is priced beside a read of latest.
      labels: { production: '1.0.0' },
    })),
  };
}

/**
 * One store (with the given added latency), the service and the baseline on it, every scenario interleaved;
 * then, with `probe`, each kind of request on its own.
 */
async function measurePass(latencyMs: number, logLines: () => ServiceLogTally, probe: boolean): Promise<PassResult> {
  const store = await startCountingStore(latencyMs);
  const client = createDocumentClient({ region: 'us-east-1', endpoint: store.endpoint });
  await ensureTable(client, TABLE);

  const smallKey = generateApiKey();
  const largeKey = generateApiKey();
  const sizedKey = generateApiKey();
  const overQuotaKey = generateApiKey();
  const seeded = performance.now();
  await new AccountImporter(client, TABLE).importAccounts([
    account('bench-small', 10, smallKey, true),
    account('bench-large', LARGE_ACCOUNT_PROMPTS, largeKey),
    sizedAccount('bench-sizes', sizedKey, overQuotaKey),
  ]);
  const seedSeconds = (performance.now() - seeded) / 1000;
  // One label rolling out (docs/rollouts.md): a quarter of subjects get 1.0.0, the rest the label's 1.1.0.
  await new Operations({ table: new Table(client, TABLE, () => new Date()), actor: { type: 'cli', operator: 'bench' } }).rollouts.start(
    'bench-small',
    'p-0002',
    'production',
    { to: '1.0.0', percent: 25 },
  );

  const meter = perRequestMeter(store, logLines);
  const stack = await startLocalStack(
    { ...loadLocalConfig({}), port: 0, storeEndpoint: store.endpoint, seedPath: undefined, tableName: TABLE },
    { onFunctionError: (name, error) => console.error(`${name} failed:`, error), log: meter.observe },
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
    { name: ROLLING_OUT, url: `${stack.apiUrl}/prompts/p-0002?label=production`, apiKey: smallKey, subjects: true },
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
  for (const scenario of scenarios) await run(scenario, WARMUP_S, store);
  for (let round = 1; round <= ROUNDS; round += 1) {
    let baselineRate = 0;
    for (const scenario of scenarios) {
      const sample = await run(scenario, DURATION_S, store);
      samples.get(scenario.name)?.push(sample);
      if (scenario === scenarios[0]) baselineRate = sample.reqPerSec;
      ratios.get(scenario.name)?.push(sample.reqPerSec / baselineRate);
      process.stderr.write(`store +${latencyMs} ms, round ${round}: ${scenario.name}: ${sample.reqPerSec.toFixed(0)} req/s\n`);
    }
  }
  const perRequest: PerRequest[] = [];
  let afterChange: AfterChange[] = [];
  let eventCosts: EventCost[] = [];
  if (probe) {
    for (const each of probes(stack.apiUrl, { sizedKey, overQuotaKey, largeKey })) perRequest.push(await meter.measure(each));
    // A bench's own write, straight to the table module: nothing to audit.
    const labelTable = new Table(client, TABLE, () => new Date());
    let moves = 0;
    // A label moved to and fro on one prompt of the account: a change that raises its revision, as any does.
    const change = async (accountId: string) => {
      moves += 1;
      await setLabel(labelTable, accountId, accountId === 'bench-large' ? 'p-0000' : 'p-0009', 'canary', moves % 2 === 0 ? '1.0.0' : '1.1.0');
    };
    const small = (name: string, path: string) => ({ name, url: `${stack.apiUrl}${path}`, apiKey: smallKey, accountId: 'bench-small' });
    afterChange = await measureAfterChange(
      store,
      [
        small('GET /prompts/{id}?version= (pinned)', '/prompts/p-0001?version=1.1.0'),
        small('GET /prompts/{id} (latest)', '/prompts/p-0001'),
        small('GET /prompts/{id}?label= (label)', '/prompts/p-0001?label=production'),
        small('GET /prompts (10 prompts)', '/prompts'),
        small('GET /prompts?include_versions=true (10 prompts)', '/prompts?include_versions=true'),
        small('GET /prompts?label= (10 prompts)', '/prompts?label=production'),
        small('GET /prompts?label=&include_versions=true (10 prompts)', '/prompts?label=production&include_versions=true'),
        { ...small(ROLLING_OUT, '/prompts/p-0002?label=production'), subjects: true },
        {
          name: `GET /prompts (${LARGE_ACCOUNT_PROMPTS.toLocaleString('en')} prompts)`,
          url: `${stack.apiUrl}/prompts`,
          apiKey: largeKey,
          accountId: 'bench-large',
        },
      ],
      change,
    );
    eventCosts = await measureEventCosts(client, TABLE, 'bench-small');
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
  return { latencyMs, rows, seedSeconds, perRequest, afterChange, eventCosts };
}

/** The requests the cost table prices, and the other answers every function gives, each on its own. */
const COST_PROBES = [
  'GET /prompts/{id}?version= (pinned, 2 KB)',
  'GET /prompts/{id} (latest, 2 KB)',
  'GET /prompts/{id}?label= (label, 2 KB)',
  'GET /prompts/{id}?version= (pinned, 300 KB)',
  'GET /prompts/{id} (latest, 300 KB)',
  'GET /prompts/{id}?label= (label, 300 KB)',
  `GET /prompts (${LARGE_ACCOUNT_PROMPTS.toLocaleString('en')} prompts)`,
] as const;

function probes(apiUrl: string, keys: { sizedKey: string; overQuotaKey: string; largeKey: string }): Probe[] {
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
  const sized = bearer(keys.sizedKey);
  const [pinned2, latest2, label2, pinned300, latest300, label300, list] = COST_PROBES;
  return [
    { name: pinned2, url: `${apiUrl}/prompts/prompt-2kb?version=1.0.0`, headers: sized, status: 200, count: 100 },
    { name: latest2, url: `${apiUrl}/prompts/prompt-2kb`, headers: sized, status: 200, count: 100 },
    { name: label2, url: `${apiUrl}/prompts/prompt-2kb?label=production`, headers: sized, status: 200, count: 100 },
    { name: pinned300, url: `${apiUrl}/prompts/prompt-300kb?version=1.0.0`, headers: sized, status: 200, count: 50 },
    { name: latest300, url: `${apiUrl}/prompts/prompt-300kb`, headers: sized, status: 200, count: 50 },
    { name: label300, url: `${apiUrl}/prompts/prompt-300kb?label=production`, headers: sized, status: 200, count: 50 },
    { name: list, url: `${apiUrl}/prompts`, headers: bearer(keys.largeKey), status: 200, count: 10 },
    { name: 'GET /prompts/{id} of no such prompt (404)', url: `${apiUrl}/prompts/missing`, headers: sized, status: 404, count: 100 },
    { name: 'GET /prompts/{id} without a key (401)', url: `${apiUrl}/prompts/prompt-2kb`, status: 401, count: 100 },
    {
      name: 'GET /prompts/{id} over the quota (429)',
      url: `${apiUrl}/prompts/prompt-2kb`,
      headers: bearer(keys.overQuotaKey),
      status: 429,
      count: 100,
    },
    {
      name: 'OPTIONS /prompts/{id} (preflight)',
      url: `${apiUrl}/prompts/prompt-2kb`,
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
      status: 204,
      count: 100,
    },
  ];
}

const usd = (value: number) => `$${value.toFixed(2)}`;
const whole = (value: number) => Math.round(value).toLocaleString('en');

function logRows(measured: readonly PerRequest[]): Array<[string, ...string[]]> {
  return measured.map((each) => {
    const before = LOG_LINES_BEFORE[each.name];
    return [
      each.name,
      String(each.status),
      `${before ? units(before.lines) : '?'} → ${units(each.logLines)}`,
      `${before ? whole(before.bytes) : '?'} → ${whole(each.logBytes)}`,
      `${whole(LAMBDA_PLATFORM_BYTES)} → 0`,
      `${before ? whole(before.bytes + LAMBDA_PLATFORM_BYTES) : '?'} → ${whole(each.logBytes)}`,
    ];
  });
}

function costRows(measured: readonly PerRequest[]): Array<[string, ...string[]]> {
  return measured
    .filter((each) => (COST_PROBES as readonly string[]).includes(each.name))
    .map((each) => {
      const inputs = { billedMs: each.billedMs, memoryMb: API_MEMORY_MB, readUnits: each.readUnits, writeUnits: each.writeUnits };
      const after = costPerMillion({ ...inputs, logBytes: each.logBytes });
      const beforeLines = LOG_LINES_BEFORE[each.name];
      const before = beforeLines ? costPerMillion({ ...inputs, logBytes: beforeLines.bytes + LAMBDA_PLATFORM_BYTES }) : undefined;
      return [
        each.name,
        each.billedMs.toFixed(1),
        units(each.storeOps),
        units(each.readUnits),
        units(each.writeUnits),
        usd(after.gateway),
        usd(after.lambda),
        usd(after.dynamodb),
        `${before ? usd(before.logs) : '?'} → ${usd(after.logs)}`,
        `${before ? usd(before.total) : '?'} → ${usd(after.total)}`,
      ];
    });
}

async function main(): Promise<void> {
  const started = performance.now();
  const logLines = tallyServiceLogLines();
  // Bundles first, while nothing else runs on the machine.
  const bundles = await measureBundles();
  // The client's microsecond figures next, also on a quiet machine.
  const client = await measureClient();
  const passes: PassResult[] = [];
  for (const latencyMs of [0, STORE_LATENCY_MS]) passes.push(await measurePass(latencyMs, logLines, latencyMs === STORE_LATENCY_MS));
  const perRequest = passes.flatMap((pass) => pass.perRequest);
  const runs = await measureRuns(STORE_LATENCY_MS, RUN_ROUNDS);

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
        ? "Store as it is (loopback, no added latency: the store's CPU per operation dominates):"
        : `Store with ${pass.latencyMs} ms added to every round trip (standing for the network between Lambda and DynamoDB):`,
      '',
      table(pass.rows, header),
    ]),
    '',
    `Store operations per request of each route sent on its own, one at a time (store +${STORE_LATENCY_MS} ms): warm, and the first request right after a change to the account (a label moved on another prompt, which raises the account's prompt revision as every publish, label move, delete and restore does); 5 requests each:`,
    '',
    table(
      passes.flatMap((pass) => pass.afterChange).map((each): [string, ...string[]] => [each.name, units(each.warm), units(each.afterChange)]),
      ['request', 'warm', 'right after a change'],
    ),
    '',
    `Log lines per request, before → after (before: ${LOG_LINES_BEFORE_SOURCE}; after: measured now). Each kind of request sent one at a time to the local stack (store +${STORE_LATENCY_MS} ms), its functions' stdout counted and weighed; Lambda's own START, END and REPORT lines (${LAMBDA_PLATFORM_LINES.length} lines in its text log format) are no longer written (\`systemLogLevel: WARN\`):`,
    '',
    table(logRows(perRequest), ['request', 'status', "function's lines", "function's bytes", "Lambda's lines (bytes)", 'bytes to CloudWatch Logs']),
    '',
    `Cost per million requests, before → after where they differ (us-east-1 list prices, bench/costs.ts; Lambda arm64 at ${API_MEMORY_MB} MB billed for the function's own time per request as measured here (the median, rounded up to 1 ms); DynamoDB on-demand units as dynalite weighs the items each request reads and writes; logs from the table above):`,
    '',
    table(costRows(perRequest), [
      'request',
      'Lambda ms billed',
      'store ops',
      'read units',
      'write units',
      'API Gateway',
      'Lambda',
      'DynamoDB',
      'CloudWatch Logs',
      'total',
    ]),
    '',
    'The write cost each change gains from its events (docs/events.md): real changes made through the operations every door uses, each event item it wrote in its own transaction weighed as DynamoDB weighs items (a transactional write: 2 write units per KB of each item, rounded up):',
    '',
    table(
      passes
        .flatMap((pass) => pass.eventCosts)
        .map((cost): [string, ...string[]] => [
          cost.change,
          cost.events.join(', ') || 'none',
          cost.bytes.map((bytes) => `${bytes} B`).join(', ') || '-',
          `+${cost.writeUnits}`,
        ]),
      ['change', 'events', 'event items', 'write units added'],
    ),
    '',
    ...runOverheadReport(runs, STORE_LATENCY_MS),
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
    `Seeding ${(10 + LARGE_ACCOUNT_PROMPTS) * 3 + Object.keys(SIZED_PROMPTS).length * 2} versions: ${passes[0]?.seedSeconds.toFixed(1)} s. Whole run: ${((performance.now() - started) / 1000).toFixed(0)} s.`,
  ].join('\n');
  writeFileSync(join(__dirname, 'RESULTS.md'), `# Benchmark results\n\n${report}\n`);
  process.stdout.write(`${report}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
