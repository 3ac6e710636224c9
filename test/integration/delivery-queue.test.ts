import * as fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { listDeliveries } from '../../lambda/table/deliveries';
import type { WebhookItem, WithKeys } from '../../lambda/table/item-types';
import { eventWrite } from '../../lambda/table/outbox';
import { keys } from '../../lambda/table/schema';
import { Table } from '../../lambda/table/table';
import { MAX_ATTEMPTS } from '../../lambda/webhook-delivery/delivery-job';
import { localKeyFromFile, WEBHOOK_KEY_FILE_NAME } from '../../lambda/webhook-delivery/sealer-from-config';
import { LocalSecretSealer } from '../../lambda/webhook-delivery/secret-sealer';
import { generateSecret } from '../../lambda/webhook-delivery/signature';
import { loadLocalConfig } from '../../local/local-config';
import { type LocalEvents, startLocalEvents } from '../../local/local-events';
import { type FaultProxy, startFaultProxy } from '../support/fault-proxy';
import { FixtureStore } from '../support/fixture-store';
import { type LocalStore, startLocalStore } from '../support/local-store';
import { type Received, type Receiver, startReceiver } from '../webhooks/receiver';

/**
 * npm start's events and webhooks (docs/local-stack.md "Events and webhooks") as it starts them: the poller, the
 * dispatcher and the in-process delivery queue running the deployed delivery runs, here with a millisecond for each
 * second of the schedule, against the store through a proxy that can make it fail and a receiver on 127.0.0.1.
 */

const ACCOUNT = 'acme';
let store: LocalStore;
let proxy: FaultProxy;
let receiver: Receiver;
let dataDir: string;
let events: LocalEvents | undefined;
/** What the receiver answers each webhook's requests, by its id: statuses in turn (200 once they run out), or a wait. */
const script = new Map<string, { statuses: number[]; holdMs?: number }>();
let webhookCount = 0;
let eventCount = 0;

