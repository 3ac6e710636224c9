import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Context } from 'aws-lambda';
import { AccountImporter } from '../admin/table/account-importer';
import { ensureTable } from '../admin/table/ensure-table';
import { generateApiKey, hashApiKey, keyIdFromHash } from '../lambda/domain/api-key';
import { addMember } from '../lambda/features/members/operations';
import { runDependencies } from '../lambda/management-api/run-runtime';
import { routesOf } from '../lambda/management-api/routes';
import { createStreamingManagementHandler } from '../lambda/management-api/streaming-handler';
import { localCatalog } from '../lambda/models/catalog';
import { createModels } from '../lambda/models/models';
import { createDocumentClient } from '../lambda/table/client';
import { Table } from '../lambda/table/table';
import { restEvent } from '../local/http-gateway';
import { type CountingStore, startCountingStore } from './counting-store';
import { table } from './markdown-table';

/**
 * What the service adds to a model's own time to first token, and to each piece the model writes after it
 * (docs/performance.md "Runs"). The run function is built as a cold start builds it (run-runtime.ts, from its
 * environment) and invoked in this process as Lambda invokes it, warm; its store is the counting store with the
 * latency the caller gives; the model is the local stand-in in a process of its own, reached through AWS's
 * BedrockRuntimeClient as the deployed function reaches Bedrock. Each run is paired with a call of the very same
 * model request straight through the model layer (lambda/models/: the provider and the SDK a run calls it with), interleaved, so the difference is the service's share: the chain, the
 * reads and the reservation before the model is called, and each piece's server-sent event after.
 */

const ACCOUNT = 'bench-runs';
const PROMPT = 'bench-run';
const USER = { userId: 'bench-user', email: 'bench@example.com' };
/** A model of the local catalog (catalog.ts localCatalog), which the stand-in answers. */
const MODEL = 'gpt-4o-mini';

export interface RunOverhead {
  readonly runs: number;
  /** The model's own time to its first piece, straight through the model layer a run calls it with (SLOW: sets it). */
  readonly modelFirstTokenMs: Percentiles;
  /** From invoking the function to its first `delta` event. */
  readonly serviceFirstTokenMs: Percentiles;
  /** serviceFirstTokenMs less modelFirstTokenMs, pair by pair. */
  readonly addedFirstTokenMs: Percentiles;
  /** Pieces of the long answer, and the time from the first piece to the last, straight and through the service. */
  readonly pieces: number;
  readonly modelStreamMs: Percentiles;
  readonly serviceStreamMs: Percentiles;
  /** (service's stream time - the model's) / pieces, pair by pair, in ms. */
  readonly addedPerDeltaMs: Percentiles;
  /** Store operations of one run, counted at the store. */
  readonly storeOpsPerRun: number;
  readonly slowMs: number;
}

export interface Percentiles {
  readonly p50: number;
  readonly p95: number;
}

function percentiles(values: readonly number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN;
  return { p50: at(0.5), p95: at(0.95) };
}

/** What Lambda hands the function with each invocation. */
function invocationContext(): Context {
  const deadline = Date.now() + 150_000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'RunPrompts',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:RunPrompts',
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: '/aws/lambda/RunPrompts',
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => deadline - Date.now(),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

async function startStandInProcess(): Promise<{ url: string; close(): void }> {
  const child = fork(join(__dirname, 'model-stand-in-process.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (message: { url?: string }) => (message.url ? resolve(message.url) : reject(new Error('the stand-in did not report its URL'))));
    child.once('exit', (code) => reject(new Error(`the stand-in process exited (${code})`)));
  });
  return { url, close: () => child.disconnect() };
}

interface Streamed {
  readonly firstMs: number;
  readonly lastMs: number;
  readonly pieces: number;
}

/** Reads a run's server-sent events, timing the first and the last `delta`. */
async function readEvents(stream: Readable, startedAt: number): Promise<Streamed> {
  let buffer = '';
  let first = Number.NaN;
  let last = Number.NaN;
  let pieces = 0;
  let failed: string | undefined;
  for await (const chunk of stream) {
    buffer += String(chunk);
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (block.startsWith('event: delta')) {
        const now = performance.now();
        if (pieces === 0) first = now;
        last = now;
        pieces++;
      } else if (block.startsWith('event: error')) failed = block;
    }
  }
  if (failed !== undefined) throw new Error(`the run failed: ${failed}`);
  return { firstMs: first - startedAt, lastMs: last - startedAt, pieces };
}

