import type { DeliveryItem, WithKeys } from '../../lambda/table/item-types';
import { DELIVERY_ID_PATTERN, DELIVERIES_LISTED, listDeliveries, recordDelivery } from '../../lambda/table/deliveries';
import { prefixes } from '../../lambda/table/schema';
import { Table } from '../../lambda/table/table';
import { type LocalStore, startLocalStore } from '../support/local-store';

const ACCOUNT = 'acme';
const WEBHOOK = 'wh_00000000000000aa';
const OTHER = 'wh_00000000000000bb';

let store: LocalStore;
let table: Table;
beforeAll(async () => {
  store = await startLocalStore();
  table = new Table(store.client, store.tableName, () => new Date('2026-11-27T06:00:00.000Z'));
});
afterAll(() => store.close());

const attemptAt = (webhookId: string, minute: number, attempt = 1) => ({
  accountId: ACCOUNT,
  webhookId,
  eventId: `evt_2026112705${String(minute % 60).padStart(2, '0')}00000_0000${String(minute).padStart(4, '0')}`,
  eventType: 'prompt.created',
  attempt,
  at: new Date(Date.parse('2026-11-27T00:00:00.000Z') + minute * 60_000).toISOString(),
  status: minute % 2 === 0 ? 200 : null,
  durationMs: minute,
  ...(minute % 2 === 0 ? {} : { error: 'connection refused' }),
});

test('the log lists the last 100 attempts of the webhook, newest first, and no other webhook’s', async () => {
  for (let minute = 0; minute < 105; minute++) await recordDelivery(table, attemptAt(WEBHOOK, minute));
  await recordDelivery(table, attemptAt(OTHER, 200));
  const listed = await listDeliveries(table, ACCOUNT, WEBHOOK);
  expect(listed).toHaveLength(DELIVERIES_LISTED);
  expect(listed.map((delivery) => delivery.durationMs)).toEqual(Array.from({ length: 100 }, (_, index) => 104 - index));
  expect(listed[0]).toEqual({
    deliveryId: expect.stringMatching(DELIVERY_ID_PATTERN),
    eventId: attemptAt(WEBHOOK, 104).eventId,
    type: 'prompt.created',
    attempt: 1,
    at: '2026-11-27T01:44:00.000Z',
    status: 200,
    durationMs: 104,
  });
  expect(listed[1]).toMatchObject({ status: null, error: 'connection refused' });
  expect(await listDeliveries(table, ACCOUNT, OTHER)).toHaveLength(1);
});

test('an attempt is kept 30 days: its ttl is its time plus 30 days, in epoch seconds', async () => {
  const webhookId = 'wh_00000000000000cc';
  const deliveryId = await recordDelivery(table, attemptAt(webhookId, 1));
  const [item] = await table.queryPartition<WithKeys<DeliveryItem>>('test', ACCOUNT, prefixes.deliveriesOf(webhookId));
  expect(item).toMatchObject({ deliveryId, type: 'delivery', ttl: Date.parse('2026-11-27T00:01:00.000Z') / 1000 + 30 * 24 * 3600 });
  expect(deliveryId).toMatch(/^dlv_20261127000100000_[0-9a-f]{8}$/);
  expect(item?.sk.endsWith(deliveryId.slice(-8))).toBe(true);
});

test('two attempts of the same millisecond are both kept', async () => {
  const webhookId = 'wh_00000000000000dd';
  await recordDelivery(table, attemptAt(webhookId, 7, 1));
  await recordDelivery(table, attemptAt(webhookId, 7, 2));
  expect((await listDeliveries(table, ACCOUNT, webhookId)).map((delivery) => delivery.attempt).sort()).toEqual([1, 2]);
});

test('an attempt past its 30 days is not listed, even before DynamoDB removes it', async () => {
  const webhookId = 'wh_00000000000000ee';
  await recordDelivery(table, { ...attemptAt(webhookId, 1), at: '2026-10-27T05:59:59.000Z' });
  await recordDelivery(table, { ...attemptAt(webhookId, 2), at: '2026-10-28T07:00:00.000Z' });
  expect((await listDeliveries(table, ACCOUNT, webhookId)).map((delivery) => delivery.at)).toEqual(['2026-10-28T07:00:00.000Z']);
});
