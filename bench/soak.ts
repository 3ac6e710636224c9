/**
 * `npm run soak`: does `npm start` hold its memory under steady traffic? Each route, then a mix, runs for
 * SOAK_REQUESTS answers (or SOAK_SECONDS) against a fresh `npm start` (a child process, its own DATA_DIR)
 * with SOAK_CONNECTIONS keep-alive clients. The RSS of the stack's process is read every SOAK_SAMPLE_EVERY
 * answers; the slope of RSS against requests over the second half of each run says whether it still grows
 * once warm.
 * The management API's reads run on the dashboard's origin as the demo user, signed in through the local user pool.
 * The store routes (`SOAK_ROUTE=store`) send Query calls straight at the embedded store, alone in a process of
 * its own (bench/embedded-store-process.ts), SOAK_STORE_QUERIES of them (or SOAK_SECONDS), and read its RSS and
 * JS heap (and what of RSS is malloc's, on Linux) after full collections once warm (SOAK_STORE_WARM_UP
 * queries) and at the end.
 * Prints Markdown tables and writes each to its section of bench/SOAK-RESULTS.md.
 */
import { type ChildProcess, execFileSync, fork, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, platform, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import autocannon from 'autocannon';
import type { StoreMemory } from './embedded-store-process';
import { table } from './markdown-table';
import { importSeed } from '../admin/import-seed';
import { AccountImporter } from '../admin/table/account-importer';
import { partitionQuery } from '../lambda/table/calls';
import { createDocumentClient } from '../lambda/table/client';
import { createTableInput } from '../lambda/table/schema';
import { signIn } from '../test/support/oauth-sign-in';

// Node 20 runs this fine; the SDK's notice about its own future Node support is not for this bench's output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** Each run stops at SOAK_REQUESTS answers, or at SOAK_SECONDS if that comes first (a slow machine). */
const REQUESTS = Number(process.env.SOAK_REQUESTS ?? 20_000);
const SECONDS = Number(process.env.SOAK_SECONDS ?? 180);
/** Only the routes whose name contains this text (`SOAK_ROUTE=include_versions`); all by default. */
const ONLY = process.env.SOAK_ROUTE ?? '';
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS ?? 16);
const SAMPLE_EVERY = Number(process.env.SOAK_SAMPLE_EVERY ?? 250);
/**
 * Below this, RSS is taken as flat. V8 resizing its heap and the allocator's arenas move RSS in steps of
 * tens of MB with no memory kept per request: over 20,000 requests, routes that make no Query measure up to
 * about 4 MB per 1,000 on a loaded 2-core machine. The leak this bench was written for grew 40 to 150 MB
 * per 1,000 list requests.
 */
const FLAT_MB_PER_1000 = 5;

const API_KEY = 'prs_soak_benchmark_key_not_secret';
const PROMPTS = 10;

interface Route {
  readonly name: string;
  /** The read API with the key (default), or the management API on the dashboard's origin as the signed-in demo user. */
  readonly origin?: 'api' | 'dashboard';
  /** The status every answer should have; 0 for the mix, where 200 and 404 both are. */
  readonly status: number;
  /** The path of the next request. */
  readonly next: () => string;
}

interface Sample {
  readonly requests: number;
  readonly rssMb: number;
}

interface SoakResult {
  readonly route: Route;
  readonly requests: number;
  /** Answers with another status than the route's, counted by status. */
  readonly unexpected: ReadonlyMap<number, number>;
  readonly reqPerSec: number;
  readonly samples: readonly Sample[];
}

let missing = 0;
function nextMissingId(): string {
  missing += 1;
  return `/prompts/missing-${missing}`;
}

