import {
  DeleteCommand,
  type DeleteCommandInput,
  type DeleteCommandOutput,
  type DynamoDBDocumentClient,
  PutCommand,
  type PutCommandInput,
  type PutCommandOutput,
  type QueryCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
  type UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import {
  callStore,
  callStoreUnlessRefused,
  type ConditionFailure,
  getItem,
  partitionQuery,
  queryAll,
} from '../../lambda/data/store-calls';

type WithoutTable<T> = Omit<T, 'TableName'>;

/** What a refused conditional write means to the caller: a value to go on with, or an error it throws. */
type OnRefusal<R> = (failure: ConditionFailure) => R | Promise<R>;

/**
 * The table as the operator tools use it: one client with the operator timeouts (createDocumentClient),
 * no request deadline, strongly consistent reads, and the same calls as the API's (store-calls.ts).
 */
export class AdminTable {
  constructor(
    readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
    readonly now: () => Date,
  ) {}

  timestamp(): string {
    return this.now().toISOString();
  }

  get<T>(operation: string, key: Record<string, string>): Promise<T | undefined> {
    return getItem<T>(this.client, this.tableName, operation, key);
  }

  query<T>(operation: string, input: WithoutTable<QueryCommandInput>): Promise<T[]> {
    return queryAll<T>(this.client, operation, { TableName: this.tableName, ...input });
  }

  queryPartition<T>(
    operation: string,
    accountId: string,
    skPrefix: string,
    extra: Partial<QueryCommandInput> = {},
  ): Promise<T[]> {
    return queryAll<T>(this.client, operation, partitionQuery(this.tableName, accountId, skPrefix, extra));
  }

  /** A put; without `onRefusal`, a failed condition is an error like any other. */
  put<R = never>(operation: string, input: WithoutTable<PutCommandInput>, onRefusal?: OnRefusal<R>): Promise<PutCommandOutput | R> {
    return this.write(operation, () => this.client.send(new PutCommand({ TableName: this.tableName, ...input })), onRefusal);
  }

  /** An update; without `onRefusal`, a failed condition is an error like any other. */
  update<R = never>(
    operation: string,
    input: WithoutTable<UpdateCommandInput>,
    onRefusal?: OnRefusal<R>,
  ): Promise<UpdateCommandOutput | R> {
    return this.write(operation, () => this.client.send(new UpdateCommand({ TableName: this.tableName, ...input })), onRefusal);
  }

  /** A delete; without `onRefusal`, a failed condition is an error like any other. */
  delete<R = never>(
    operation: string,
    input: WithoutTable<DeleteCommandInput>,
    onRefusal?: OnRefusal<R>,
  ): Promise<DeleteCommandOutput | R> {
    return this.write(operation, () => this.client.send(new DeleteCommand({ TableName: this.tableName, ...input })), onRefusal);
  }

  /**
   * Sets attributes of an item that exists (`SET #name = :name, ...`); without `onMissing`, a missing
   * item is an error like any other.
   */
  setOnExisting<R = never>(
    operation: string,
    key: Record<string, string>,
    fields: Record<string, unknown>,
    options: { onMissing?: OnRefusal<R>; returnValues?: UpdateCommandInput['ReturnValues'] } = {},
  ): Promise<UpdateCommandOutput | R> {
    const names = Object.keys(fields);
    return this.update(
      operation,
      {
        Key: key,
        UpdateExpression: `SET ${names.map((name) => `#${name} = :${name}`).join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: Object.fromEntries(names.map((name) => [`#${name}`, name])),
        ExpressionAttributeValues: Object.fromEntries(names.map((name) => [`:${name}`, fields[name]])),
        ...(options.returnValues ? { ReturnValues: options.returnValues } : {}),
      },
      options.onMissing,
    );
  }

  private write<T, R>(operation: string, call: () => Promise<T>, onRefusal: OnRefusal<R> | undefined): Promise<T | R> {
    return onRefusal ? callStoreUnlessRefused(operation, call, onRefusal) : callStore(operation, call);
  }
}