beforeAll(async () => {
  store = await startLocalStore('delivery-queue-test');
  await new FixtureStore(store.client, store.tableName).putAccount({ accountId: ACCOUNT, name: 'Acme', plan: 'free' });
  proxy = await startFaultProxy(store.endpoint);
  receiver = await startReceiver((request: Received, response: ServerResponse) => {
    const plan = script.get(request.url.split('/').at(-1) ?? '');
    const answer = () => {
      response.statusCode = plan?.statuses.shift() ?? 200;
      response.end();
    };
    if (plan?.holdMs) setTimeout(answer, plan.holdMs);
    else answer();
  });
});
afterAll(async () => {
  await receiver.close();
  await proxy.close();
  await store.close();
});
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'delivery-queue-'));
  proxy.rule = () => 'pass';
});
afterEach(async () => {
  await events?.stop();
  events = undefined;
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** npm start's events, as local-stack.ts starts them, its store calls through the proxy. */
function start(): LocalEvents {
  const config = loadLocalConfig({ DATA_DIR: dataDir, TABLE_NAME: store.tableName });
  events = startLocalEvents(config, proxy.endpoint, {
    onError: (error) => {
      throw error;
    },
    intervalMs: 60_000,
    millisPerSecond: 0.001,
  });
  return events;
}

/** A webhook sealed with the data folder's key (the one npm start's deliveries unseal with), sending to `/hooks/<its id>`. */
async function webhook(statuses: number[] = [], holdMs?: number): Promise<string> {
  webhookCount += 1;
  const webhookId = `wh_${webhookCount.toString(16).padStart(16, 'c')}`;
  script.set(webhookId, { statuses: [...statuses], ...(holdMs ? { holdMs } : {}) });
  const sealer = new LocalSecretSealer(localKeyFromFile(path.join(dataDir, WEBHOOK_KEY_FILE_NAME)));
  const now = new Date().toISOString();
  const item: WithKeys<WebhookItem> = {
    ...keys.webhook(ACCOUNT, webhookId),
    type: 'webhook',
    accountId: ACCOUNT,
    webhookId,
    url: `http://127.0.0.1:${receiver.port}/hooks/${webhookId}`,
    events: ['*'],
    enabled: true,
    description: null,
    createdAt: now,
    createdBy: 'owner@example.com',
    updatedAt: now,
    secrets: [{ sealed: await sealer.seal(generateSecret()), createdAt: now }],
    revision: 1,
  };
  await store.client.send(new PutCommand({ TableName: store.tableName, Item: item }));
  return webhookId;
}

/** A change's event, committed now, then read by the poller and dispatched at once. */
async function announce(running: LocalEvents): Promise<void> {
  eventCount += 1;
  const table = new Table(store.client, store.tableName, () => new Date());
  const { write } = eventWrite(
    {
      accountId: ACCOUNT,
      type: 'key.created',
      time: new Date().toISOString(),
      actor: { type: 'cli', operator: 'test' },
      data: { keyId: `k${eventCount}`, name: 'k' },
    },
    eventCount.toString(16).padStart(8, '0'),
  );
  await table.transact('test', [write]);
  await running.pollNow();
}

const postsTo = (webhookId: string) => receiver.received.filter((request) => request.url === `/hooks/${webhookId}`).length;
const lines = async (webhookId: string) =>
  (await listDeliveries(new Table(store.client, store.tableName, () => new Date()), ACCOUNT, webhookId)).map(({ attempt, status }) => ({ attempt, status }));

async function until(condition: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('not in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

it('retries a failed attempt on the schedule, attempts numbered 1 to 7, each sent once and in the log', async () => {
  const running = start();
  const webhookId = await webhook(Array(MAX_ATTEMPTS).fill(500));
  await announce(running);
  await until(async () => (await lines(webhookId)).length === MAX_ATTEMPTS);
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(postsTo(webhookId)).toBe(MAX_ATTEMPTS);
  expect((await lines(webhookId)).map((line) => line.attempt)).toEqual([7, 6, 5, 4, 3, 2, 1]);
});

it('a store outage while an attempt is recorded: the receiver gets attempt 1 once, then attempt 2, both in the log', async () => {
  const running = start();
  const webhookId = await webhook([500]);
  // From the first line written on, the delivery log cannot be written for half a second.
  let outageEnds = Number.POSITIVE_INFINITY;
  proxy.rule = (operation, body) => {
    if (operation !== 'PutItem' || !body.includes('"DELIVERY#')) return 'pass';
    if (outageEnds === Number.POSITIVE_INFINITY) outageEnds = Date.now() + 500;
    return Date.now() < outageEnds ? 'throttle' : 'pass';
  };
  await announce(running);
  await until(async () => (await lines(webhookId)).length === 2);
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(postsTo(webhookId)).toBe(2);
  expect(await lines(webhookId)).toEqual([
    { attempt: 2, status: 200 },
    { attempt: 1, status: 500 },
  ]);
});

it('a store that fails before the POST (its reads throttled) delays the attempt and uses none up', async () => {
  const running = start();
  const webhookId = await webhook();
  let outageEnds = Number.POSITIVE_INFINITY;
  proxy.rule = (operation) => {
    if (operation !== 'GetItem') return 'pass';
    if (outageEnds === Number.POSITIVE_INFINITY) outageEnds = Date.now() + 500;
    return Date.now() < outageEnds ? 'throttle' : 'pass';
  };
  await announce(running);
  await until(async () => (await lines(webhookId)).length === 1);
  expect(Date.now()).toBeGreaterThanOrEqual(outageEnds);
  expect(postsTo(webhookId)).toBe(1);
  expect(await lines(webhookId)).toEqual([{ attempt: 1, status: 200 }]);
});

it('delivers to one webhook while another is still waiting on its slow receiver', async () => {
  const running = start();
  const slow = await webhook([], 1_500);
  const fast = await webhook();
  await announce(running);
  await until(async () => (await lines(fast)).length === 1);
  expect(await lines(slow)).toEqual([]);
  await until(async () => (await lines(slow)).length === 1);
});

it('stops cleanly: the run under way finishes, the retries waiting are dropped', async () => {
  const running = start();
  const webhookId = await webhook([500, 500, 500]);
  await announce(running);
  // Attempt 3 waits 5 minutes after attempt 2: 300 ms here.
  await until(async () => (await lines(webhookId)).length === 2);
  await running.stop();
  events = undefined;
  await new Promise((resolve) => setTimeout(resolve, 600));
  expect(postsTo(webhookId)).toBe(2);
});
