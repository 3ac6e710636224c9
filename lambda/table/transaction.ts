import { randomUUID } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { isStoreUnavailable } from './calls';
import { StoreUnavailableError } from './errors';

/**
 * One change, one DynamoDB transaction (TransactWriteItems): every item it writes, each with its own
 * condition, lands together or not at all (docs/data-model.md "One change, one transaction").
 */

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
type WithoutTable<T> = Omit<T, 'TableName'>;

type ConditionCheckAction = WithoutTable<NonNullable<TransactItem['ConditionCheck']>>;

/**
 * One action of a transaction, on the one table: the table's name is added when it is sent. A ConditionCheck
 * writes nothing: it holds what a change read of an item it does not write (the account's approvals, the label a
 * no-op found where it was asked to be) to the transaction. It is made by `conditionCheck` alone, where the
 * functions' access analysis finds it (lib/function-access.ts: `dynamodb:ConditionCheckItem`).
 */
export type TransactionWrite =
  | { readonly Put: WithoutTable<NonNullable<TransactItem['Put']>> }
  | { readonly Update: WithoutTable<NonNullable<TransactItem['Update']>> }
  | { readonly Delete: WithoutTable<NonNullable<TransactItem['Delete']>> }
  | { readonly ConditionCheck: ConditionCheckAction };

/** The transaction commits only if the item meets the condition as it commits; the item is left as it is. */
export function conditionCheck(Key: Record<string, string>, condition: Omit<ConditionCheckAction, 'Key'>): TransactionWrite {
  return { ConditionCheck: { Key, ...condition } };
}

/** Whether the action writes its item (a ConditionCheck does not). */
export const writesItem = (write: TransactionWrite): boolean => !('ConditionCheck' in write);

/** DynamoDB's limit on the actions of one transaction. */
export const MAX_TRANSACTION_WRITES = 100;

/** Why one action of a cancelled transaction failed, in the order the actions were sent. */
export interface CancellationReason {
  /** `None` (this action was fine), `ConditionalCheckFailed`, `TransactionConflict`, ... */
  readonly code: string;
  /** The item as it stood, when the action asked for it (`ReturnValuesOnConditionCheckFailure: ALL_OLD`). */
  readonly item?: Record<string, unknown>;
}

/** A condition of the transaction failed: nothing was written. `reasons` line up with the actions sent. */
export class TransactionRefusedError extends Error {
  override readonly name = 'TransactionRefusedError';
  constructor(
    callName: string,
    readonly reasons: readonly CancellationReason[],
  ) {
    super(`${callName}: refused by a condition (${reasons.map((reason) => reason.code).join(', ')})`);
  }

  /** Whether the action at `index` is one whose condition failed. */
  failedAt(index: number): boolean {
    return this.reasons[index]?.code === 'ConditionalCheckFailed';
  }
}

/** Another transaction held one of the items: nothing was written, and trying again is safe. */
const CONFLICT_ATTEMPTS = 4;
const CONFLICT_BACKOFF_MS = 25;

export interface TransactOptions {
  /**
   * An item the transaction puts that exists only if it committed (an audit entry with a fresh key). When the
   * store does not say whether the transaction committed (a lost answer, a timeout), reading it decides: the
   * change is reported made only when it was.
   */
  readonly proof?: Record<string, string>;
  readonly abortSignal?: AbortSignal;
}

/** How long the proof read may take once the request's own deadline is spent. */
const PROOF_READ_MS = 1_000;

/**
 * Sends the writes as one transaction with a ClientRequestToken: the SDK's retries of an unanswered call
 * send the same token, which DynamoDB applies once (an UpdateItem retried is not idempotent; this is).
 * A condition that fails is a TransactionRefusedError; a conflict with another transaction is tried again
 * with a new token (nothing was applied). A transaction still in progress under the token (a retry of one
 * whose answer was lost) is asked again with the same token, which answers with its outcome: with a new
 * token it would be a second transaction, refused by what the first wrote. A store that cannot answer is a
 * StoreUnavailableError, unless the proof item shows the transaction committed. `callName` names the
 * transaction in each of those errors.
 */
export async function transact(
  client: DynamoDBDocumentClient,
  tableName: string,
  callName: string,
  writes: readonly TransactionWrite[],
  options: TransactOptions = {},
): Promise<void> {
  if (writes.length === 0) return;
  if (writes.length > MAX_TRANSACTION_WRITES)
    throw new RangeError(`${callName}: ${writes.length} writes, more than one transaction takes (${MAX_TRANSACTION_WRITES})`);
  const TransactItems = writes.map((write) => withTable(write, tableName));
  const sendOptions = options.abortSignal ? [{ abortSignal: options.abortSignal }] : [];
  let token = randomUUID();
  for (let attempt = 1; ; attempt += 1) {
    try {
      await client.send(new TransactWriteCommand({ TransactItems, ClientRequestToken: token }), ...sendOptions);
      return;
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (reasons) {
        if (reasons.some((reason) => reason.code === 'ConditionalCheckFailed')) throw new TransactionRefusedError(callName, reasons);
        if (reasons.some((reason) => reason.code === 'TransactionConflict') && attempt < CONFLICT_ATTEMPTS) {
          await sleep(Math.random() * CONFLICT_BACKOFF_MS * 2 ** attempt);
          token = randomUUID();
          continue;
        }
        throw new StoreUnavailableError(`${callName}: transaction cancelled (${reasons.map((reason) => reason.code).join(', ')})`, { cause: error });
      }
      const inProgress = error instanceof Error && error.name === 'TransactionInProgressException';
      if (inProgress && attempt < CONFLICT_ATTEMPTS) {
        await sleep(CONFLICT_BACKOFF_MS * 2 ** attempt);
        continue;
      }
      // Still in progress after every attempt: as unanswered, whether it committed is for the proof to say.
      if (!inProgress && !isStoreUnavailable(error)) throw error;
      if (options.proof && (await committed(client, tableName, options.proof))) return;
      throw new StoreUnavailableError(`${callName}: store unavailable (${(error as Error).name}); nothing was changed`, { cause: error });
    }
  }
}

/** Whether the proof item is there; a store that cannot say is taken as "no": the caller answers 503. */
async function committed(client: DynamoDBDocumentClient, tableName: string, key: Record<string, string>): Promise<boolean> {
  try {
    const result = await client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }), {
      abortSignal: AbortSignal.timeout(PROOF_READ_MS),
    });
    return result.Item !== undefined;
  } catch {
    return false;
  }
}

function withTable(write: TransactionWrite, TableName: string): TransactItem {
  if ('Put' in write) return { Put: { ...write.Put, TableName } };
  if ('Update' in write) return { Update: { ...write.Update, TableName } };
  if ('Delete' in write) return { Delete: { ...write.Delete, TableName } };
  return { ConditionCheck: { ...write.ConditionCheck, TableName } };
}

interface SdkCancellation {
  name?: unknown;
  CancellationReasons?: { Code?: string; Item?: Record<string, AttributeValue> }[];
}

/** The reasons of a TransactionCanceledException, in order; undefined for any other error. */
function cancellationReasons(error: unknown): CancellationReason[] | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { name, CancellationReasons } = error as SdkCancellation;
  if (name !== 'TransactionCanceledException') return undefined;
  return (CancellationReasons ?? []).map((reason) => ({
    code: reason.Code ?? 'None',
    ...(reason.Item ? { item: unmarshall(reason.Item) } : {}),
  }));
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
