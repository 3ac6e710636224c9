import {
  type AttributeValue,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  type QueryCommandInput,
  TransactGetItemsCommand,
  type TransactGetItemsCommandInput,
  TransactWriteItemsCommand,
  type TransactWriteItem,
  type TransactWriteItemsCommandInput,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { ADMIN_INDEX, adminIndexKeys, keys, prefixes } from '../../lambda/table/schema';

/**
 * The store contract: what the service relies on a DynamoDB store to do, each case one behaviour, run
 * as it is against the embedded store (dynalite) and against AWS's DynamoDB Local. A case's outcome
 * is plain data (results, error names, cancellation reasons, items read back): its check holds each
 * store's to the behaviour, and contract.test.ts holds the two stores' outcomes to each other.
 */
export interface StoreUnderTest {
  readonly client: DynamoDBClient;
  readonly table: string;
}

/** A case's store, and a partition of the table (ACCOUNT#<account>) no other case writes to. */
export interface CaseContext extends StoreUnderTest {
  readonly account: string;
}

export interface ContractCase<T = unknown> {
  readonly name: string;
  run(context: CaseContext): Promise<T>;
  check(outcome: T): void;
}

const contractCase = <T>(name: string, run: (context: CaseContext) => Promise<T>, check: (outcome: T) => void) =>
  ({ name, run, check }) as ContractCase<T> as ContractCase;

// ---- values, items and answers as plain data

type Item = Record<string, AttributeValue>;

const s = (value: string): AttributeValue => ({ S: value });
const n = (value: number): AttributeValue => ({ N: String(value) });
const av = (key: Record<string, string>): Item => Object.fromEntries(Object.entries(key).map(([name, value]) => [name, s(value)]));

/** Sets have no order: their members sorted, so that two stores' items compare equal. */
function normalized(item: Item | undefined): Item | undefined {
  if (!item) return undefined;
  return Object.fromEntries(Object.entries(item).map(([name, value]) => [name, normalizedValue(value)]));
}

function normalizedValue(value: AttributeValue): AttributeValue {
  if (value.SS) return { SS: [...value.SS].sort() };
  if (value.NS) return { NS: [...value.NS].sort() };
  if (value.M) return { M: normalized(value.M) as Item };
  if (value.L) return { L: value.L.map(normalizedValue) };
  return value;
}

interface Reason {
  readonly code: string | undefined;
  readonly message?: string;
  readonly item?: Item;
}

/** A request the store refused: the error's name, and what DynamoDB puts on it for the caller. */
interface Refusal {
  readonly refused: string;
  /** TransactionCanceledException's message, which names every reason's code. */
  readonly message?: string;
  readonly reasons?: Reason[];
  /** ConditionalCheckFailedException's item (ReturnValuesOnConditionCheckFailure: ALL_OLD). */
  readonly item?: Item;
}

type Answer<T> = { readonly ok: T } | Refusal;

async function answer<T>(call: () => Promise<T>): Promise<Answer<T>> {
  try {
    return { ok: await call() };
  } catch (error) {
    return refusal(error);
  }
}

function refusal(error: unknown): Refusal {
  const failure = error as Error & {
    CancellationReasons?: { Code?: string; Message?: string; Item?: Item }[];
    Item?: Item;
    $metadata?: unknown;
  };
  if (!(failure instanceof Error) || failure.$metadata === undefined) throw error;
  return {
    refused: failure.name,
    ...(failure.name === 'TransactionCanceledException' ? { message: failure.message } : {}),
    ...(failure.CancellationReasons
      ? {
          reasons: failure.CancellationReasons.map((reason) => ({
            code: reason.Code,
            // DynamoDB Local ends this one message with a full stop, DynamoDB and dynalite do not.
            ...(reason.Message ? { message: reason.Message.replace(/\.$/, '') } : {}),
            ...(reason.Item ? { item: normalized(reason.Item) } : {}),
          })),
        }
      : {}),
    ...(failure.Item ? { item: normalized(failure.Item) } : {}),
  };
}

const refusedAs = (outcome: Answer<unknown>): string | undefined => ('refused' in outcome ? outcome.refused : undefined);

const CONDITION_FAILED = 'The conditional request failed';

// ---- store calls

const write = (context: CaseContext, items: TransactWriteItem[], extra: Partial<TransactWriteItemsCommandInput> = {}) =>
  answer(async () => {
    const result = await context.client.send(new TransactWriteItemsCommand({ TransactItems: items, ...extra }));
    return { consumed: result.ConsumedCapacity, collections: result.ItemCollectionMetrics };
  });

async function putItem(context: StoreUnderTest, item: Item): Promise<void> {
  await context.client.send(new PutItemCommand({ TableName: context.table, Item: item }));
}

async function read(context: StoreUnderTest, key: Item): Promise<Item | undefined> {
  const result = await context.client.send(new GetItemCommand({ TableName: context.table, Key: key, ConsistentRead: true }));
  return normalized(result.Item);
}

async function countPartition(context: CaseContext, prefix: string): Promise<number | undefined> {
  const result = await context.client.send(
    new QueryCommand({
      TableName: context.table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': s(prefixes.accountPartition(context.account)), ':prefix': s(prefix) },
      Select: 'COUNT',
      ConsistentRead: true,
    }),
  );
  return result.Count;
}

/** Every page of a query, each as the sort keys it holds and the key it says to start the next from. */
async function pages(context: StoreUnderTest, input: Omit<QueryCommandInput, 'TableName'>, sortKey: string) {
  const found: { items: (string | undefined)[]; lastKey: Item | undefined }[] = [];
  let startKey: Item | undefined;
  do {
    const page = await context.client.send(new QueryCommand({ TableName: context.table, ...input, ...(startKey ? { ExclusiveStartKey: startKey } : {}) }));
    startKey = page.LastEvaluatedKey;
    found.push({ items: (page.Items ?? []).map((item) => item[sortKey]?.S), lastKey: normalized(startKey) });
  } while (startKey && found.length < 10);
  return found;
}

// Items of a case's partition, built with the service's own key design (lambda/table/schema.ts).
const head = (context: CaseContext, promptId: string): Item => av(keys.promptHead(context.account, promptId));
const apiKey = (context: CaseContext, keyId: string): Item => av(keys.apiKey(`${context.account}-${keyId}`));

const put = (context: CaseContext, item: Item, extra: object = {}): TransactWriteItem => ({
  Put: { TableName: context.table, Item: item, ...extra },
});
const update = (context: CaseContext, key: Item, expression: string, extra: object = {}): TransactWriteItem => ({
  Update: { TableName: context.table, Key: key, UpdateExpression: expression, ...extra },
});
const remove = (context: CaseContext, key: Item, extra: object = {}): TransactWriteItem => ({
  Delete: { TableName: context.table, Key: key, ...extra },
});
const conditionCheck = (context: CaseContext, key: Item, expression: string, extra: object = {}): TransactWriteItem => ({
  ConditionCheck: { TableName: context.table, Key: key, ConditionExpression: expression, ...extra },
});

/**
 * Real DynamoDB cancels a transaction that collides with another in flight (TransactionConflict) and
 * the SDK leaves retrying it to the caller; the isolation cases retry those, and only those.
 */
async function untilNoConflict<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const failure = error as Error & { CancellationReasons?: { Code?: string }[] };
      const conflict =
        failure.name === 'TransactionConflictException' ||
        failure.name === 'TransactionInProgressException' ||
        (failure.name === 'TransactionCanceledException' && (failure.CancellationReasons ?? []).some((reason) => reason.Code === 'TransactionConflict'));
      if (!conflict || attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
    }
  }
}

