import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyItem } from '../../lambda/table/item-types';
import { keys } from '../../lambda/table/schema';
import { hashApiKey } from '../../lambda/domain/api-key';
import { ApiHarness } from '../support/api-harness';
import { startFaultProxy } from '../support/fault-proxy';
import { createStoreClients } from '../../lambda/table/client';
import { DynamoStore } from '../../lambda/read-api/store/dynamo-store';
import { prompt, version } from '../support/fixtures';
import { StoreUnavailableError } from '../../lambda/table/errors';

/** docs/data-model.md: each key counts its requests per UTC day, on the one write that admits them. */
const api = new ApiHarness();

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme', 'free');
  await api.fixtures.prompts('acme', prompt('welcome', [version('1.0.0')]));
});
afterAll(() => api.stop());

async function keyItem(apiKey: string): Promise<ApiKeyItem> {
  const { client, tableName } = api.localStore;
  const result = await client.send(new GetCommand({ TableName: tableName, Key: keys.apiKey(hashApiKey(apiKey)) }));
  return result.Item as ApiKeyItem;
}

/**
 * An item's size as DynamoDB bills a write of it (its documented rules): names and strings by their
 * UTF-8 bytes, numbers about one byte per two digits plus one, maps and lists 3 bytes plus one per element.
 */
function billedSize(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') return Math.ceil(String(Math.abs(value)).replace('.', '').length / 2) + 1;
  if (typeof value === 'boolean' || value === null) return 1;
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, inner) => sum + billedSize(inner) + 1, 0);
  if (typeof value === 'object') {
    return 3 + Object.entries(value as object).reduce((sum, [name, inner]) => sum + Buffer.byteLength(name) + billedSize(inner) + 1, 0);
  }
  return 0;
}

async function getAt(apiKey: string, instant: string): Promise<number> {
  api.clock = new Date(instant);
  return (await api.get('/prompts/welcome', apiKey)).status;
}

test('requests are counted per UTC day of the month, beside the month counter', async () => {
  const apiKey = await api.fixtures.apiKey('acme');
  await getAt(apiKey, '2026-11-14T23:59:59Z');
  await getAt(apiKey, '2026-11-15T00:00:00Z');
  await getAt(apiKey, '2026-11-15T12:00:00Z');
  const item = await keyItem(apiKey);
  expect(item['used#2026-11']).toBe(3);
  expect(item.daysMonth).toBe('2026-11');
  expect(item.days).toEqual({ '14': 1, '15': 2 });
});

test("a new month starts the day counters afresh and keeps the previous month's", async () => {
  const apiKey = await api.fixtures.apiKey('acme');
  await getAt(apiKey, '2026-11-30T10:00:00Z');
  await getAt(apiKey, '2026-12-01T10:00:00Z');
  await getAt(apiKey, '2026-12-01T11:00:00Z');
  const item = await keyItem(apiKey);
  expect(item).toMatchObject({ daysMonth: '2026-12', days: { '01': 2 }, prevDaysMonth: '2026-11', prevDays: { '30': 1 } });
  expect(item['used#2026-12']).toBe(2);
});

test('after a month without requests, the older days are dropped', async () => {
  const apiKey = await api.fixtures.apiKey('acme');
  await getAt(apiKey, '2026-09-10T10:00:00Z');
  await getAt(apiKey, '2026-11-02T10:00:00Z');
  const item = await keyItem(apiKey);
  expect(item).toMatchObject({ daysMonth: '2026-11', days: { '02': 1 } });
  expect(item.prevDays).toBeUndefined();
  expect(item.prevDaysMonth).toBeUndefined();
});