export async function measureRunOverhead(store: CountingStore, tableName: string, options: { runs?: number; slowMs?: number } = {}): Promise<RunOverhead> {
  const runs = options.runs ?? 40;
  const slowMs = options.slowMs ?? 200;
  const standIn = await startStandInProcess();
  const client = createDocumentClient({ region: 'us-east-1', endpoint: store.endpoint });
  try {
    await ensureTable(client, tableName);
    const apiKey = generateApiKey();
    const keyHash = hashApiKey(apiKey);
    await new AccountImporter(client, tableName).importAccounts([
      {
        accountId: ACCOUNT,
        name: 'Bench runs',
        plan: 'pro',
        keys: [{ keyHash, keyId: keyIdFromHash(keyHash), displayPrefix: apiKey.slice(0, 8), monthlyLimit: 1_000 }],
        prompts: [
          {
            promptId: PROMPT,
            promptName: 'Bench run',
            versions: [
              {
                version: '1.0.0',
                published: true,
                systemMessage: 'Be brief.',
                userMessage: '${ask}',
                config: { model: MODEL, temperature: 0, schema: [], inputData: null, inputDataRootName: null },
              },
            ],
            labels: { production: '1.0.0' },
          },
        ],
      },
    ]);
    await addMember(new Table(client, tableName, () => new Date()), ACCOUNT, { ...USER, role: 'editor' }, 'cli:bench');

    const env = {
      TABLE_NAME: tableName,
      DYNAMODB_ENDPOINT: store.endpoint,
      AWS_REGION: 'us-east-1',
      USER_POOL_ID: 'us-east-1_Bench',
      AWS_ENDPOINT_URL_BEDROCK_RUNTIME: standIn.url,
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    };
    const handler = createStreamingManagementHandler(runDependencies(env), routesOf('RunPrompts'));
    // The model straight: the provider a run calls it through (BedrockRuntimeClient's ConverseStream), nothing else.
    const catalogModel = localCatalog().find((each) => each.modelId === MODEL);
    if (!catalogModel) throw new Error(`the local catalog has no ${MODEL}`);
    const models = createModels({ catalog: localCatalog(), region: 'us-east-1', standInEndpoint: standIn.url, endpointKeys: new Map() });

    const invoke = async (ask: string): Promise<Streamed> => {
      const event = restEvent({
        method: 'POST',
        rawPath: `/api/accounts/${ACCOUNT}/runs`,
        rawQueryString: '',
        rawHeaders: ['Content-Type', 'application/json', 'Accept', 'text/event-stream', 'Authorization', 'Bearer bench'],
        resource: '/api/accounts/{accountId}/runs',
        pathParameters: { accountId: ACCOUNT },
        body: Buffer.from(JSON.stringify({ source: { promptId: PROMPT, label: 'production' }, variables: { ask } })),
        sourceIp: '127.0.0.1',
        protocol: 'HTTP/1.1',
        stage: 'prod',
        now: new Date(),
      });
      (event.requestContext as { authorizer?: unknown }).authorizer = { claims: { sub: USER.userId, email: USER.email, token_use: 'id' } };
      const startedAt = performance.now();
      const result = await handler(event, invocationContext());
      if (typeof result.body === 'string' || result.body === undefined) throw new Error(`the run was refused: ${result.statusCode} ${result.body}`);
      return readEvents(result.body, startedAt);
    };

    const direct = async (ask: string): Promise<Streamed> => {
      const startedAt = performance.now();
      let first = Number.NaN;
      let last = Number.NaN;
      let pieces = 0;
      await models.converse(
        { model: catalogModel, system: 'Be brief.', user: ask, params: { maxTokens: 1024, temperature: 0 } },
        {
          deadline: Date.now() + 120_000,
          onDelta: () => {
            const now = performance.now();
            if (pieces === 0) first = now;
            last = now;
            pieces++;
          },
        },
      );
      return { firstMs: first - startedAt, lastMs: last - startedAt, pieces };
    };

    const short = `SLOW:${slowMs} REPLY: Hello there.`;
    // 4,000 characters in pieces of 8: the model writes 500 pieces as fast as it can (no PACE).
    const long = `REPLY: ${'abcdefg '.repeat(500).trim()}`;
    for (let warm = 0; warm < 5; warm++) await Promise.all([invoke(short), direct(short)]).then(() => Promise.all([invoke(long), direct(long)]));

    const before = await store.usage();
    await invoke(short);
    const storeOpsPerRun = (await store.usage()).requests - before.requests;

    const model: number[] = [];
    const service: number[] = [];
    const added: number[] = [];
    const modelStream: number[] = [];
    const serviceStream: number[] = [];
    const perDelta: number[] = [];
    let pieces = 0;
    for (let round = 0; round < runs; round++) {
      // Interleaved, alternating which goes first, so drift on the machine falls on both.
      const [viaService, straight] = round % 2 === 0 ? [await invoke(short), await direct(short)] : [await direct(short), await invoke(short)].reverse();
      if (viaService === undefined || straight === undefined) throw new Error('a round lost a measurement');
      model.push(straight.firstMs);
      service.push(viaService.firstMs);
      added.push(viaService.firstMs - straight.firstMs);
      const longService = await invoke(long);
      const longDirect = await direct(long);
      pieces = longDirect.pieces;
      if (longService.pieces !== longDirect.pieces) throw new Error(`the service passed on ${longService.pieces} pieces of ${longDirect.pieces}`);
      modelStream.push(longDirect.lastMs - longDirect.firstMs);
      serviceStream.push(longService.lastMs - longService.firstMs);
      perDelta.push((longService.lastMs - longService.firstMs - (longDirect.lastMs - longDirect.firstMs)) / pieces);
    }
    return {
      runs,
      slowMs,
      modelFirstTokenMs: percentiles(model),
      serviceFirstTokenMs: percentiles(service),
      addedFirstTokenMs: percentiles(added),
      pieces,
      modelStreamMs: percentiles(modelStream),
      serviceStreamMs: percentiles(serviceStream),
      addedPerDeltaMs: percentiles(perDelta),
      storeOpsPerRun,
    };
  } finally {
    client.destroy();
    standIn.close();
  }
}

