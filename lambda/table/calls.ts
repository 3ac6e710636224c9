import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, type DynamoDBDocumentClient, GetCommand, paginateQuery, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { prefixes } from './schema';
import type { BuiltProjection } from './update-expression';
import { StoreUnavailableError } from './errors';

/**
 * How both stores call DynamoDB: the read API (lambda/read-api/store/) with its request's deadline, the operator
 * tools (admin/table/) without one. What a failure means is decided here, once, for both. Each call takes a
 * `callName`, the caller's name for it (`findLatestPrompt`, `revokeApiKey`): it only opens the message of the
 * error the call may end with, so a failure says which call it was.
 */

/** Throttling: the store refused the request before doing any of it. */
const THROTTLING_ERROR_NAMES = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);

/** Names the SDK gives to throttling and to the store failing or not answering in time. */
const UNAVAILABLE_ERROR_NAMES = new Set([
  ...THROTTLING_ERROR_NAMES,
  'InternalServerError',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  // The request's deadline passed (docs/read-api.md "Store faults"): the store did not answer in time.
  'AbortError',
]);

/** Network failures that happen before a request is sent: nothing reached the store. */
const NEVER_SENT_ERROR_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

const NETWORK_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

interface SdkErrorShape {
  name?: unknown;
  code?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

export function isStoreUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, code, $metadata } = error as SdkErrorShape;
  if (typeof name === 'string' && UNAVAILABLE_ERROR_NAMES.has(name)) return true;
  if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code)) return true;
  const status = $metadata?.httpStatusCode;
  return typeof status === 'number' && status >= 500;
}

/**
 * A failure that proves the store never applied the request, so that even a write that is not
 * idempotent may be sent again. A timeout after the request was sent, a reset connection or a 500
 * from the store prove nothing: the write may have been applied.
 */
export function isUnappliedFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, code, message } = error as SdkErrorShape & { message?: unknown };
  if (typeof name === 'string' && THROTTLING_ERROR_NAMES.has(name)) return true;
  if (typeof code === 'string' && NEVER_SENT_ERROR_CODES.has(code)) return true;
  // @smithy/node-http-handler's connection timeout is a TimeoutError without a code, told apart by its text.
  return name === 'TimeoutError' && typeof message === 'string' && message.includes('did not establish a connection');
}

/**
 * Runs one store call, turning "the store cannot answer" into StoreUnavailableError (its message opened by
 * `callName`) and leaving other errors alone.
 */
export async function callStore<T>(callName: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isStoreUnavailable(error)) {
      throw new StoreUnavailableError(`${callName}: store unavailable (${(error as Error).name})`, { cause: error });
    }
    throw error;
  }
}

/** A conditional write refused: the item as it stood, when the write asked for it (ReturnValuesOnConditionCheckFailure). */
export type ConditionFailure = Error & { Item?: Record<string, AttributeValue> };

/** Matched by name: the class identity differs between SDK copies, bundles and mocks. */
export function isConditionFailure(error: unknown): error is ConditionFailure {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/**
 * Runs a conditional write as callStore does; when its condition fails, `onConditionFailure` answers
 * instead (with a value, or by throwing what the failure means to the caller).
 */
export async function callStoreUnlessRefused<T, R>(
  callName: string,
  call: () => Promise<T>,
  onConditionFailure: (failure: ConditionFailure) => R | Promise<R>,
): Promise<T | R> {
  try {
    return await callStore(callName, call);
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return onConditionFailure(error);
  }
}

export interface ReadOptions {
  /** The API's request deadline: the call gives up when it aborts. Operator tools have none. */
  readonly abortSignal?: AbortSignal;
}

/** The SDK's per-call options: the abort signal when there is one, else none at all. */
const callOptions = ({ abortSignal }: ReadOptions): [] | [{ abortSignal: AbortSignal }] => (abortSignal ? [{ abortSignal }] : []);

/** One item by its key; strongly consistent unless `consistent` is false. */
export async function getItem<T>(
  client: DynamoDBDocumentClient,
  tableName: string,
  callName: string,
  key: Record<string, string>,
  options: ReadOptions & { readonly consistent?: boolean } = {},
): Promise<T | undefined> {
  const result = await callStore(callName, () =>
    client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: options.consistent ?? true }), ...callOptions(options)),
  );
  return result.Item as T | undefined;
}

/** A few items of one table in one round trip; keys the store leaves unprocessed are asked for again. */
const BATCH_GET_ATTEMPTS = 3;

/**
 * Several items by their keys, strongly consistent, in one BatchGetItem: one round trip where separate
 * GetItems would make several. Absent items are simply not returned. The store answers a batch it could
 * only partly serve (throttling) with the rest as UnprocessedKeys: those are asked for again, a few
 * times, and then the store counts as unavailable.
 */
export async function batchGetItems<T>(
  client: DynamoDBDocumentClient,
  tableName: string,
  callName: string,
  keys: readonly Record<string, string>[],
  options: ReadOptions & { readonly projection?: BuiltProjection } = {},
): Promise<T[]> {
  const found: T[] = [];
  let pending: Record<string, unknown>[] = [...keys];
  for (let attempt = 1; pending.length > 0; attempt += 1) {
    if (attempt > BATCH_GET_ATTEMPTS) {
      throw new StoreUnavailableError(`${callName}: ${pending.length} key(s) still unprocessed after ${BATCH_GET_ATTEMPTS} attempts`);
    }
    const request = {
      Keys: pending,
      ConsistentRead: true,
      ...options.projection,
    };
    const result = await callStore(callName, () => client.send(new BatchGetCommand({ RequestItems: { [tableName]: request } }), ...callOptions(options)));
    found.push(...((result.Responses?.[tableName] ?? []) as T[]));
    pending = result.UnprocessedKeys?.[tableName]?.Keys ?? [];
  }
  return found;
}

/** Follows LastEvaluatedKey to the end: the store's 1 MB pages are never the caller's problem. */
export async function queryAll<T>(client: DynamoDBDocumentClient, callName: string, input: QueryCommandInput, options: ReadOptions = {}): Promise<T[]> {
  const pages = paginateQuery({ client }, input, ...callOptions(options));
  const items: T[] = [];
  await callStore(callName, async () => {
    for await (const page of pages) {
      items.push(...((page.Items ?? []) as T[]));
    }
  });
  return items;
}

/** The items of one account's partition whose sort key starts with `skPrefix` (schema.ts `prefixes`). */
export function partitionQuery(tableName: string, accountId: string, skPrefix: string, extra: Partial<QueryCommandInput> = {}): QueryCommandInput {
  const { ExpressionAttributeValues: extraValues, ...rest } = extra;
  return {
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': prefixes.accountPartition(accountId), ':prefix': skPrefix, ...extraValues },
    ...rest,
  };
}
