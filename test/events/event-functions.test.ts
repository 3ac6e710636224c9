import * as fs from 'node:fs';
import * as path from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSEvent } from 'aws-lambda';
import type { EventBody } from '../../lambda/domain/events';
import { createDispatchHandler } from '../../lambda/events/dispatch-handler';
import { dispatchEvents } from '../../lambda/events/dispatcher';
import type { WebhookItem, WithKeys } from '../../lambda/table/item-types';
import { keys } from '../../lambda/table/schema';
import { Table } from '../../lambda/table/table';
import { createTelemetry } from '../../lambda/telemetry';
import { attemptDelivery } from '../../lambda/webhooks/attempt';
import { createDeliveryHandler } from '../../lambda/webhooks/delivery-handler';
import { type DeliveryJob, MAX_ATTEMPTS, RETRY_DELAYS_SECONDS } from '../../lambda/webhooks/delivery-job';
import type { Resolve } from '../../lambda/webhooks/destination';
import { LocalSecretSealer } from '../../lambda/webhooks/secret-sealer';
import { generateSecret } from '../../lambda/webhooks/signature';
import { METRIC } from '../../lambda/metric-names';
import { capturedLogRecords } from '../support/log-capture';
import { type LocalStore, startLocalStore } from '../support/local-store';
import { type Receiver, signaturesMadeWith, startReceiver } from '../webhooks/receiver';

/**
 * The two deployed functions of events (lib/event-delivery.ts) on the events/ files `sam local invoke -e` passes
 * them, against the embedded store and a receiver on 127.0.0.1. The bus and the queue are EventBridge and SQS
 * deployed; here they are recorders of what the dispatcher hands them, and the delivery function's retry delay
 * (ChangeMessageVisibility) is recorded too.
 */

const EVENTS_DIR = path.join(__dirname, '../../events');
const readSample = (name: string): unknown => JSON.parse(fs.readFileSync(path.join(EVENTS_DIR, name), 'utf8'));
const readSqsSample = (name: string): SQSEvent => readSample(name) as SQSEvent;
const context = { awsRequestId: 'event-functions-test', functionName: 'test', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

/** The account, webhook and event the sample files name. */
const ACCOUNT = 'acct_demo';
const SAMPLE_WEBHOOK = 'wh_0123456789abcdef';
const SAMPLE_EVENT = 'evt_20261127054200123_1a2b3c4d';

const sealer = new LocalSecretSealer(LocalSecretSealer.generateKey());
const noDns: Resolve = async (host) => {
  throw new Error(`unexpected lookup of ${host}`);
};

let store: LocalStore;
let table: Table;
let receiver: Receiver;
let answerStatus = 200;

beforeAll(async () => {
  store = await startLocalStore('event-functions-test');
  table = new Table(store.client, store.tableName, () => new Date());
  receiver = await startReceiver((_, response) => {
    response.statusCode = answerStatus;
    response.end();
  });
});
afterAll(async () => {
  await receiver.close();
  await store.close();
});
beforeEach(() => {
  answerStatus = 200;
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

describe('the dispatcher function on events/ stream samples', () => {
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

describe('the delivery function on events/webhook-delivery.json', () => {
  let secret: string;
  const retries: [string, number][] = [];
  const { logger, metrics } = createTelemetry({ serviceName: 'event-functions-test', logLevel: 'INFO' });
  const handler = createDeliveryHandler({
    attempt: (job) => attemptDelivery(job, { table, sealer, resolve: noDns, mode: 'local', now: () => new Date() }),
    retryAfter: async (receiptHandle, delaySeconds) => void retries.push([receiptHandle, delaySeconds]),
    logger,
    metrics,
  });
  const withReceives = (count: number): SQSEvent => {
    const event = readSqsSample('webhook-delivery.json');
    return { Records: event.Records.map((record) => ({ ...record, attributes: { ...record.attributes, ApproximateReceiveCount: String(count) } })) };
  };

  beforeAll(async () => {
    secret = await putWebhook(SAMPLE_WEBHOOK, { events: ['prompt.label.moved'] });
  });
  beforeEach(() => {
    retries.length = 0;
  });

  it('delivers the job to the receiver once, signed with the secret, webhook-id the event id, and deletes the message', async () => {
    const result = await handler(readSqsSample('webhook-delivery.json'), context);
    expect(result).toEqual({ batchItemFailures: [] });
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request?.headers['webhook-id']).toBe(SAMPLE_EVENT);
    expect(signaturesMadeWith(secret, request as NonNullable<typeof request>)).toBe(1);
    expect(JSON.parse(request?.body ?? '{}')).toMatchObject({ id: SAMPLE_EVENT, type: 'prompt.label.moved', accountId: ACCOUNT });
  });

  it('keeps a failed attempt in the queue, hidden until the next attempt is due on the schedule', async () => {
    answerStatus = 503;
    const sample = readSqsSample('webhook-delivery.json');
    const result = await handler(withReceives(2), context);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: sample.Records[0]?.messageId }] });
    // The second receive is attempt 2: the next waits the schedule's second delay.
    expect(retries).toEqual([[sample.Records[0]?.receiptHandle, RETRY_DELAYS_SECONDS[1]]]);
  });

  it('marks the delivery failed after the last attempt: a log line, the WebhookDeliveryFailed metric, and the message deleted', async () => {
    answerStatus = 500;
    const before = capturedLogRecords().length;
    const result = await handler(withReceives(MAX_ATTEMPTS), context);
    expect(result).toEqual({ batchItemFailures: [] });
    expect(retries).toEqual([]);
    const lines = capturedLogRecords().slice(before);
    expect(lines.filter((line) => line.message === 'webhook delivery failed: every attempt of the schedule failed')).toMatchObject([
      { webhookId: SAMPLE_WEBHOOK, eventId: SAMPLE_EVENT, attempt: MAX_ATTEMPTS, status: 500 },
    ]);
    expect(lines.some((line) => JSON.stringify(line).includes(METRIC.webhookDeliveryFailed))).toBe(true);
  });

  it('leaves a message that is not a delivery job for the dead-letter queue, without delaying it', async () => {
    const sample = readSqsSample('webhook-delivery.json');
    const broken: SQSEvent = { Records: sample.Records.map((record) => ({ ...record, body: '{"not":"a job"}' })) };
    expect(await handler(broken, context)).toEqual({ batchItemFailures: [{ itemIdentifier: sample.Records[0]?.messageId }] });
    expect(retries).toEqual([]);
    expect(receiver.received).toHaveLength(0);
  });
});
