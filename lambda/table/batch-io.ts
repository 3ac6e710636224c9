import { BatchGetCommand, BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { callStore } from './calls';
import { buildProjection } from './update-expression';

/** DynamoDB's own limits per call. */
const BATCH_WRITE_LIMIT = 25;
const BATCH_GET_LIMIT = 100;
/** Calls in flight at once: enough to hide round trips, few enough not to provoke throttling. */
const CONCURRENT_CALLS = 4;
/** Unprocessed items are the store asking us to slow down: back off, but never give up on them silently. */
const MAX_ATTEMPTS = 8;

type Key = Record<string, string>;

export class IncompleteBatchError extends Error {
  override readonly name = 'IncompleteBatchError';
}

/** Puts every item, 25 per BatchWriteItem, retrying what the store leaves unprocessed. */
export async function batchPut(client: DynamoDBDocumentClient, tableName: string, items: readonly object[]): Promise<void> {
  await inChunks(items, BATCH_WRITE_LIMIT, async (chunk) => {
    let requests = chunk.map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 1; requests.length > 0; attempt += 1) {
      if (attempt > MAX_ATTEMPTS) {
        throw new IncompleteBatchError(`batchPut: ${requests.length} item(s) still unprocessed after ${MAX_ATTEMPTS} attempts`);
      }
      if (attempt > 1) await backOff(attempt);
      const result = await callStore('batchPut', () => client.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests } })));
      requests = (result.UnprocessedItems?.[tableName] ?? []) as typeof requests;
    }
  });
}

/**
 * Reads every key, 100 per BatchGetItem, strongly consistent; absent items are simply not returned. With
 * `attributes`, only those are read (plain names: a `.` would read as a path).
 */
export async function batchGet<T>(
  client: DynamoDBDocumentClient,
  tableName: string,
  keys: readonly Key[],
  abortSignal?: AbortSignal,
  attributes?: readonly string[],
): Promise<T[]> {
  const projection = attributes === undefined ? {} : buildProjection(attributes);
  const found: T[] = [];
  await inChunks(keys, BATCH_GET_LIMIT, async (chunk) => {
    let pending: Key[] = [...chunk];
    for (let attempt = 1; pending.length > 0; attempt += 1) {
      if (attempt > MAX_ATTEMPTS) {
        throw new IncompleteBatchError(`batchGet: ${pending.length} key(s) still unprocessed after ${MAX_ATTEMPTS} attempts`);
      }
      if (attempt > 1) await backOff(attempt);
      const result = await callStore('batchGet', () =>
        client.send(
          new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true, ...projection } } }),
          ...(abortSignal ? [{ abortSignal }] : []),
        ),
      );
      found.push(...((result.Responses?.[tableName] ?? []) as T[]));
      pending = (result.UnprocessedKeys?.[tableName]?.Keys ?? []) as Key[];
    }
  });
  return found;
}

async function inChunks<T>(values: readonly T[], size: number, work: (chunk: T[]) => Promise<void>): Promise<void> {
  const chunks: T[][] = [];
  for (let start = 0; start < values.length; start += size) chunks.push(values.slice(start, start + size));
  let next = 0;
  const worker = async () => {
    while (next < chunks.length) {
      const chunk = chunks[next];
      next += 1;
      if (chunk) await work(chunk);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_CALLS, chunks.length) }, worker));
}

/** Single-item writes, a few at a time: fast for a large import without flooding the store. */
const PARALLEL_WRITES = 16;

export async function inBatches<T>(items: readonly T[], write: (item: T) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += PARALLEL_WRITES) {
    await Promise.all(items.slice(start, start + PARALLEL_WRITES).map(write));
  }
}

const backOff = (attempt: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.min(1_000, 25 * 2 ** attempt) * (0.5 + Math.random() / 2)));