const single: Route[] = [
  { name: '`GET /prompts/{id}?version=` (pinned)', status: 200, next: () => '/prompts/p-03?version=1.1.0' },
  { name: '`GET /prompts/{id}` (latest)', status: 200, next: () => '/prompts/p-03' },
  { name: '`GET /prompts/{id}`, 404 on a new id each time', status: 404, next: nextMissingId },
  { name: `\`GET /prompts\` (${PROMPTS} prompts)`, status: 200, next: () => '/prompts' },
  { name: '`GET /prompts?include_versions=true`', status: 200, next: () => '/prompts?include_versions=true' },
];
/** The management API's reads, each a Query of the account's partition (its prompts, its audit log) or of the key index. */
const management: Route[] = [
  { name: '`GET /api/accounts/{a}/prompts` (management)', origin: 'dashboard', status: 200, next: () => '/api/accounts/soak/prompts' },
  { name: '`GET /api/accounts/{a}/audit` (management)', origin: 'dashboard', status: 200, next: () => '/api/accounts/soak/audit' },
  { name: '`GET /api/accounts/{a}/keys` (management)', origin: 'dashboard', status: 200, next: () => '/api/accounts/soak/keys' },
];
const ROUTES: Route[] = [...single, mixOf(single), ...management].filter((route) => route.name.includes(ONLY));

/** Query calls per store route, and how many of them warm the store up before its first measure. */
const STORE_QUERIES = Number(process.env.SOAK_STORE_QUERIES ?? 40_000);
const STORE_WARM_UP = Number(process.env.SOAK_STORE_WARM_UP ?? 8_000);
/**
 * The store's verdict. Its RSS, even collected, moves by 10 to 20 MB either way between two readings with
 * nothing kept (V8 keeps or returns heap pages), so the verdict reads malloc's arenas where it can (Linux):
 * what native code holds, collected, apart from V8's heap. Once warm they grow by under 0.05 MB per 1,000
 * queries; issue 36's growth was 0.3 to 0.5 MB per 1,000 there. Elsewhere, the slope of RSS, which reads up
 * to about 0.2 MB per 1,000 over 32,000 queries with nothing kept.
 */
const STORE_FLAT_ARENAS_MB_PER_1000 = 0.1;
const STORE_FLAT_MB_PER_1000 = 0.25;
const STORE_TABLE = 'prompts-soak';

interface StoreRoute {
  readonly name: string;
  readonly query: () => QueryCommandInput;
}

/** The Query shapes the services make of an account's partition: a whole list, and a page newest first. */
const STORE_ROUTES: StoreRoute[] = [
  {
    name: `\`Query\` straight at the embedded store: the account's ${PROMPTS * 3} versions`,
    query: () => partitionQuery(STORE_TABLE, 'soak', 'VERSION#'),
  },
  {
    name: '`Query` straight at the embedded store: newest 5 versions (`Limit`, backwards)',
    query: () => partitionQuery(STORE_TABLE, 'soak', 'VERSION#', { Limit: 5, ScanIndexForward: false }),
  },
].filter((route) => route.name.includes(ONLY));

/** Every route in turn, request by request; a 404 counts as expected on the 404 route only. */
function mixOf(routes: readonly Route[]): Route {
  let turn = 0;
  return {
    name: 'mix of the five, in turn',
    status: 0,
    next: () => {
      const route = routes[turn % routes.length] as Route;
      turn += 1;
      return route.next();
    },
  };
}

function seed(): object {
  const text = (what: string, id: number, version: string) =>
    `${what} for prompt ${id}, version ${version}: answer the customer \${name} about \${topic}. `.repeat(6);
  return {
    accounts: [
      {
        accountId: 'soak',
        name: 'Soak benchmark',
        plan: 'pro',
        keys: [{ apiKey: API_KEY, monthlyLimit: 1_000_000_000 }],
        prompts: Array.from({ length: PROMPTS }, (_, id) => ({
          promptId: `p-${String(id).padStart(2, '0')}`,
          promptName: `Prompt ${id}`,
          versions: ['1.0.0', '1.1.0', '1.2.0'].map((version) => ({
            version,
            published: true,
            systemMessage: text('System message', id, version),
            userMessage: text('User message', id, version),
            config: { model: 'gpt-4o-mini', temperature: 0.3, schema: [], inputData: null, inputDataRootName: null },
          })),
        })),
      },
    ],
  };
}