test('the key item (what every count writes) stops growing: two years of daily use weigh as much as two months', async () => {
  const apiKey = await api.fixtures.apiKey('acme', { monthlyLimit: 100_000 });
  const sizeAfterMonths = async (from: number, months: number): Promise<number> => {
    for (let m = from; m < from + months; m += 1) {
      const month = new Date(Date.UTC(2025, m, 1));
      for (let day = 1; day <= 28; day += 1) {
        month.setUTCDate(day);
        expect(await getAt(apiKey, month.toISOString())).toBe(200);
      }
    }
    const item = await keyItem(apiKey);
    // Without the monthly counters, which grow by one small number a month, as they always have.
    const withoutMonths = Object.fromEntries(Object.entries(item).filter(([name]) => !name.startsWith('used#')));
    return billedSize(withoutMonths);
  };
  const afterTwoMonths = await sizeAfterMonths(0, 2);
  const afterTwoYears = await sizeAfterMonths(2, 22);
  expect(afterTwoYears).toBeLessThanOrEqual(afterTwoMonths + 4);
  // With this key's other attributes, one write unit (1 KB) still counts a request.
  expect(afterTwoYears + 24 * ('used#2026-11'.length + 3)).toBeLessThan(1024);
}, 60_000);

test('concurrent first requests of a month are all counted, on the month and on the day', async () => {
  const apiKey = await api.fixtures.apiKey('acme');
  await getAt(apiKey, '2026-10-31T23:00:00Z');
  api.clock = new Date('2026-11-01T00:00:01Z');
  const statuses = await Promise.all(Array.from({ length: 12 }, () => api.get('/prompts/welcome', apiKey)));
  expect(statuses.map((response) => response.status)).toEqual(Array(12).fill(200));
  const item = await keyItem(apiKey);
  expect(item['used#2026-11']).toBe(12);
  expect(item.days).toEqual({ '01': 12 });
  expect(item.prevDays).toEqual({ '31': 1 });
});

test("a new key's first requests, 20 at once: all counted, none refused", async () => {
  const apiKey = await api.fixtures.apiKey('acme');
  api.clock = new Date('2026-11-20T10:00:00Z');
  const responses = await Promise.all(Array.from({ length: 20 }, () => api.get('/prompts/welcome', apiKey)));
  expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
  expect((await keyItem(apiKey)).days).toEqual({ '20': 20 });
});

test('counting a request is still one store operation: one UpdateItem per request, none added by the days', async () => {
  const apiKey = await api.fixtures.apiKey('acme');
  const proxy = await startFaultProxy(api.localStore.endpoint);
  const clients = createStoreClients({ region: 'us-east-1', endpoint: proxy.endpoint });
  api.useStore(new DynamoStore(clients, api.localStore.tableName));
  try {
    api.clock = new Date();
    await api.get('/prompts/welcome?version=1.0.0', apiKey);
    proxy.seen.length = 0;
    for (let i = 0; i < 10; i += 1) expect((await api.get('/prompts/welcome?version=1.0.0', apiKey)).status).toBe(200);
    // A pinned version is served from memory once read: what is left is the count, one write a request.
    expect(proxy.seen).toEqual(Array(10).fill('UpdateItem'));
  } finally {
    api.useStore(api.realStore());
    clients.destroy();
    await proxy.close();
  }
});

test('the limit still refuses at the start of a month: a new month is a new count', async () => {
  const apiKey = await api.fixtures.apiKey('acme', { monthlyLimit: 1 });
  expect(await getAt(apiKey, '2026-10-31T23:00:00Z')).toBe(200);
  expect(await getAt(apiKey, '2026-10-31T23:30:00Z')).toBe(429);
  expect(await getAt(apiKey, '2026-11-01T00:00:00Z')).toBe(200);
  expect(await getAt(apiKey, '2026-11-01T00:00:01Z')).toBe(429);
  expect((await keyItem(apiKey)).days).toEqual({ '01': 1 });
});

test('a unit given back after a 5xx is given back on its day too', async () => {
  const apiKey = await api.fixtures.apiKey('acme');
  await getAt(apiKey, '2026-11-15T10:00:00Z');
  const real = api.realStore();
  api.useStore(
    Object.assign(Object.create(real) as typeof real, {
      findLatestPrompt: () => Promise.reject(new StoreUnavailableError('throttled')),
    }),
  );
  try {
    expect(await getAt(apiKey, '2026-11-15T11:00:00Z')).toBe(503);
  } finally {
    api.useStore(real);
  }
  const item = await keyItem(apiKey);
  expect(item['used#2026-11']).toBe(1);
  expect(item.days).toEqual({ '15': 1 });
});