// ---- the cases

export const transactionCases: ContractCase[] = [
  contractCase(
    'a Put, an Update, a Delete and a ConditionCheck in one transaction all apply',
    async (context) => {
      const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((id) => head(context, id)) as [Item, Item, Item, Item];
      await putItem(context, { ...a, n: n(1) });
      await putItem(context, { ...b, name: s('to delete') });
      await putItem(context, { ...c, status: s('active') });
      const result = await write(context, [
        put(context, { ...d, name: s('new') }, { ConditionExpression: 'attribute_not_exists(pk)' }),
        update(context, a, 'SET #name = :name ADD n :one', {
          ExpressionAttributeNames: { '#name': 'name' },
          ExpressionAttributeValues: { ':name': s('updated'), ':one': n(1) },
        }),
        remove(context, b, { ConditionExpression: 'attribute_exists(pk)' }),
        conditionCheck(context, c, '#status = :active', {
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':active': s('active') },
        }),
      ]);
      return { result: refusedAs(result) ?? 'ok', a: await read(context, a), b: await read(context, b), d: await read(context, d) };
    },
    (outcome) => {
      expect(outcome.result).toBe('ok');
      expect(outcome.a).toMatchObject({ n: n(2), name: s('updated') });
      expect(outcome.b).toBeUndefined();
      expect(outcome.d).toMatchObject({ name: s('new') });
    },
  ),

  contractCase(
    'one failed condition cancels the whole transaction: nothing of it is written',
    async (context) => {
      const [a, c, d] = ['a', 'c', 'd'].map((id) => head(context, id)) as [Item, Item, Item];
      await putItem(context, { ...a, n: n(1) });
      await putItem(context, { ...c, status: s('disabled') });
      const result = await write(context, [
        put(context, { ...d, name: s('new') }),
        update(context, a, 'ADD n :one', { ExpressionAttributeValues: { ':one': n(1) } }),
        conditionCheck(context, c, '#status = :active', {
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':active': s('active') },
        }),
      ]);
      return { result, a: await read(context, a), d: await read(context, d) };
    },
    (outcome) => {
      expect(outcome.result).toMatchObject({
        refused: 'TransactionCanceledException',
        message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [None, None, ConditionalCheckFailed]',
      });
      expect(outcome.a).toMatchObject({ n: n(1) });
      expect(outcome.d).toBeUndefined();
    },
  ),

  contractCase(
    'CancellationReasons: one per action in order, with the stored item only where ALL_OLD was asked and the item exists',
    async (context) => {
      const [e1, e2, e3, fresh, missing] = ['e1', 'e2', 'e3', 'fresh', 'missing'].map((id) => head(context, id)) as Item[] as [Item, Item, Item, Item, Item];
      for (const item of [e1, e2, e3]) await putItem(context, { ...item, n: n(5), tags: { SS: ['b', 'a'] } });
      const six = { ExpressionAttributeValues: { ':six': n(6) } };
      return write(context, [
        conditionCheck(context, e1, 'n = :six', { ...six, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
        put(context, fresh, { ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
        update(context, e2, 'SET n = :six', { ...six, ConditionExpression: 'n = :six' }),
        remove(context, missing, { ConditionExpression: 'attribute_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
        put(context, e3, { ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'NONE' }),
      ]);
    },
    (outcome) => {
      const failed = { code: 'ConditionalCheckFailed', message: CONDITION_FAILED };
      expect(outcome).toEqual({
        refused: 'TransactionCanceledException',
        message:
          'Transaction cancelled, please refer cancellation reasons for specific reasons ' +
          '[ConditionalCheckFailed, None, ConditionalCheckFailed, ConditionalCheckFailed, ConditionalCheckFailed]',
        reasons: [{ ...failed, item: expect.objectContaining({ n: n(5), tags: { SS: ['a', 'b'] } }) }, { code: 'None' }, failed, failed, failed],
      });
    },
  ),

  contractCase(
    'each action reads its own ExpressionAttributeNames and ExpressionAttributeValues',
    async (context) => {
      const [x, y, z] = ['x', 'y', 'z'].map((id) => head(context, id)) as [Item, Item, Item];
      await putItem(context, { ...x, status: s('active') });
      await putItem(context, { ...y, plan: s('free') });
      const result = await write(context, [
        conditionCheck(context, x, '#a = :v', { ExpressionAttributeNames: { '#a': 'status' }, ExpressionAttributeValues: { ':v': s('active') } }),
        conditionCheck(context, y, '#a = :v', { ExpressionAttributeNames: { '#a': 'plan' }, ExpressionAttributeValues: { ':v': s('free') } }),
        put(context, { ...z, name: s('z') }),
      ]);
      return { result: refusedAs(result) ?? 'ok', z: await read(context, z) };
    },
    (outcome) => {
      expect(outcome.result).toBe('ok');
      expect(outcome.z).toMatchObject({ name: s('z') });
    },
  ),

  contractCase(
    'the same ClientRequestToken and request again within 10 minutes succeeds and changes nothing more',
    async (context) => {
      const a = head(context, 'a');
      const token = randomUUID();
      const items = [update(context, a, 'ADD n :one', { ExpressionAttributeValues: { ':one': n(1) } })];
      const first = await write(context, items, { ClientRequestToken: token });
      const again = await write(context, items, { ClientRequestToken: token });
      return { first: refusedAs(first) ?? 'ok', again: refusedAs(again) ?? 'ok', a: await read(context, a) };
    },
    (outcome) => {
      expect(outcome).toEqual({ first: 'ok', again: 'ok', a: expect.objectContaining({ n: n(1) }) });
    },
  ),

  contractCase(
    'the same ClientRequestToken with other TransactItems is refused (IdempotentParameterMismatchException)',
    async (context) => {
      const [a, b] = ['a', 'b'].map((id) => head(context, id)) as [Item, Item];
      const token = randomUUID();
      const first = await write(context, [put(context, a)], { ClientRequestToken: token });
      const other = await write(context, [put(context, b)], { ClientRequestToken: token });
      return { first: refusedAs(first) ?? 'ok', other: refusedAs(other), b: await read(context, b) };
    },
    (outcome) => {
      expect(outcome).toEqual({ first: 'ok', other: 'IdempotentParameterMismatchException', b: undefined });
    },
  ),

  contractCase(
    '100 actions in one transaction are all written',
    async (context) => {
      const items = Array.from({ length: 100 }, (_, i) => put(context, head(context, `p${String(i).padStart(3, '0')}`)));
      const result = await write(context, items);
      return { result: refusedAs(result) ?? 'ok', count: await countPartition(context, prefixes.promptHeads) };
    },
    (outcome) => {
      expect(outcome).toEqual({ result: 'ok', count: 100 });
    },
  ),

  contractCase(
    '101 actions are refused (ValidationException) and nothing is written',
    async (context) => {
      const items = Array.from({ length: 101 }, (_, i) => put(context, head(context, `p${String(i).padStart(3, '0')}`)));
      const result = await write(context, items);
      return { result: refusedAs(result), count: await countPartition(context, prefixes.promptHeads) };
    },
    (outcome) => {
      expect(outcome).toEqual({ result: 'ValidationException', count: 0 });
    },
  ),

  contractCase(
    'two actions on one item are refused (ValidationException) and nothing is written',
    async (context) => {
      const [a, b] = ['a', 'b'].map((id) => head(context, id)) as [Item, Item];
      // ConditionCheck before the Put: DynamoDB Local lets a ConditionCheck that follows a Put of its item
      // through (and checks it against the Put's item), where DynamoDB refuses the request either way.
      const result = await write(context, [put(context, b), conditionCheck(context, a, 'attribute_not_exists(pk)'), put(context, a)]);
      return { result: refusedAs(result), a: await read(context, a), b: await read(context, b) };
    },
    (outcome) => {
      expect(outcome).toEqual({ result: 'ValidationException', a: undefined, b: undefined });
    },
  ),

  contractCase(
    'an empty TransactItems is refused (ValidationException)',
    async (context) => refusedAs(await write(context, [])),
    (outcome) => {
      expect(outcome).toBe('ValidationException');
    },
  ),

  contractCase(
    'an action on a table that does not exist is refused (ResourceNotFoundException)',
    async (context) => refusedAs(await write(context, [{ Put: { TableName: 'no-such-table', Item: head(context, 'a') } }])),
    (outcome) => {
      expect(outcome).toBe('ResourceNotFoundException');
    },
  ),

  contractCase(
    'a key without its sort key is refused (ValidationException)',
    async (context) => refusedAs(await write(context, [remove(context, { pk: s(prefixes.accountPartition(context.account)) })])),
    (outcome) => {
      expect(outcome).toBe('ValidationException');
    },
  ),

  contractCase(
    'a condition naming an expression value the action does not give is refused (ValidationException)',
    async (context) => refusedAs(await write(context, [conditionCheck(context, head(context, 'a'), 'n = :missing')])),
    (outcome) => {
      expect(outcome).toBe('ValidationException');
    },
  ),

  contractCase(
    "the admin index (gsi1) follows a transaction's Put, Update and Delete",
    async (context) => {
      const [k1, k2, k3] = ['k1', 'k2', 'k3'].map((id) => apiKey(context, id)) as [Item, Item, Item];
      const indexed = (keyId: string) => av(adminIndexKeys.apiKey(context.account, keyId));
      // `used#2026-01` is not among the index's attributes (ADMIN_INDEX_ATTRIBUTES): it must not be copied there.
      await putItem(context, { ...k1, ...indexed('k1'), keyId: s('k1'), status: s('active'), 'used#2026-01': n(3) });
      await putItem(context, { ...k2, ...indexed('k2'), keyId: s('k2'), status: s('active') });
      const result = await write(context, [
        put(context, { ...k3, ...indexed('k3'), keyId: s('k3'), status: s('active') }),
        update(context, k1, 'SET #status = :revoked', {
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':revoked': s('revoked') },
        }),
        remove(context, k2),
      ]);
      const listed = await context.client.send(
        new QueryCommand({
          TableName: context.table,
          IndexName: ADMIN_INDEX,
          KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
          ExpressionAttributeValues: { ':pk': s(adminIndexKeys.keysOf(context.account)), ':prefix': s(adminIndexKeys.apiKeyPrefix) },
        }),
      );
      return { result: refusedAs(result) ?? 'ok', listed: (listed.Items ?? []).map(normalized) };
    },
    (outcome) => {
      expect(outcome.result).toBe('ok');
      expect(outcome.listed.map((item) => [item?.keyId?.S, item?.status?.S])).toEqual([
        ['k1', 'revoked'],
        ['k3', 'active'],
      ]);
      expect(outcome.listed[0]).not.toHaveProperty('used#2026-01');
    },
  ),

  contractCase(
    'TransactGetItems answers in request order, {} for a missing item, with ProjectionExpression and names',
    async (context) => {
      const [a, b, missing] = ['a', 'b', 'missing'].map((id) => head(context, id)) as [Item, Item, Item];
      await putItem(context, { ...a, name: s('a'), n: n(1) });
      await putItem(context, { ...b, name: s('b'), n: n(2), status: s('active') });
      return answer(async () => {
        const result = await context.client.send(
          new TransactGetItemsCommand({
            TransactItems: [
              { Get: { TableName: context.table, Key: b, ProjectionExpression: '#name, n', ExpressionAttributeNames: { '#name': 'name' } } },
              { Get: { TableName: context.table, Key: missing } },
              { Get: { TableName: context.table, Key: a } },
            ],
          }),
        );
        return (result.Responses ?? []).map((response) => normalized(response.Item) ?? null);
      });
    },
    (outcome) => {
      expect(outcome).toEqual({
        ok: [{ name: s('b'), n: n(2) }, null, expect.objectContaining({ name: s('a'), n: n(1) })],
      });
    },
  ),

  contractCase(
    'TransactGetItems with two Gets of one item is refused (ValidationException)',
    async (context) => {
      const get = { Get: { TableName: context.table, Key: head(context, 'a') } };
      return refusedAs(await answer(() => context.client.send(new TransactGetItemsCommand({ TransactItems: [get, get] }))));
    },
    (outcome) => {
      expect(outcome).toBe('ValidationException');
    },
  ),

  contractCase(
    'TransactGetItems with 101 Gets is refused (ValidationException)',
    async (context) => {
      const input: TransactGetItemsCommandInput = {
        TransactItems: Array.from({ length: 101 }, (_, i) => ({ Get: { TableName: context.table, Key: head(context, `p${i}`) } })),
      };
      return refusedAs(await answer(() => context.client.send(new TransactGetItemsCommand(input))));
    },
    (outcome) => {
      expect(outcome).toBe('ValidationException');
    },
  ),

  contractCase(
    'ReturnConsumedCapacity and ReturnItemCollectionMetrics are accepted by both transaction requests',
    async (context) => {
      const a = head(context, 'a');
      const written = await write(context, [put(context, a)], { ReturnConsumedCapacity: 'TOTAL', ReturnItemCollectionMetrics: 'SIZE' });
      const got = await answer(() =>
        context.client.send(new TransactGetItemsCommand({ TransactItems: [{ Get: { TableName: context.table, Key: a } }], ReturnConsumedCapacity: 'TOTAL' })),
      );
      return {
        written: 'ok' in written ? written.ok.consumed?.map((c) => [c.TableName, c.CapacityUnits]) : written,
        collections: 'ok' in written ? written.ok.collections : undefined,
        got: 'ok' in got ? got.ok.ConsumedCapacity?.map((c) => [c.TableName, c.CapacityUnits]) : got,
      };
    },
    (outcome) => {
      // A transaction costs twice the single-item requests: 2 units for one small item, written or read.
      expect(outcome).toEqual({ written: [[expect.any(String), 2]], collections: undefined, got: [[expect.any(String), 2]] });
    },
  ),

  contractCase(
    'a ConditionCheck with IN holds one of the listed values; a value not listed, or no item at all, cancels the transaction',
    async (context) => {
      // A counted approver's membership, as an approval that applies a change request holds it (role IN the approving roles).
      const [admin, viewer, gone, marker] = ['admin', 'viewer', 'gone', 'marker'].map((id) => av(keys.member(context.account, id))) as [Item, Item, Item, Item];
      await putItem(context, { ...admin, role: s('admin') });
      await putItem(context, { ...viewer, role: s('viewer') });
      const approving = {
        ExpressionAttributeNames: { '#role': 'role' },
        ExpressionAttributeValues: { ':admin': s('admin'), ':owner': s('owner') },
      };
      const holding = (member: Item) =>
        write(context, [
          conditionCheck(context, member, '#role IN (:admin, :owner)', approving),
          put(context, { ...marker, from: member.sk as AttributeValue }),
        ]);
      const held = await holding(admin);
      const notListed = await holding(viewer);
      const missing = await holding(gone);
      return {
        held: refusedAs(held) ?? 'ok',
        notListed: 'reasons' in notListed ? notListed.reasons?.map((reason) => reason.code) : notListed,
        missing: 'reasons' in missing ? missing.reasons?.map((reason) => reason.code) : missing,
        marker: await read(context, marker),
        checked: [await read(context, admin), await read(context, viewer), await read(context, gone)],
      };
    },
    (outcome) => {
      expect(outcome).toEqual({
        held: 'ok',
        notListed: ['ConditionalCheckFailed', 'None'],
        missing: ['ConditionalCheckFailed', 'None'],
        marker: expect.objectContaining({ from: expect.objectContaining({ S: expect.stringContaining('admin') }) }),
        // A ConditionCheck writes nothing.
        checked: [expect.objectContaining({ role: s('admin') }), expect.objectContaining({ role: s('viewer') }), undefined],
      });
    },
  ),

  contractCase(
    'a ConditionCheck holds its item to the commit: of two concurrent transactions that each check what the other writes, never both commit',
    async (context) => {
      // The write skew a check read before a transaction lets through: an approval that holds the approver's role while
      // it applies a request, and a demotion that holds the request still open while it demotes the approver.
      const rounds = await Promise.all(
        Array.from({ length: 10 }, async (_, round) => {
          const member = av(keys.member(context.account, `approver-${round}`));
          const request = head(context, `request-${round}`);
          await putItem(context, { ...member, role: s('admin') });
          await putItem(context, { ...request, state: s('open') });
          const [apply, demote] = await Promise.all([
            answer(() =>
              untilNoConflict(() =>
                context.client.send(
                  new TransactWriteItemsCommand({
                    TransactItems: [
                      conditionCheck(context, member, '#role = :admin', {
                        ExpressionAttributeNames: { '#role': 'role' },
                        ExpressionAttributeValues: { ':admin': s('admin') },
                      }),
                      update(context, request, 'SET #state = :applied', {
                        ExpressionAttributeNames: { '#state': 'state' },
                        ExpressionAttributeValues: { ':applied': s('applied') },
                      }),
                    ],
                  }),
                ),
              ),
            ),
            answer(() =>
              untilNoConflict(() =>
                context.client.send(
                  new TransactWriteItemsCommand({
                    TransactItems: [
                      conditionCheck(context, request, '#state = :open', {
                        ExpressionAttributeNames: { '#state': 'state' },
                        ExpressionAttributeValues: { ':open': s('open') },
                      }),
                      update(context, member, 'SET #role = :viewer', {
                        ExpressionAttributeNames: { '#role': 'role' },
                        ExpressionAttributeValues: { ':viewer': s('viewer') },
                      }),
                    ],
                  }),
                ),
              ),
            ),
          ]);
          const [state, role] = [(await read(context, request))?.state?.S, (await read(context, member))?.role?.S];
          // Exactly one commits, and the items show which: the outcome each round must have, whichever won.
          const applied = 'ok' in apply && !('ok' in demote) && state === 'applied' && role === 'admin';
          const demoted = 'ok' in demote && !('ok' in apply) && state === 'open' && role === 'viewer';
          return applied || demoted;
        }),
      );
      // Which one wins a round is the race's; that exactly one did, every round, is the contract.
      return { rounds: rounds.length, exactlyOneCommitted: rounds.filter(Boolean).length };
    },
    (outcome) => {
      expect(outcome).toEqual({ rounds: 10, exactlyOneCommitted: 10 });
    },
  ),

  contractCase(
    'concurrent transactions and single-item ADDs on the same items end with exact counts, and no read sees half a transaction',
    async (context) => {
      const [x, y] = ['x', 'y'].map((id) => head(context, id)) as [Item, Item];
      await putItem(context, { ...x, n: n(0), t: n(0) });
      await putItem(context, { ...y, n: n(0), t: n(0) });
      const both = { ExpressionAttributeValues: { ':one': n(1) } };
      const calls: (() => Promise<unknown>)[] = [];
      const reads: [string | undefined, string | undefined][] = [];
      for (let i = 0; i < 20; i++) {
        calls.push(() =>
          context.client.send(
            new TransactWriteItemsCommand({
              TransactItems: [update(context, x, 'ADD n :one, t :one', both), update(context, y, 'ADD n :one, t :one', both)],
            }),
          ),
        );
        for (const key of [x, y]) {
          calls.push(() => context.client.send(new UpdateItemCommand({ TableName: context.table, Key: key, UpdateExpression: 'ADD n :one', ...both })));
        }
        calls.push(async () => {
          const got = await context.client.send(
            new TransactGetItemsCommand({
              TransactItems: [{ Get: { TableName: context.table, Key: x } }, { Get: { TableName: context.table, Key: y } }],
            }),
          );
          reads.push([got.Responses?.[0]?.Item?.t?.N, got.Responses?.[1]?.Item?.t?.N]);
        });
      }
      await Promise.all(calls.map((call) => untilNoConflict(call)));
      return {
        x: await read(context, x),
        y: await read(context, y),
        reads: reads.length,
        halfSeen: reads.filter(([tx, ty]) => tx !== ty).length,
      };
    },
    (outcome) => {
      expect(outcome).toEqual({
        x: expect.objectContaining({ n: n(40), t: n(20) }),
        y: expect.objectContaining({ n: n(40), t: n(20) }),
        reads: 20,
        halfSeen: 0,
      });
    },
  ),

  contractCase(
    'concurrent conditional transactions: exactly as many succeed as the condition allows, the rest are cancelled whole',
    async (context) => {
      const stock = head(context, 'stock');
      await putItem(context, { ...stock, n: n(5) });
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          answer(() =>
            untilNoConflict(() =>
              context.client.send(
                new TransactWriteItemsCommand({
                  TransactItems: [
                    update(context, stock, 'SET n = n - :one', {
                      ConditionExpression: 'n >= :one',
                      ExpressionAttributeValues: { ':one': n(1) },
                    }),
                    put(context, av(keys.promptVersion(context.account, 'order', `${i + 1}.0.0`)), {
                      ConditionExpression: 'attribute_not_exists(pk)',
                    }),
                  ],
                }),
              ),
            ),
          ),
        ),
      );
      return {
        succeeded: results.filter((result) => 'ok' in result).length,
        cancelled: [...new Set(results.flatMap((result) => ('reasons' in result ? [JSON.stringify(result.reasons?.map((r) => r.code))] : [])))],
        stock: await read(context, stock),
        orders: await countPartition(context, prefixes.versionsOf('order')),
      };
    },
    (outcome) => {
      expect(outcome).toEqual({
        succeeded: 5,
        cancelled: [JSON.stringify(['ConditionalCheckFailed', 'None'])],
        stock: expect.objectContaining({ n: n(0) }),
        orders: 5,
      });
    },
  ),
];

export const singleItemCases: ContractCase[] = [
  contractCase(
    'a conditional PutItem over an existing item is refused (ConditionalCheckFailedException) and the item is unchanged',
    async (context) => {
      const a = head(context, 'a');
      await putItem(context, { ...a, name: s('first') });
      const result = await answer(() =>
        context.client.send(
          new PutItemCommand({ TableName: context.table, Item: { ...a, name: s('second') }, ConditionExpression: 'attribute_not_exists(pk)' }),
        ),
      );
      return { result, a: await read(context, a) };
    },
    (outcome) => {
      expect(outcome.result).toEqual({ refused: 'ConditionalCheckFailedException' });
      expect(outcome.a).toMatchObject({ name: s('first') });
    },
  ),

  contractCase(
    'a conditional UpdateItem whose condition is false is refused and the item is unchanged',
    async (context) => {
      const a = head(context, 'a');
      await putItem(context, { ...a, n: n(1), status: s('disabled') });
      const result = await answer(() =>
        context.client.send(
          new UpdateItemCommand({
            TableName: context.table,
            Key: a,
            UpdateExpression: 'ADD n :one',
            ConditionExpression: '#status = :active',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':one': n(1), ':active': s('active') },
          }),
        ),
      );
      return { result, a: await read(context, a) };
    },
    (outcome) => {
      expect(outcome.result).toEqual({ refused: 'ConditionalCheckFailedException' });
      expect(outcome.a).toMatchObject({ n: n(1) });
    },
  ),

  contractCase(
    'a conditional DeleteItem whose condition is false is refused and the item is kept',
    async (context) => {
      const a = head(context, 'a');
      await putItem(context, { ...a, n: n(1) });
      const result = await answer(() =>
        context.client.send(
          new DeleteItemCommand({ TableName: context.table, Key: a, ConditionExpression: 'n = :two', ExpressionAttributeValues: { ':two': n(2) } }),
        ),
      );
      return { result, a: await read(context, a) };
    },
    (outcome) => {
      expect(outcome.result).toEqual({ refused: 'ConditionalCheckFailedException' });
      expect(outcome.a).toMatchObject({ n: n(1) });
    },
  ),

  contractCase(
    'ReturnValuesOnConditionCheckFailure ALL_OLD: a refused PutItem, UpdateItem or DeleteItem carries the item as stored',
    async (context) => {
      const [a, missing] = ['a', 'missing'].map((id) => head(context, id)) as [Item, Item];
      const stored = { ...a, n: n(7), tags: { SS: ['y', 'x'] } };
      await putItem(context, stored);
      const refuse = {
        ConditionExpression: 'n = :zero',
        ExpressionAttributeValues: { ':zero': n(0) },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
      };
      const itemOf = async (call: () => Promise<unknown>) => {
        const result = await answer(call);
        return 'refused' in result ? [result.refused, result.item ?? null] : ['ok'];
      };
      return {
        put: await itemOf(() => context.client.send(new PutItemCommand({ TableName: context.table, Item: a, ...refuse }))),
        update: await itemOf(() =>
          context.client.send(new UpdateItemCommand({ TableName: context.table, Key: a, UpdateExpression: 'SET n = :zero', ...refuse })),
        ),
        delete: await itemOf(() => context.client.send(new DeleteItemCommand({ TableName: context.table, Key: a, ...refuse }))),
        // No item, nothing to return: the refusal has no Item.
        missing: await itemOf(() =>
          context.client.send(new UpdateItemCommand({ TableName: context.table, Key: missing, UpdateExpression: 'SET n = :zero', ...refuse })),
        ),
        // Without ALL_OLD, no Item either.
        unasked: await itemOf(() =>
          context.client.send(
            new UpdateItemCommand({
              TableName: context.table,
              Key: a,
              UpdateExpression: 'SET n = :zero',
              ConditionExpression: refuse.ConditionExpression,
              ExpressionAttributeValues: refuse.ExpressionAttributeValues,
            }),
          ),
        ),
      };
    },
    (outcome) => {
      const stored = expect.objectContaining({ n: n(7), tags: { SS: ['x', 'y'] } });
      const refused = 'ConditionalCheckFailedException';
      expect(outcome).toEqual({
        put: [refused, stored],
        update: [refused, stored],
        delete: [refused, stored],
        missing: [refused, null],
        unasked: [refused, null],
      });
    },
  ),

  contractCase(
    'UpdateItem with ReturnValues ALL_NEW answers the item as written',
    async (context) => {
      const a = head(context, 'a');
      await putItem(context, { ...a, n: n(1), name: s('a') });
      const result = await context.client.send(
        new UpdateItemCommand({
          TableName: context.table,
          Key: a,
          UpdateExpression: 'SET #name = :name ADD n :one',
          ExpressionAttributeNames: { '#name': 'name' },
          ExpressionAttributeValues: { ':name': s('b'), ':one': n(1) },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return normalized(result.Attributes);
    },
    (outcome) => {
      expect(outcome).toMatchObject({ n: n(2), name: s('b'), pk: expect.anything(), sk: expect.anything() });
    },
  ),

  contractCase(
    'PutItem and DeleteItem with ReturnValues ALL_OLD answer the item as it was',
    async (context) => {
      const a = head(context, 'a');
      await putItem(context, { ...a, n: n(1) });
      const replaced = await context.client.send(new PutItemCommand({ TableName: context.table, Item: { ...a, n: n(2) }, ReturnValues: 'ALL_OLD' }));
      const deleted = await context.client.send(new DeleteItemCommand({ TableName: context.table, Key: a, ReturnValues: 'ALL_OLD' }));
      const deletedAgain = await context.client.send(new DeleteItemCommand({ TableName: context.table, Key: a, ReturnValues: 'ALL_OLD' }));
      return {
        replaced: normalized(replaced.Attributes),
        deleted: normalized(deleted.Attributes),
        deletedAgain: normalized(deletedAgain.Attributes) ?? null,
      };
    },
    (outcome) => {
      expect(outcome).toEqual({
        replaced: expect.objectContaining({ n: n(1) }),
        deleted: expect.objectContaining({ n: n(2) }),
        deletedAgain: null,
      });
    },
  ),

  contractCase(
    'ADD on a number starts a missing attribute at the value added, then adds to it',
    async (context) => {
      const a = head(context, 'a');
      const add = async (value: number) =>
        (
          await context.client.send(
            new UpdateItemCommand({
              TableName: context.table,
              Key: a,
              UpdateExpression: 'ADD #used :value',
              ExpressionAttributeNames: { '#used': 'used#2026-01' },
              ExpressionAttributeValues: { ':value': n(value) },
              ReturnValues: 'UPDATED_NEW',
            }),
          )
        ).Attributes?.['used#2026-01']?.N;
      return [await add(5), await add(-2), await add(0.5)];
    },
    (outcome) => {
      expect(outcome).toEqual(['5', '3', '3.5']);
    },
  ),

  contractCase(
    'ADD on a string set adds only the members it lacks',
    async (context) => {
      const a = head(context, 'a');
      const add = async (members: string[]) =>
        normalized(
          (
            await context.client.send(
              new UpdateItemCommand({
                TableName: context.table,
                Key: a,
                UpdateExpression: 'ADD tags :members',
                ExpressionAttributeValues: { ':members': { SS: members } },
                ReturnValues: 'ALL_NEW',
              }),
            )
          ).Attributes,
        )?.tags;
      return [await add(['b', 'a']), await add(['c', 'a'])];
    },
    (outcome) => {
      expect(outcome).toEqual([{ SS: ['a', 'b'] }, { SS: ['a', 'b', 'c'] }]);
    },
  ),

  contractCase(
    'a begins_with Query with Limit pages through ExclusiveStartKey in sort key order',
    async (context) => {
      for (const id of ['e', 'c', 'a', 'd', 'b']) await putItem(context, head(context, id));
      await putItem(context, av(keys.promptVersion(context.account, 'a', '1.0.0')));
      await putItem(context, av(keys.member(context.account, 'someone')));
      return pages(
        context,
        {
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': s(prefixes.accountPartition(context.account)), ':prefix': s(prefixes.promptHeads) },
          Limit: 2,
        },
        'sk',
      );
    },
    (outcome) => {
      expect(outcome.map((page) => page.items)).toEqual([['PROMPT#a', 'PROMPT#b'], ['PROMPT#c', 'PROMPT#d'], ['PROMPT#e']]);
      // A page ends at the table key of its last item.
      expect(Object.keys(outcome[0]?.lastKey ?? {}).sort()).toEqual(['pk', 'sk']);
      expect(outcome[0]?.lastKey?.sk).toEqual(s('PROMPT#b'));
      expect(outcome[2]?.lastKey).toBeUndefined();
    },
  ),

  contractCase(
    'a begins_with Query of the admin index with Limit pages through ExclusiveStartKey',
    async (context) => {
      for (const keyId of ['k3', 'k1', 'k2']) {
        await putItem(context, { ...apiKey(context, keyId), ...av(adminIndexKeys.apiKey(context.account, keyId)), keyId: s(keyId) });
      }
      // Another user's membership sits in another index partition; this account's own item under another prefix.
      await putItem(context, { ...av(keys.member(context.account, 'u1')), ...av(adminIndexKeys.member('u1', context.account)) });
      await putItem(context, { ...av(keys.account(context.account)), gsi1pk: s(adminIndexKeys.keysOf(context.account)), gsi1sk: s('ACCOUNT') });
      return pages(
        context,
        {
          IndexName: ADMIN_INDEX,
          KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
          ExpressionAttributeValues: { ':pk': s(adminIndexKeys.keysOf(context.account)), ':prefix': s(adminIndexKeys.apiKeyPrefix) },
          Limit: 2,
        },
        'gsi1sk',
      );
    },
    (outcome) => {
      expect(outcome.map((page) => page.items)).toEqual([['APIKEY#k1', 'APIKEY#k2'], ['APIKEY#k3']]);
      // An index's page ends at an index key and the table key of the item there.
      expect(Object.keys(outcome[0]?.lastKey ?? {}).sort()).toEqual(['gsi1pk', 'gsi1sk', 'pk', 'sk']);
      expect(outcome[1]?.lastKey).toBeUndefined();
    },
  ),
];
