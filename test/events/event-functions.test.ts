import * as fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { EventBody } from '../../lambda/domain/events';
import { createDispatchHandler } from '../../lambda/event-dispatch/dispatch-handler';
import { dispatchEvents } from '../../lambda/event-dispatch/dispatcher';
import type { WebhookItem, WithKeys } from '../../lambda/table/item-types';
import { keys } from '../../lambda/table/schema';
import { Table } from '../../lambda/table/table';
import { listDeliveries } from '../../lambda/table/deliveries';
import { createTelemetry } from '../../lambda/telemetry';
import { createDeliveryHandler } from '../../lambda/webhook-delivery/delivery-handler';
import { ATTEMPT_TIMEOUT_MS, type DeliveryJob, MAX_ATTEMPTS, RETRY_DELAYS_SECONDS } from '../../lambda/webhook-delivery/delivery-job';
import { deliveryDependencies } from '../../lambda/webhook-delivery/delivery-runtime';
import { LocalSecretSealer } from '../../lambda/webhook-delivery/secret-sealer';
import { generateSecret } from '../../lambda/webhook-delivery/signature';
import { METRIC } from '../../lambda/metric-names';
import { DELIVERY_MAX_RECEIVES, DELIVERY_VISIBILITY_TIMEOUT } from '../../lib/event-delivery';
import { type FaultProxy, startFaultProxy } from '../support/fault-proxy';
import { capturedLogRecords } from '../support/log-capture';
import { type LocalStore, startLocalStore } from '../support/local-store';
import { SimulatedQueue } from '../support/simulated-sqs';
import { type Received, type Receiver, signaturesMadeWith, startReceiver } from '../webhooks/receiver';

/**
 * The two deployed functions of events (lib/event-delivery.ts) on the sample-events/ files `sam local invoke -e` passes
 * them, against the embedded store and a receiver on 127.0.0.1. The bus and the queue are EventBridge and SQS
 * deployed; here they are recorders of what the dispatcher hands them, and the delivery function's retry delay
 * (ChangeMessageVisibility) is recorded too.
 */

