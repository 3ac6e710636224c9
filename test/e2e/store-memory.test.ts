import { BatchWriteItemCommand, DynamoDBClient, QueryCommand, type QueryCommandInput, ScanCommand } from '@aws-sdk/client-dynamodb';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { startEmbeddedStore, type EmbeddedStore } from '../../local/embedded-store';
import { createActiveTable } from '../support/active-table';
import { temporaryFolder } from './support/processes';

/**
 * The embedded store's memory under reads (issue 36; docs/performance.md "Memory under steady traffic").
 * LevelDB's native iterator (classic-level) keeps the vector it reserved for a read-ahead, 64 bytes an entry,
 * after the iterator is closed, until V8 collects it; V8 does not count that memory, so it collects late.
 * classic-level's own next() reads ahead 1,000 entries, 64 KB left behind by every Query and Scan whatever
 * it returned, on libuv's threads, whose malloc arenas kept the space: the store's RSS climbed (`npm run soak`,
 * store routes). dynalite now reads in batches of 64 (patches/dynalite+4.0.0.patch). This counts what each
 * Query leaves behind from the sizes the native iterators are asked for, which no collection timing changes.
 */

jest.setTimeout(60_000);

/** The native binding classic-level calls for every read-ahead: (iterator, entries to read at most). */
interface NativeLevel {
  iterator_nextv(iterator: object, size: number): Promise<unknown[]>;
}
const binding = require('classic-level/binding') as NativeLevel;
const original = binding.iterator_nextv;

/** One entry of the native read-ahead: a key and a value, each a std::string (32 bytes on 64-bit). */
const ENTRY_BYTES = 64;
/** What a Query may leave behind: a batch of 64 entries. It was 1,000 entries (64 KB). */
const MAX_LEFT_PER_QUERY_BYTES = 64 * ENTRY_BYTES;

const TABLE = 'prompts-store-memory';
const VERSIONS = 150;

let folder: { path: string; remove(): Promise<void> };
let store: EmbeddedStore;
let client: DynamoDBClient;

const versionSk = (i: number) => `VERSION#p#${String(i).padStart(4, '0')}`;

beforeAll(async () => {
  folder = await temporaryFolder('store-memory-e2e');
  store = await startEmbeddedStore({ dataDir: join(folder.path, 'data'), port: 0 });
  client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: store.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await createActiveTable(client, TABLE);
  // More items than a batch, some in the admin index, so a read takes several batches.
  for (let start = 0; start < VERSIONS; start += 25) {
    const items = Array.from({ length: Math.min(25, VERSIONS - start) }, (_, k) => {
      const i = start + k;
      return {
        PutRequest: {
          Item: {
            pk: { S: 'ACCOUNT#memory' },
            sk: { S: versionSk(i) },
            body: { S: `Version ${i} `.repeat(20) },
            ...(i % 3 === 0 ? { gsi1pk: { S: 'KEYS#memory' }, gsi1sk: { S: `KEY#${String(i).padStart(4, '0')}` } } : {}),
          },
        },
      };
    });
    await client.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: items } }));
  }
});

afterAll(async () => {
  client?.destroy();
  await store?.close();
  await folder?.remove();
});

/**
 * Runs `operation` and returns what it asked the native iterators for: per iterator, the most entries one
 * read-ahead reserved (the vector only grows), and so the bytes left behind until V8 collects them.
 */
async function readAheads<T>(operation: () => Promise<T>): Promise<{ result: T; largest: number; leftBytes: number }> {
  const reserved = new Map<object, number>();
  const spy = jest.spyOn(binding, 'iterator_nextv').mockImplementation((iterator, size) => {
    reserved.set(iterator, Math.max(reserved.get(iterator) ?? 0, size));
    return original.call(binding, iterator, size);
  });
  try {
    const result = await operation();
    // The answer may leave before the stream behind it asked for its last batch.
    await delay(50);
    const sizes = [...reserved.values()];
    return {
      result,
      largest: Math.max(0, ...sizes),
      leftBytes: sizes.reduce((sum, size) => sum + size * ENTRY_BYTES, 0),
    };
  } finally {
    spy.mockRestore();
  }
}
const partition = (extra: Partial<QueryCommandInput> = {}): QueryCommandInput => ({
  TableName: TABLE,
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
  ExpressionAttributeValues: { ':pk': { S: 'ACCOUNT#memory' }, ':prefix': { S: 'VERSION#' } },
  ...extra,
});

test('a Query of a whole partition reads it in small batches and still answers every item in order', async () => {
  const { result, largest, leftBytes } = await readAheads(() => client.send(new QueryCommand(partition())));

  expect(result.Items?.map((item) => item.sk?.S)).toEqual(Array.from({ length: VERSIONS }, (_, i) => versionSk(i)));
  expect(largest).toBeGreaterThan(0);
  expect(largest).toBeLessThanOrEqual(64);
  expect(leftBytes).toBeLessThanOrEqual(MAX_LEFT_PER_QUERY_BYTES);
});

test('a page newest first (Limit, backwards) reads no more than its page needs', async () => {
  const { result, leftBytes } = await readAheads(() => client.send(new QueryCommand(partition({ Limit: 5, ScanIndexForward: false }))));

  expect(result.Items?.map((item) => item.sk?.S)).toEqual([149, 148, 147, 146, 145].map(versionSk));
  expect(result.LastEvaluatedKey?.sk?.S).toBe(versionSk(145));
  // Five entries and the one after them, to tell whether there is a next page.
  expect(leftBytes).toBeLessThanOrEqual(6 * ENTRY_BYTES);
});

test('pages of 40 through ExclusiveStartKey cover the partition once, each leaving at most a batch', async () => {
  const seen: string[] = [];
  let startKey: QueryCommandInput['ExclusiveStartKey'];
  do {
    const { result, leftBytes } = await readAheads(() =>
      client.send(new QueryCommand(partition({ Limit: 40, ...(startKey ? { ExclusiveStartKey: startKey } : {}) }))),
    );
    seen.push(...(result.Items ?? []).map((item) => item.sk?.S ?? ''));
    expect(leftBytes).toBeLessThanOrEqual(MAX_LEFT_PER_QUERY_BYTES);
    startKey = result.LastEvaluatedKey;
  } while (startKey);

  expect(seen).toEqual(Array.from({ length: VERSIONS }, (_, i) => versionSk(i)));
});

test('a Query of the admin index and a Scan leave at most a batch each too', async () => {
  const index = await readAheads(() =>
    client.send(
      new QueryCommand({
        TableName: TABLE,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: 'KEYS#memory' } },
      }),
    ),
  );
  const scan = await readAheads(() => client.send(new ScanCommand({ TableName: TABLE })));

  expect(index.result.Count).toBe(Math.ceil(VERSIONS / 3));
  expect(index.leftBytes).toBeLessThanOrEqual(MAX_LEFT_PER_QUERY_BYTES);
  expect(scan.result.Count).toBe(VERSIONS);
  expect(scan.leftBytes).toBeLessThanOrEqual(MAX_LEFT_PER_QUERY_BYTES);
});
