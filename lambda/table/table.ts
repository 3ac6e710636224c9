import {
  DeleteCommand,
  type DeleteCommandInput,
  type DeleteCommandOutput,
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  type PutCommandInput,
  type PutCommandOutput,
  type QueryCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
  type UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { callStore, callStoreUnlessRefused, type ConditionFailure, getItem, partitionQuery, queryAll } from './calls';
import { batchGet } from './batch-io';
import { type TransactionWrite, transact } from './transaction';
import { buildUpdate } from './update-expression';

type WithoutTable<T> = Omit<T, 'TableName'>;

/** What a refused conditional write means to the caller: a value to go on with, or an error it throws. */
type OnRefusal<R> = (failure: ConditionFailure) => R | Promise<R>;

/** How a Table's calls are made: which client writes, and the request's deadline. */
export interface TableCallOptions {
  /** Writes go here when given (the management functions' client that retries only writes never applied). */
  readonly writeClient?: DynamoDBDocumentClient;
  /** A request's deadline: every call gives up when it aborts. Operator tools have none. */
  readonly abortSignal?: AbortSignal;
}

/**
 * The one table as people's changes and the reads around them use it (the management API, the admin CLI,
 * prompts as code): strongly consistent reads, conditional writes, transactions (transaction.ts), and the same
 * calls as the read API's (calls.ts). The read API has a way in of its own (lambda/read-api/store/). Made with the operator
 * tools' client (createDocumentClient) by the CLI, and with the request's deadline by the management API. Each
 * method's `callName` names its store call in the errors it may end with (calls.ts).
 */
export class Table {
  constructor(
    readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
    readonly now: () => Date,
    readonly options: TableCallOptions = {},
  ) {}

  /** The same table and clock, its calls bound by another deadline. */
  withDeadline(abortSignal: AbortSignal): Table {
    return new Table(this.client, this.tableName, this.now, { ...this.options, abortSignal });
  }

  private get sendOptions(): [] | [{ abortSignal: AbortSignal }] {
    return this.options.abortSignal ? [{ abortSignal: this.options.abortSignal }] : [];
  }

  private get writer(): DynamoDBDocumentClient {
    return this.options.writeClient ?? this.client;
  }

  timestamp(): string {
    return this.now().toISOString();
  }

  get<T>(callName: string, key: Record<string, string>): Promise<T | undefined> {
    return getItem<T>(this.client, this.tableName, callName, key, { abortSignal: this.options.abortSignal });
  }

  query<T>(callName: string, input: WithoutTable<QueryCommandInput>): Promise<T[]> {
    return queryAll<T>(this.client, callName, { TableName: this.tableName, ...input }, { abortSignal: this.options.abortSignal });
  }

  /** One page of a query (its Limit, or the store's 1 MB), not followed further; `more` when the store has more. */
  async queryPage<T>(callName: string, input: WithoutTable<QueryCommandInput>): Promise<{ items: T[]; more: boolean; lastKey?: Record<string, unknown> }> {
    const result = await callStore(callName, () => this.client.send(new QueryCommand({ TableName: this.tableName, ...input }), ...this.sendOptions));
    return {
      items: (result.Items ?? []) as T[],
      more: result.LastEvaluatedKey !== undefined,
      ...(result.LastEvaluatedKey ? { lastKey: result.LastEvaluatedKey } : {}),
    };
  }

  queryPartition<T>(callName: string, accountId: string, skPrefix: string, extra: Partial<QueryCommandInput> = {}): Promise<T[]> {
    return queryAll<T>(this.client, callName, partitionQuery(this.tableName, accountId, skPrefix, extra), {
      abortSignal: this.options.abortSignal,
    });
  }

  /** Many items by key, strongly consistent, 100 per call; absent ones are left out. With `attributes`, only those of each. */
  batchGet<T>(keys: readonly Record<string, string>[], attributes?: readonly string[]): Promise<T[]> {
    return batchGet<T>(this.client, this.tableName, keys, this.options.abortSignal, attributes);
  }

  /** A put; without `onRefusal`, a failed condition is an error like any other. */
  put<R = never>(callName: string, input: WithoutTable<PutCommandInput>, onRefusal?: OnRefusal<R>): Promise<PutCommandOutput | R> {
    return this.write(callName, () => this.writer.send(new PutCommand({ TableName: this.tableName, ...input }), ...this.sendOptions), onRefusal);
  }

  /** An update; without `onRefusal`, a failed condition is an error like any other. */
  update<R = never>(callName: string, input: WithoutTable<UpdateCommandInput>, onRefusal?: OnRefusal<R>): Promise<UpdateCommandOutput | R> {
    return this.write(callName, () => this.writer.send(new UpdateCommand({ TableName: this.tableName, ...input }), ...this.sendOptions), onRefusal);
  }

  /** A delete; without `onRefusal`, a failed condition is an error like any other. */
  delete<R = never>(callName: string, input: WithoutTable<DeleteCommandInput>, onRefusal?: OnRefusal<R>): Promise<DeleteCommandOutput | R> {
    return this.write(callName, () => this.writer.send(new DeleteCommand({ TableName: this.tableName, ...input }), ...this.sendOptions), onRefusal);
  }

  /**
   * Sets attributes of an item that exists (undefined ones are left as they are); without `onMissing`, a
   * missing item is an error like any other.
   */
  setOnExisting<R = never>(
    callName: string,
    key: Record<string, string>,
    fields: Record<string, unknown>,
    options: { onMissing?: OnRefusal<R>; returnValues?: UpdateCommandInput['ReturnValues'] } = {},
  ): Promise<UpdateCommandOutput | R> {
    return this.update(
      callName,
      {
        Key: key,
        ...buildUpdate({ set: fields, condition: (e) => `attribute_exists(${e.name('pk')})` }),
        ...(options.returnValues ? { ReturnValues: options.returnValues } : {}),
      },
      options.onMissing,
    );
  }

  /**
   * One transaction (transaction.ts): all of the writes or none. Sent through the reading client, which
   * retries any unanswered call: the transaction's token makes a retry apply it once.
   */
  transact(callName: string, writes: readonly TransactionWrite[], options: { proof?: Record<string, string> } = {}): Promise<void> {
    return transact(this.client, this.tableName, callName, writes, {
      ...options,
      ...(this.options.abortSignal ? { abortSignal: this.options.abortSignal } : {}),
    });
  }

  private write<T, R>(callName: string, call: () => Promise<T>, onRefusal: OnRefusal<R> | undefined): Promise<T | R> {
    return onRefusal ? callStoreUnlessRefused(callName, call, onRefusal) : callStore(callName, call);
  }
}