const EVENTS_DIR = path.join(__dirname, '../../sample-events');
const readSample = (name: string): unknown => JSON.parse(fs.readFileSync(path.join(EVENTS_DIR, name), 'utf8'));
const readSqsSample = (name: string): SQSEvent => readSample(name) as SQSEvent;
const context = { awsRequestId: 'event-functions-test', functionName: 'test', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

/** The account, webhook and event the sample files name. */
const ACCOUNT = 'acct_demo';
const SAMPLE_WEBHOOK = 'wh_0123456789abcdef';
const SAMPLE_EVENT = 'evt_20261127054200123_1a2b3c4d';

const sealer = new LocalSecretSealer(LocalSecretSealer.generateKey());
/** Date alone is faked where a test moves the clock: the SDK's, the store's and the receiver's timers stay real. */
const REAL_TIMERS = [
  'hrtime',
  'nextTick',
  'performance',
  'queueMicrotask',
  'requestAnimationFrame',
  'cancelAnimationFrame',
  'requestIdleCallback',
  'cancelIdleCallback',
  'setImmediate',
  'clearImmediate',
  'setInterval',
  'clearInterval',
  'setTimeout',
  'clearTimeout',
] as const;

let store: LocalStore;
let table: Table;
let receiver: Receiver;
const answerOk = (_: Received, response: ServerResponse): void => void response.end();
let answer = answerOk;

beforeAll(async () => {
  store = await startLocalStore('event-functions-test');
  table = new Table(store.client, store.tableName, () => new Date());
  receiver = await startReceiver((request, response) => answer(request, response));
});
afterAll(async () => {
  await receiver.close();
  await store.close();
});
beforeEach(() => {
  answer = answerOk;
  receiver.received.length = 0;
});

async function putWebhook(webhookId: string, changes: Partial<WebhookItem> = {}): Promise<string> {
  const secret = generateSecret();
  const now = new Date().toISOString();
  const item: WithKeys<WebhookItem> = {
    ...keys.webhook(ACCOUNT, webhookId),
    type: 'webhook',
    accountId: ACCOUNT,
    webhookId,
    url: `http://127.0.0.1:${receiver.port}/hooks`,
    events: ['*'],
    enabled: true,
    description: null,
    createdAt: now,
    createdBy: 'owner@example.com',
    updatedAt: now,
    secrets: [{ sealed: await sealer.seal(secret), createdAt: now }],
    revision: 1,
    ...changes,
  };
  await store.client.send(new PutCommand({ TableName: store.tableName, Item: item }));
  return secret;
}

function recorders() {
  const published: EventBody[] = [];
  const queued: DeliveryJob[] = [];
  return {
    published,
    queued,
    bus: { publish: async (events: readonly EventBody[]) => void published.push(...events) },
    queue: { enqueue: async (jobs: readonly DeliveryJob[]) => void queued.push(...jobs) },
  };
}

describe('the dispatcher function on sample-events/ stream samples', () => {
  beforeAll(async () => {
    await putWebhook(SAMPLE_WEBHOOK, { events: ['prompt.label.moved'] });
    await putWebhook('wh_00000000000000aa', { events: ['key.created'] });
    await putWebhook('wh_00000000000000bb', { enabled: false });
  });

  it('publishes the INSERT of an event item and queues one attempt-1 job for each webhook that wants its type', async () => {
    const recorded = recorders();
    const handler = createDispatchHandler({
      table,
      bus: recorded.bus,
      queue: recorded.queue,
      logger: createTelemetry({ serviceName: 't', logLevel: 'SILENT' }).logger,
    });
    const result = await handler(readSample('event-stream-insert.json'), context);
    expect(result).toEqual({ published: 1, queued: 1, ignored: 0 });
    expect(recorded.published.map((event) => [event.id, event.type, event.accountId])).toEqual([[SAMPLE_EVENT, 'prompt.label.moved', ACCOUNT]]);
    expect(recorded.queued.map((job) => [job.webhookId, job.event.id, job.attempt])).toEqual([[SAMPLE_WEBHOOK, SAMPLE_EVENT, 1]]);
  });

  it('ignores a MODIFY and a REMOVE: nothing published, nothing queued', async () => {
    const recorded = recorders();
    const handler = createDispatchHandler({
      table,
      bus: recorded.bus,
      queue: recorded.queue,
      logger: createTelemetry({ serviceName: 't', logLevel: 'SILENT' }).logger,
    });
    expect(await handler(readSample('event-stream-ignored.json'), context)).toEqual({ published: 0, queued: 0, ignored: 2 });
    expect([recorded.published, recorded.queued]).toEqual([[], []]);
  });

  it('throws on an event item whose body is not an event, so the stream retries and bisects down to it', async () => {
    const recorded = recorders();
    const handler = createDispatchHandler({
      table,
      bus: recorded.bus,
      queue: recorded.queue,
      logger: createTelemetry({ serviceName: 't', logLevel: 'SILENT' }).logger,
    });
    const sample = readSample('event-stream-insert.json') as { Records: { dynamodb: { NewImage: Record<string, unknown> } }[] };
    for (const record of sample.Records) record.dynamodb.NewImage.body = { S: '{"not":"an event"}' };
    await expect(handler(sample, context)).rejects.toThrow();
    expect([recorded.published, recorded.queued]).toEqual([[], []]);
  });

  it('sends webhook.test to the webhook it names alone and never publishes it on the bus', async () => {
    const recorded = recorders();
    const test: EventBody = {
      id: 'evt_20261127054300000_0000abcd',
      type: 'webhook.test',
      time: '2026-11-27T05:43:00.000Z',
      accountId: ACCOUNT,
      actor: { type: 'user', email: 'owner@example.com' },
      data: { webhookId: 'wh_00000000000000aa' },
    };
    expect(await dispatchEvents([test], { table, bus: recorded.bus, queue: recorded.queue })).toEqual({ published: 0, queued: 1 });
    expect(recorded.queued.map((job) => job.webhookId)).toEqual(['wh_00000000000000aa']);
  });

  it('sends webhook.test to the webhook it names even while that webhook is disabled, and to no other', async () => {
    const recorded = recorders();
    const test: EventBody = {
      id: 'evt_20261127054400000_0000abce',
      type: 'webhook.test',
      time: '2026-11-27T05:44:00.000Z',
      accountId: ACCOUNT,
      actor: { type: 'user', email: 'owner@example.com' },
      data: { webhookId: 'wh_00000000000000bb' },
    };
    expect(await dispatchEvents([test], { table, bus: recorded.bus, queue: recorded.queue })).toEqual({ published: 0, queued: 1 });
    expect(recorded.queued.map((job) => [job.webhookId, job.event.id])).toEqual([['wh_00000000000000bb', test.id]]);
  });

  it('throws when the queue fails, so the stream retries the batch', async () => {
    const recorded = recorders();
    const failing = { enqueue: async () => Promise.reject(new Error('queue down')) };
    await expect(dispatchEvents([sampleEvent()], { table, bus: recorded.bus, queue: failing })).rejects.toThrow('queue down');
  });
});

function sampleEvent(): EventBody {
  const [record] = readSqsSample('webhook-delivery.json').Records;
  return (JSON.parse(record?.body ?? '{}') as DeliveryJob).event;
}

/**
 * The delivery function as deployed (delivery-runtime.ts builds it from the environment, as a cold start does), on
 * sample-events/webhook-delivery.json's record, against the store (through a proxy that can make it fail) and SQS as the
 * queue keeps messages (test/support/simulated-sqs.ts: delays, visibility, receive counts, the redrive policy), on
 * a clock the tests move. The receiver says which requests it got: each attempt is its POST.
 */
describe('the delivery function on sample-events/webhook-delivery.json, through the delivery queue', () => {
  const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'event-functions-key-'));
  const keyFile = path.join(keyDir, 'webhook-sealing.key');
  const key = LocalSecretSealer.generateKey();
  const fileSealer = new LocalSecretSealer(key);
  const template = readSqsSample('webhook-delivery.json').Records[0] as SQSRecord;
  const sampleJob = JSON.parse(template.body) as { accountId: string; webhookId: string; event: EventBody; attempt: number };
  /** What the receiver answers, request by request; 200 once the list runs out. */
  let answers: number[] = [];
  let proxy: FaultProxy;
  let queue: SimulatedQueue;
  let handler: (event: SQSEvent) => Promise<SQSBatchResponse>;
  let webhookCount = 0;
  const answerNext = (_: Received, response: ServerResponse) => {
    response.statusCode = answers.shift() ?? 200;
    response.end();
  };

  beforeAll(async () => {
    fs.writeFileSync(keyFile, `${key.toString('base64')}\n`, { mode: 0o600 });
    proxy = await startFaultProxy(store.endpoint);
  });
  afterAll(async () => {
    await proxy.close();
    fs.rmSync(keyDir, { recursive: true, force: true });
  });
  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: [...REAL_TIMERS], now: new Date('2026-11-27T05:42:00.200Z') });
    answers = [];
    answer = answerNext;
    proxy.rule = () => 'pass';
    queue = new SimulatedQueue({ visibilityTimeoutSeconds: DELIVERY_VISIBILITY_TIMEOUT.toSeconds(), maxReceiveCount: DELIVERY_MAX_RECEIVES, template });
    const fn = createDeliveryHandler(
      deliveryDependencies({
        TABLE_NAME: store.tableName,
        DYNAMODB_ENDPOINT: proxy.endpoint,
        DELIVERY_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/delivery',
        WEBHOOK_LOCAL_KEY_FILE: keyFile,
        WEBHOOK_DESTINATIONS: 'local',
        AWS_REGION: 'us-east-1',
        POWERTOOLS_SERVICE_NAME: 'event-functions-test',
        POWERTOOLS_LOG_LEVEL: 'INFO',
      }),
    );
    handler = (event) => fn(event, context);
  });
  afterEach(() => {
    queue.restore();
    jest.useRealTimers();
  });

  /** A webhook of its own (so is its delivery log), sealed with the function's key file; the sample's job for it. */
  async function sampleFor(changes: Partial<WebhookItem> = {}) {
    webhookCount += 1;
    const webhookId = `wh_${webhookCount.toString(16).padStart(16, 'e')}`;
    const secret = generateSecret();
    const now = new Date().toISOString();
    const item: WithKeys<WebhookItem> = {
      ...keys.webhook(sampleJob.accountId, webhookId),
      type: 'webhook',
      accountId: sampleJob.accountId,
      webhookId,
      url: `http://127.0.0.1:${receiver.port}/hooks/${webhookId}`,
      events: ['*'],
      enabled: true,
      description: null,
      createdAt: now,
      createdBy: 'owner@example.com',
      updatedAt: now,
      secrets: [{ sealed: await fileSealer.seal(secret), createdAt: now }],
      revision: 1,
      ...changes,
    };
    await store.client.send(new PutCommand({ TableName: store.tableName, Item: item }));
    const job = { ...sampleJob, webhookId };
    return { webhookId, secret, job, body: (attempt = 1) => JSON.stringify({ ...job, attempt }) };
  }

  const requestsFor = (webhookId: string) => receiver.received.filter((request) => request.url === `/hooks/${webhookId}`).length;
  const log = async (webhookId: string) =>
    (await listDeliveries(new Table(store.client, store.tableName, () => new Date()), sampleJob.accountId, webhookId)).map(({ attempt, status }) => ({
      attempt,
      status,
    }));
  const drain = (hours: number) => queue.drain(handler, (time) => jest.setSystemTime(time), Date.now() + hours * 3600_000);

  it('delivers the job to the receiver once, signed with the secret, webhook-id the event id, and deletes the message', async () => {
    const { secret, body } = await sampleFor();
    queue.send(body());
    expect(await queue.poll(handler)).toBe(1);
    expect(queue.messages).toEqual([]);
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request?.headers['webhook-id']).toBe(SAMPLE_EVENT);
    expect(signaturesMadeWith(secret, request as NonNullable<typeof request>)).toBe(1);
    expect(JSON.parse(request?.body ?? '{}')).toMatchObject({ id: SAMPLE_EVENT, type: 'prompt.label.moved', accountId: ACCOUNT });
  });

  it("a failed attempt is done with: the next is a new message, attempt 2, due the schedule's wait later", async () => {
    answers = [503];
    const { body, webhookId } = await sampleFor();
    queue.send(body());
    await queue.poll(handler);
    expect(queue.messages).toHaveLength(1);
    const [next] = queue.messages;
    const queued = JSON.parse(next?.body ?? '{}') as { webhookId: string; attempt: number; dueAt: string };
    expect(queued).toMatchObject({ webhookId, attempt: 2 });
    // Due the wait after the attempt ended (it took milliseconds here; at most ATTEMPT_TIMEOUT_MS).
    expect(Date.parse(queued.dueAt) - Date.now()).toBeGreaterThanOrEqual(RETRY_DELAYS_SECONDS[0] * 1000);
    expect(Date.parse(queued.dueAt) - Date.now()).toBeLessThanOrEqual(RETRY_DELAYS_SECONDS[0] * 1000 + ATTEMPT_TIMEOUT_MS);
    expect(queue.sent.at(-1)?.delaySeconds).toBe(RETRY_DELAYS_SECONDS[0]);
    expect(next?.receives).toBe(0);
  });

  it('a wait longer than SQS holds a message (the 2 h before attempt 5) comes early once, is hidden until due, then sent', async () => {
    answers = [500];
    const { body, webhookId } = await sampleFor();
    queue.send(body(4));
    const failedAt = Date.now();
    await queue.poll(handler);
    expect(queue.sent.at(-1)?.delaySeconds).toBe(900);
    await drain(3);
    expect(requestsFor(webhookId)).toBe(2);
    expect(await log(webhookId)).toEqual([
      { attempt: 5, status: 200 },
      { attempt: 4, status: 500 },
    ]);
    const [latest] = await listDeliveries(new Table(store.client, store.tableName, () => new Date()), ACCOUNT, webhookId);
    expect(Date.parse(latest?.at ?? '') - failedAt).toBeGreaterThanOrEqual(RETRY_DELAYS_SECONDS[3] * 1000);
  });

  it('a receiver failing until the last attempt: attempts 1 to 7, each sent once, every one in the log, then failed for good', async () => {
    answers = Array(MAX_ATTEMPTS).fill(500);
    const { body, webhookId } = await sampleFor();
    const before = capturedLogRecords().length;
    queue.send(body());
    await drain(24);
    expect(requestsFor(webhookId)).toBe(MAX_ATTEMPTS);
    expect((await log(webhookId)).map((line) => line.attempt)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    const lines = capturedLogRecords().slice(before);
    expect(lines.filter((line) => line.message === 'webhook delivery failed: every attempt of the schedule failed')).toMatchObject([
      { webhookId, eventId: SAMPLE_EVENT, attempt: MAX_ATTEMPTS, status: 500 },
    ]);
    expect(lines.some((line) => JSON.stringify(line).includes(METRIC.webhookDeliveryFailed))).toBe(true);
    expect([queue.messages, queue.deadLetters]).toEqual([[], []]);
  });

  it('a store outage while attempts are recorded: the receiver gets each attempt once, numbered 1, 2, 3 without a gap, every one in the log', async () => {
    answers = [500, 500, 200];
    const { body, webhookId } = await sampleFor();
    // From the first POST on, the delivery log cannot be written for ten minutes.
    let outageEnds = Number.POSITIVE_INFINITY;
    proxy.rule = (operation, requestBody) => {
      if (operation !== 'PutItem' || !requestBody.includes('"DELIVERY#')) return 'pass';
      if (outageEnds === Number.POSITIVE_INFINITY) outageEnds = Date.now() + 10 * 60_000;
      return Date.now() < outageEnds ? 'throttle' : 'pass';
    };
    queue.send(body());
    await drain(12);
    expect(requestsFor(webhookId)).toBe(3);
    expect(await log(webhookId)).toEqual([
      { attempt: 3, status: 200 },
      { attempt: 2, status: 500 },
      { attempt: 1, status: 500 },
    ]);
    expect([queue.messages, queue.deadLetters]).toEqual([[], []]);
  });

  it('a batch that timed out after its POSTs: its messages come back, and nothing is sent again', async () => {
    const first = await sampleFor();
    const second = await sampleFor();
    queue.send(first.body());
    queue.send(second.body());
    // The invocation is cut off once both receivers have their POST: its answer never reaches the queue.
    await queue.poll(handler, { timedOut: true });
    expect([requestsFor(first.webhookId), requestsFor(second.webhookId)]).toEqual([1, 1]);
    expect(queue.messages).toHaveLength(2);
    await drain(1);
    expect([requestsFor(first.webhookId), requestsFor(second.webhookId)]).toEqual([1, 1]);
    expect([await log(first.webhookId), await log(second.webhookId)]).toEqual([[{ attempt: 1, status: 200 }], [{ attempt: 1, status: 200 }]]);
    expect(queue.messages).toEqual([]);
  });

  it('a store outage of a day delays a delivery without failing it: sent within 15 minutes of the end, never in the dead-letter queue', async () => {
    const { body, webhookId } = await sampleFor();
    const outageEnds = Date.now() + 24 * 3600_000;
    proxy.rule = () => (Date.now() < outageEnds ? 'throttle' : 'pass');
    queue.send(body());
    await drain(26);
    expect(queue.deadLetters).toEqual([]);
    expect(requestsFor(webhookId)).toBe(1);
    const [line] = await listDeliveries(new Table(store.client, store.tableName, () => new Date()), ACCOUNT, webhookId);
    expect(line).toMatchObject({ attempt: 1, status: 200 });
    expect(Date.parse(line?.at ?? '') - outageEnds).toBeLessThanOrEqual(15 * 60_000);
  }, 60_000);

  it('leaves a message that is not a delivery job for the dead-letter queue, sending nothing', async () => {
    queue.send('{"not":"a job"}');
    await drain(2);
    expect(queue.deadLetters).toHaveLength(1);
    expect(queue.deadLetters[0]?.receives).toBe(DELIVERY_MAX_RECEIVES);
    expect(receiver.received).toHaveLength(0);
  });
});