/** Runs on the local stand-in model, through the run function, its store with the pass's added latency. */
export async function measureRuns(latencyMs: number, rounds: number): Promise<RunOverhead> {
  const store = await startCountingStore(latencyMs);
  try {
    return await measureRunOverhead(store, 'prompts-bench-runs', { runs: rounds });
  } finally {
    await store.close();
  }
}

export function runOverheadReport(runs: RunOverhead, latencyMs: number): string[] {
  const ms = (value: number) => value.toFixed(value < 1 ? 3 : 1);
  const row = (name: string, figures: { p50: number; p95: number }): [string, ...string[]] => [name, ms(figures.p50), ms(figures.p95)];
  return [
    `Runs of prompts on models (docs/performance.md "Runs"): the run function (RunPrompts) built from its environment as a cold start builds it and invoked warm in this process, its store with ${latencyMs} ms added to every round trip, the local stand-in model in a process of its own through AWS's BedrockRuntimeClient; each of ${runs.runs} rounds pairs a run (server-sent events) with the same model request straight through the model layer (lambda/models/, the provider a run calls it with). Time to first token with \`SLOW:${runs.slowMs}\` (the model's share), and a ${runs.pieces}-piece answer written as fast as the model can (no \`PACE:\`); ${runs.storeOpsPerRun} store operations per run, counted at the store:`,
    '',
    table(
      [
        row("model's own time to first token (ms)", runs.modelFirstTokenMs),
        row('time to first token through the run function (ms)', runs.serviceFirstTokenMs),
        row('added by the service to the first token (ms)', runs.addedFirstTokenMs),
        row(`model's ${runs.pieces} pieces, first to last (ms)`, runs.modelStreamMs),
        row('the same through the run function (ms)', runs.serviceStreamMs),
        row('added by the service per piece (ms)', runs.addedPerDeltaMs),
      ],
      ['measure', 'p50', 'p95'],
    ),
  ];
}