interface Stack {
  readonly apiUrl: string;
  readonly dashboardUrl: string;
  /** The demo user's ID token, signed in through the local user pool as the dashboard does. */
  readonly idToken: string;
  /** The process that serves: node, started by npm in place of its shell (`exec`). */
  readonly pid: number;
  stop(): Promise<void>;
}

/** `npm start` as a developer runs it, on its own DATA_DIR; the request lines it prints are read and dropped. */
async function startStack(folder: string): Promise<Stack> {
  const npmCli = process.env.npm_execpath;
  const [command, args] = npmCli?.endsWith('.js') ? [process.execPath, [npmCli]] : ['npm', []];
  const dataDir = join(folder, 'data');
  const child: ChildProcess = spawn(command, [...args, 'start'], {
    env: {
      ...process.env,
      PORT: '0',
      PLAYGROUND_PORT: '0',
      DASHBOARD_PORT: '0',
      IDENTITY_PORT: '0',
      MODEL_PORT: '0',
      DYNAMODB_PORT: '0',
      DATA_DIR: dataDir,
      SEED_FILE: join(folder, 'seed.json'),
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  // Its 5xx request lines go to stderr; the table counts them, so only other lines are shown.
  createInterface({ input: child.stderr as Readable }).on('line', (line) => {
    if (!line.startsWith('{')) process.stderr.write(`${line}\n`);
  });
  let banner = '';
  const apiUrl = await new Promise<string>((resolve, reject) => {
    let ready = false;
    createInterface({ input: child.stdout as Readable }).on('line', (line) => {
      if (ready || line.startsWith('{')) return;
      banner += `${line}\n`;
      const url = /^\s*API\s+(http:\/\/\S+)/m.exec(banner)?.[1];
      if (url === undefined || !banner.includes('Ctrl+C stops')) return;
      ready = true;
      resolve(url);
    });
    void exited.then(() => reject(new Error(`npm start exited before it was ready:\n${banner}`)));
  });
  // The stack records its own pid beside its data while it runs (local/embedded-store.ts).
  const { pid } = JSON.parse(readFileSync(join(dataDir, 'store-endpoint.json'), 'utf8')) as { pid: number };
  const dashboardUrl = /^\s*Dashboard\s+(http:\/\/\S+)/m.exec(banner)?.[1] ?? '';
  const [, email = '', password = ''] = /Sign in as (\S+) with password (\S+)/.exec(banner) ?? [];
  const identity = (await (await fetch(`${dashboardUrl}/config.json`)).json()) as { authorizeUrl: string; tokenUrl: string; clientId: string };
  const idToken = await signIn({ ...identity, redirectUri: `${dashboardUrl}/` }, email, password);
  return {
    apiUrl,
    dashboardUrl,
    idToken,
    pid,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function rssMb(pid: number): number {
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024;
}

async function soak(route: Route): Promise<SoakResult> {
  const folder = mkdtempSync(join(tmpdir(), 'soak-'));
  writeFileSync(join(folder, 'seed.json'), JSON.stringify(seed()));
  const stack = await startStack(folder);
  try {
    await delay(500);
    const samples: Sample[] = [{ requests: 0, rssMb: rssMb(stack.pid) }];
    let responses = 0;
    const unexpected = new Map<number, number>();
    const options: autocannon.Options = {
      url: route.origin === 'dashboard' ? stack.dashboardUrl : stack.apiUrl,
      connections: CONNECTIONS,
      duration: SECONDS,
      headers: { authorization: `Bearer ${route.origin === 'dashboard' ? stack.idToken : API_KEY}` },
      requests: [{ setupRequest: (request) => ({ ...request, path: route.next() }) }],
    };
    const result = await new Promise<autocannon.Result>((resolve, reject) => {
      const instance = autocannon(options, (error: Error | null, done) => (error ? reject(error) : resolve(done)));
      instance.on('response', (_client, statusCode) => {
        responses += 1;
        if (route.status === 0 ? statusCode !== 200 && statusCode !== 404 : statusCode !== route.status) {
          unexpected.set(statusCode, (unexpected.get(statusCode) ?? 0) + 1);
        }
        if (responses === REQUESTS) instance.stop();
        if (responses % SAMPLE_EVERY !== 0) return;
        const sample = { requests: responses, rssMb: rssMb(stack.pid) };
        samples.push(sample);
        if (responses % 2_000 === 0) {
          process.stderr.write(`  ${route.name}: ${responses} requests, RSS ${sample.rssMb.toFixed(0)} MB\n`);
        }
      });
    });
    samples.push({ requests: responses, rssMb: rssMb(stack.pid) });
    return { route, requests: responses, unexpected, reqPerSec: result.requests.average, samples };
  } finally {
    await stack.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

interface StoreSoakResult {
  readonly route: StoreRoute;
  readonly queries: number;
  readonly failed: number;
  readonly queriesPerSec: number;
  /** RSS read every SAMPLE_EVERY queries, without forcing a collection. */
  readonly samples: readonly Sample[];
  /** After full collections, once warm and at the end. */
  readonly warm: StoreMemory & { readonly queries: number };
  readonly end: StoreMemory & { readonly queries: number };
}

interface StoreProcess {
  readonly endpoint: string;
  memory(gc: boolean): Promise<StoreMemory>;
  stop(): Promise<void>;
}

/** bench/embedded-store-process.ts in a process of its own, on a fresh data folder. */
async function startStoreProcess(dataDir: string): Promise<StoreProcess> {
  const child = fork(join(__dirname, 'embedded-store-process.ts'), [dataDir], {
    execArgv: ['--expose-gc', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const { endpoint } = await new Promise<{ endpoint: string }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { endpoint: string }));
    void exited.then(() => reject(new Error('the store process exited before it listened')));
  });
  // One question at a time: the answers carry no tag.
  let asking = Promise.resolve<unknown>(undefined);
  const memory = (gc: boolean) => {
    const answer = asking.then(
      () =>
        new Promise<StoreMemory>((resolve) => {
          child.once('message', (message) => resolve(message as StoreMemory));
          child.send({ gc });
        }),
    );
    asking = answer.catch(() => undefined);
    return answer;
  };
  return {
    endpoint,
    memory,
    stop: async () => {
      child.disconnect();
      await exited;
    },
  };
}

const mb = (bytes: number): number => bytes / 2 ** 20;

async function soakStore(route: StoreRoute): Promise<StoreSoakResult> {
  const folder = mkdtempSync(join(tmpdir(), 'soak-store-'));
  writeFileSync(join(folder, 'seed.json'), JSON.stringify(seed()));
  const store = await startStoreProcess(join(folder, 'data'));
  const client: DynamoDBDocumentClient = createDocumentClient({ region: 'us-east-1', endpoint: store.endpoint, maxSockets: CONNECTIONS });
  try {
    await client.send(new CreateTableCommand(createTableInput(STORE_TABLE)));
    await importSeed(new AccountImporter(client, STORE_TABLE), join(folder, 'seed.json'));
    const deadline = performance.now() + SECONDS * 1000;
    const samples: Sample[] = [];
    let sent = 0;
    let answered = 0;
    let failed = 0;
    let sampling = Promise.resolve();
    const run = async (until: number) => {
      const worker = async () => {
        while (sent < until && performance.now() < deadline) {
          sent += 1;
          try {
            await client.send(new QueryCommand(route.query()));
          } catch {
            failed += 1;
          }
          answered += 1;
          if (answered % SAMPLE_EVERY === 0) {
            const at = answered;
            sampling = sampling.then(async () => {
              samples.push({ requests: at, rssMb: mb((await store.memory(false)).rss) });
            });
          }
          if (answered % 4_000 === 0) process.stderr.write(`  ${route.name}: ${answered} queries\n`);
        }
      };
      await Promise.all(Array.from({ length: CONNECTIONS }, worker));
      await sampling;
    };
    const started = performance.now();
    await run(Math.min(STORE_WARM_UP, STORE_QUERIES));
    const warm = { ...(await store.memory(true)), queries: answered };
    await run(STORE_QUERIES);
    const seconds = (performance.now() - started) / 1000;
    const end = { ...(await store.memory(true)), queries: answered };
    return { route, queries: answered, failed, queriesPerSec: answered / seconds, samples, warm, end };
  } finally {
    client.destroy();
    await store.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

function storeRow(result: StoreSoakResult): string[] {
  const afterWarmUp = result.samples.filter((s) => s.requests >= result.warm.queries);
  const slope = slopePer1000(afterWarmUp);
  const measured = result.end.queries - result.warm.queries;
  const change = (from: number, to: number) => `${mb(from).toFixed(1)} → ${mb(to).toFixed(1)}`;
  const { mallocArenas: warmArenas } = result.warm;
  const { mallocArenas: endArenas } = result.end;
  const arenasPer1000 = warmArenas === undefined || endArenas === undefined || measured <= 0 ? Number.NaN : (mb(endArenas - warmArenas) / measured) * 1000;
  // Malloc's arenas once measured (collected, and apart from V8's heap), else the slope of RSS.
  const verdict = !Number.isNaN(arenasPer1000)
    ? arenasPer1000 < STORE_FLAT_ARENAS_MB_PER_1000
    : Number.isNaN(slope)
      ? undefined
      : Math.abs(slope) < STORE_FLAT_MB_PER_1000;
  return [
    result.route.name,
    result.queries.toLocaleString('en'),
    result.queriesPerSec.toFixed(0),
    String(result.failed),
    change(result.warm.rss, result.end.rss),
    change(result.warm.heapUsed, result.end.heapUsed),
    warmArenas === undefined || endArenas === undefined ? '–' : change(warmArenas, endArenas),
    Number.isNaN(arenasPer1000) ? '–' : arenasPer1000.toFixed(2),
    series(afterWarmUp),
    Number.isNaN(slope) ? '–' : slope.toFixed(2),
    verdict === undefined ? 'too few queries' : verdict ? 'flat' : 'GROWING',
  ];
}

/** Replaces the section of bench/SOAK-RESULTS.md under `heading` (to the next `## `), or adds it. */
function writeSection(heading: string, body: string): void {
  const file = join(__dirname, 'SOAK-RESULTS.md');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    text = '# Soak results\n';
  }
  const section = `## ${heading}\n\n${body}\n`;
  const start = text.indexOf(`## ${heading}\n`);
  if (start === -1) {
    writeFileSync(file, `${text.trimEnd()}\n\n${section}`);
    return;
  }
  const next = text.indexOf('\n## ', start + 1);
  writeFileSync(file, `${text.slice(0, start)}${section}${next === -1 ? '' : text.slice(next)}`);
}

/** Least-squares slope of RSS against requests, in MB per 1,000 requests. */
function slopePer1000(samples: readonly Sample[]): number {
  const n = samples.length;
  if (n < 2) return Number.NaN;
  const meanX = samples.reduce((sum, s) => sum + s.requests, 0) / n;
  const meanY = samples.reduce((sum, s) => sum + s.rssMb, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const s of samples) {
    covariance += (s.requests - meanX) * (s.rssMb - meanY);
    variance += (s.requests - meanX) ** 2;
  }
  return (covariance / variance) * 1000;
}

/** RSS at about every fifth of the samples' span: enough to see a plateau or a climb. */
function series(samples: readonly Sample[]): string {
  const first = samples[0];
  const last = samples[samples.length - 1];
  if (!first || !last) return '–';
  const picks = [0, 0.2, 0.4, 0.6, 0.8, 1].map((share) => samples.find((s) => s.requests >= first.requests + share * (last.requests - first.requests)) ?? last);
  return picks.map((s) => s.rssMb.toFixed(0)).join(' → ');
}

function row(result: SoakResult): string[] {
  const secondHalf = result.samples.filter((s) => s.requests >= result.requests / 2);
  const slope = slopePer1000(secondHalf);
  return [
    result.route.name,
    result.requests.toLocaleString('en'),
    result.reqPerSec.toFixed(0),
    [...result.unexpected].map(([status, count]) => `${count} × ${status}`).join(', ') || '0',
    series(result.samples),
    Number.isNaN(slope) ? '–' : slope.toFixed(2),
    Number.isNaN(slope) ? 'too few requests' : Math.abs(slope) < FLAT_MB_PER_1000 ? 'flat' : 'GROWING',
  ];
}

function machine(): string {
  const cpu = cpus();
  return `Machine: ${cpu.length} x ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ${platform()} ${release()}, Node ${process.version}; ${new Date().toISOString().slice(0, 10)}`;
}

async function soakRoutes(): Promise<void> {
  const started = performance.now();
  const results: SoakResult[] = [];
  for (const route of ROUTES) {
    process.stderr.write(`soak: ${route.name}, ${REQUESTS} requests or ${SECONDS} s\n`);
    results.push(await soak(route));
  }
  const report = [
    `Command: \`npm run soak\` (each route ${REQUESTS.toLocaleString('en')} requests or ${SECONDS} s, whichever comes first, against a fresh \`npm start\`, ${CONNECTIONS} keep-alive connections, autocannon; RSS of the stack's process every ${SAMPLE_EVERY} requests; ${PROMPTS} prompts of 3 versions)`,
    machine(),
    '',
    table(results.map(row), [
      'route',
      'requests',
      'req/s',
      'unexpected status',
      'RSS MB, start → each fifth of the run',
      'slope, 2nd half (MB per 1,000 requests)',
      `verdict (flat: under ${FLAT_MB_PER_1000})`,
    ]),
    '',
    `Whole run: ${((performance.now() - started) / 1000).toFixed(0)} s.`,
  ].join('\n');
  writeSection('Routes of `npm start`', report);
  process.stdout.write(`${report}\n`);
}

async function soakStoreRoutes(): Promise<void> {
  const started = performance.now();
  const results: StoreSoakResult[] = [];
  for (const route of STORE_ROUTES) {
    process.stderr.write(`soak: ${route.name}, ${STORE_QUERIES} queries or ${SECONDS} s\n`);
    results.push(await soakStore(route));
  }
  const report = [
    `Command: \`SOAK_ROUTE=store npm run soak\` (each route ${STORE_QUERIES.toLocaleString('en')} queries or ${SECONDS} s, whichever comes first, with the AWS SDK's document client and ${CONNECTIONS} connections, straight at the embedded store alone in a process of its own (bench/embedded-store-process.ts, \`--expose-gc\`) on a fresh data folder seeded with ${PROMPTS} prompts of 3 versions; RSS, JS heap and the resident size of malloc's arenas (/proc/self/smaps) after full collections once warm (${STORE_WARM_UP.toLocaleString('en')} queries) and at the end; RSS without a collection every ${SAMPLE_EVERY} queries)`,
    machine(),
    '',
    table(results.map(storeRow), [
      'route',
      'queries',
      'queries/s',
      'failed',
      'RSS MB, warm → end (collected)',
      'JS heap MB, warm → end (collected)',
      "malloc's arenas MB, warm → end (collected)",
      "malloc's arenas, MB per 1,000 queries",
      'RSS MB, warm → each fifth of the rest',
      'RSS slope after warm-up (MB per 1,000 queries)',
      `verdict (flat: arenas under ${STORE_FLAT_ARENAS_MB_PER_1000}, else RSS slope under ${STORE_FLAT_MB_PER_1000})`,
    ]),
    '',
    `Whole run: ${((performance.now() - started) / 1000).toFixed(0)} s.`,
  ].join('\n');
  writeSection('`Query` straight at the embedded store', report);
  process.stdout.write(`${report}\n`);
}

async function main(): Promise<void> {
  if (ROUTES.length > 0) await soakRoutes();
  if (STORE_ROUTES.length > 0) await soakStoreRoutes();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
