import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  type BuiltUpdate,
  buildCondition,
  buildProjection,
  buildUpdate,
  type ExpressionNames,
  openName,
  openValue,
  prepareUpdate,
} from '../../lambda/table/update-expression';
import { type LocalStore, startLocalStore } from '../support/local-store';

/** lambda/table/update-expression.ts: the one way the table's modules write an expression that names attributes. */

/** An expression as the store reads it: each placeholder replaced by the name, or the value (as JSON), it stands for. */
function spelledOut(built: Partial<BuiltUpdate> & { ProjectionExpression?: string }): { update?: string; condition?: string; projection?: string } {
  const fill = (expression: string | undefined) =>
    expression
      ?.replace(/#\w+/g, (placeholder) => built.ExpressionAttributeNames?.[placeholder] ?? `<${placeholder} unnamed>`)
      .replace(/:\w+/g, (placeholder) =>
        built.ExpressionAttributeValues && Object.hasOwn(built.ExpressionAttributeValues, placeholder)
          ? JSON.stringify(built.ExpressionAttributeValues[placeholder], (_, value) => (value instanceof Set ? [...value] : value))
          : `<${placeholder} unvalued>`,
      );
  return {
    ...(built.UpdateExpression === undefined ? {} : { update: fill(built.UpdateExpression) }),
    ...(built.ConditionExpression === undefined ? {} : { condition: fill(built.ConditionExpression) }),
    ...(built.ProjectionExpression === undefined ? {} : { projection: fill(built.ProjectionExpression) }),
  };
}

/** Every placeholder of the expressions is defined, and every one defined is used (DynamoDB refuses either). */
function expectPlaceholdersExact(built: BuiltUpdate): void {
  const text = `${built.UpdateExpression} ${built.ConditionExpression ?? ''}`;
  expect(new Set(text.match(/#\w+/g))).toEqual(new Set(Object.keys(built.ExpressionAttributeNames)));
  expect(new Set(text.match(/:\w+/g))).toEqual(new Set(Object.keys(built.ExpressionAttributeValues ?? {})));
}

describe('each clause', () => {
  test('SET: each attribute to its value', () => {
    const built = buildUpdate({ set: { plan: 'pro', limit: 50_000 } });
    expect(spelledOut(built)).toEqual({ update: 'SET plan = "pro", limit = 50000' });
    expect(built.UpdateExpression).toBe('SET #n0 = :v0, #n1 = :v1');
    expectPlaceholdersExact(built);
  });

  test('SET: a function is the expression the attribute is set to, with the same placeholders', () => {
    const built = buildUpdate({ set: { revokedAt: (e: ExpressionNames) => `if_not_exists(${e.name('revokedAt')}, ${e.value('2026-11-15')})` } });
    expect(spelledOut(built)).toEqual({ update: 'SET revokedAt = if_not_exists(revokedAt, "2026-11-15")' });
    expectPlaceholdersExact(built);
  });

  test('REMOVE: the attributes, no values', () => {
    const built = buildUpdate({ remove: ['description', 'tags'] });
    expect(spelledOut(built)).toEqual({ update: 'REMOVE description, tags' });
    expect(built.ExpressionAttributeValues).toBeUndefined();
    expectPlaceholdersExact(built);
  });

  test('ADD: a number added, a set merged', () => {
    const built = buildUpdate({ add: { promptsRevision: 1, newKeys: new Set(['a', 'b']) } });
    expect(spelledOut(built)).toEqual({ update: 'ADD promptsRevision 1, newKeys ["a","b"]' });
    expect(built.ExpressionAttributeValues?.[':v1']).toEqual(new Set(['a', 'b']));
    expectPlaceholdersExact(built);
  });

  test('DELETE: elements taken out of a set', () => {
    const built = buildUpdate({ delete: { newKeys: new Set(['a']) } });
    expect(spelledOut(built)).toEqual({ update: 'DELETE newKeys ["a"]' });
    expectPlaceholdersExact(built);
  });

  test('all four in one update, in the order DynamoDB reads them, with a condition', () => {
    const built = buildUpdate({
      set: { name: 'n' },
      remove: ['scope'],
      add: { count: 2 },
      delete: { tags: new Set(['old']) },
      condition: (e) => `attribute_exists(${e.name('pk')})`,
    });
    expect(spelledOut(built)).toEqual({
      update: 'SET name = "n" REMOVE scope ADD count 2 DELETE tags ["old"]',
      condition: 'attribute_exists(pk)',
    });
    expectPlaceholdersExact(built);
  });
});

test('undefined values are left out of SET; only they are', () => {
  const built = buildUpdate({ set: { promptName: undefined, deleted: false, note: null, count: 0, text: '' } });
  expect(spelledOut(built)).toEqual({ update: 'SET deleted = false, note = null, count = 0, text = ""' });
  expect(Object.values(built.ExpressionAttributeNames)).not.toContain('promptName');
  expectPlaceholdersExact(built);
});

test('an update that changes nothing is refused, also when every value set is undefined', () => {
  expect(() => buildUpdate({})).toThrow(RangeError);
  expect(() => buildUpdate({ set: {}, remove: [], add: {}, delete: {} })).toThrow('an update must change something');
  expect(() => buildUpdate({ set: { promptName: undefined }, condition: (e) => `attribute_exists(${e.name('pk')})` })).toThrow(RangeError);
});

describe('names are data', () => {
  test.each(['name', 'status', 'limit', 'data', 'count', 'size', 'constructor', 'toString', 'hasOwnProperty', '__proto__'])(
    '%s is an attribute like any other: behind a placeholder, kept as written',
    (name) => {
      // As a request or an item gives them: own properties, `__proto__` included.
      const built = buildUpdate({ set: Object.fromEntries([[name, 'x']]), condition: (e) => `attribute_exists(${e.name(name)})` });
      expect(built.UpdateExpression).toBe('SET #n0 = :v0');
      expect(built.ConditionExpression).toBe('attribute_exists(#n0)');
      expect(Object.entries(built.ExpressionAttributeNames)).toEqual([['#n0', name]]);
      expect(Object.getPrototypeOf(built.ExpressionAttributeNames)).toBe(Object.prototype);
      expect(spelledOut(built)).toEqual({ update: `SET ${name} = "x"`, condition: `attribute_exists(${name})` });
    },
  );

  test('a name that looks like a placeholder or an expression is still one name', () => {
    const built = buildUpdate({ set: { '#n0': 1, ':v0': 2, 'a = b': 3 } });
    expect(built.UpdateExpression).toBe('SET #n0 = :v0, #n1 = :v1, #n2 = :v2');
    expect(built.ExpressionAttributeNames).toEqual({ '#n0': '#n0', '#n1': ':v0', '#n2': 'a = b' });
  });

  test('a value is never read as an expression', () => {
    const built = buildUpdate({ set: { note: 'x, other = :v0' } });
    expect(built.UpdateExpression).toBe('SET #n0 = :v0');
    expect(built.ExpressionAttributeValues).toEqual({ ':v0': 'x, other = :v0' });
  });
});

test('dotted paths: each part a name of its own, a part used twice one placeholder', () => {
  const built = buildUpdate({
    set: { 'latest.version': '1.2.0', 'days.15': 1 },
    condition: (e) => `${e.name('latest.version')} < ${e.value('1.2.0')} AND attribute_exists(${e.name('days')})`,
  });
  expect(built.UpdateExpression).toBe('SET #n0.#n1 = :v0, #n2.#n3 = :v1');
  expect(built.ConditionExpression).toBe('#n0.#n1 < :v0 AND attribute_exists(#n2)');
  expect(spelledOut(built)).toEqual({
    update: 'SET latest.version = "1.2.0", days.15 = 1',
    condition: 'latest.version < "1.2.0" AND attribute_exists(days)',
  });
  expectPlaceholdersExact(built);
});

test('update and condition share one set of placeholders: a name is one placeholder, two values never share one', () => {
  const built = buildUpdate({
    set: { status: 'revoked', etag: 'new' },
    add: { count: 1 },
    condition: (e) => `${e.name('status')} <> ${e.value('revoked-before')} AND ${e.name('etag')} = ${e.value('old')} AND ${e.name('count')} < ${e.value(10)}`,
  });
  expect(spelledOut(built)).toEqual({
    update: 'SET status = "revoked", etag = "new" ADD count 1',
    condition: 'status <> "revoked-before" AND etag = "old" AND count < 10',
  });
  const values = Object.values(built.ExpressionAttributeValues ?? {});
  expect(new Set(values).size).toBe(values.length);
  expectPlaceholdersExact(built);
});

test('the same value given twice is one placeholder, and means the same', () => {
  const built = buildUpdate({ set: { a: 1, b: 1, c: '1' } });
  expect(built.UpdateExpression).toBe('SET #n0 = :v0, #n1 = :v0, #n2 = :v1');
  expect(built.ExpressionAttributeValues).toEqual({ ':v0': 1, ':v1': '1' });
});

test('a condition alone, and a projection, have their own placeholders', () => {
  const condition = buildCondition((e) => `${e.name('role')} = ${e.value('owner')}`);
  expect(spelledOut(condition)).toEqual({ condition: 'role = "owner"' });
  const projection = buildProjection(['promptId', 'latest.version', 'name']);
  expect(projection).toEqual({
    ProjectionExpression: '#n0, #n1.#n2, #n3',
    ExpressionAttributeNames: { '#n0': 'promptId', '#n1': 'latest', '#n2': 'version', '#n3': 'name' },
  });
  expect(() => buildProjection([])).toThrow(RangeError);
});

describe('an update built once, its open names and values given at each call', () => {
  const USED = openName('used');
  const TODAY = `days.${openName('day')}`;
  const prepared = prepareUpdate({
    set: {
      [USED]: (e: ExpressionNames) => `${e.name(USED)} + ${e.value(1)}`,
      [TODAY]: (e: ExpressionNames) => `if_not_exists(${e.name(TODAY)}, ${e.value(0)}) + ${e.value(1)}`,
    },
    condition: (e) => `${e.name(USED)} < ${e.name('limit')} AND ${e.name('daysMonth')} = ${e.value(openValue('month'))}`,
  });

  test('each call gets the same expressions with its own names and values', () => {
    const november = prepared({ used: 'used#2026-11', day: '15', month: '2026-11' });
    const december = prepared({ used: 'used#2026-12', day: '1', month: '2026-12' });
    expect(spelledOut(november)).toEqual({
      update: 'SET used#2026-11 = used#2026-11 + 1, days.15 = if_not_exists(days.15, 0) + 1',
      condition: 'used#2026-11 < limit AND daysMonth = "2026-11"',
    });
    expect(spelledOut(december).update).toBe('SET used#2026-12 = used#2026-12 + 1, days.1 = if_not_exists(days.1, 0) + 1');
    expect(december.UpdateExpression).toBe(november.UpdateExpression);
    expectPlaceholdersExact(november);
    // One call's maps are its own: the next call does not change them.
    expect(november.ExpressionAttributeNames).not.toBe(december.ExpressionAttributeNames);
    expect(Object.values(november.ExpressionAttributeNames)).toContain('used#2026-11');
  });

  test('what a call gives is data: a name or a value that looks like anything stays as given', () => {
    const built = prepared({ used: '__proto__', day: 'constructor', month: ':v0' });
    expect(spelledOut(built)).toEqual({
      update: 'SET __proto__ = __proto__ + 1, days.constructor = if_not_exists(days.constructor, 0) + 1',
      condition: '__proto__ < limit AND daysMonth = ":v0"',
    });
  });

  test('a name or a value not given is refused, never sent as undefined', () => {
    expect(() => prepared({ day: '15', month: '2026-11' })).toThrow("the update's name used was not given");
    expect(() => prepared({ used: 'used#2026-11', day: '15' })).toThrow("the update's value month was not given");
  });
});

describe('against the embedded store', () => {
  let store: LocalStore;
  const Key = { pk: 'ACCOUNT#expressions', sk: 'ITEM' };
  const read = async () => (await store.client.send(new GetCommand({ TableName: store.tableName, Key, ConsistentRead: true }))).Item;

  beforeAll(async () => {
    store = await startLocalStore('update-expression-test');
  });
  afterAll(() => store?.close());

  test('a built update with a condition does what it says, and nothing when its condition fails', async () => {
    await store.client.send(
      new PutCommand({
        TableName: store.tableName,
        Item: {
          ...Key,
          status: 'active',
          name: 'old',
          scope: ['a'],
          count: 1,
          tags: new Set(['t']),
          newKeys: new Set(['x', 'y']),
          latest: { version: '1.0.0' },
          days: { '15': 2 },
        },
      }),
    );
    const update = (status: string) =>
      buildUpdate({
        set: {
          name: 'new',
          'latest.version': '1.1.0',
          'days.15': (e: ExpressionNames) => `${e.name('days.15')} + ${e.value(1)}`,
          revokedAt: (e: ExpressionNames) => `if_not_exists(${e.name('revokedAt')}, ${e.value('2026-11-15')})`,
          description: undefined,
        },
        remove: ['scope'],
        add: { count: 2, tags: new Set(['u']) },
        delete: { newKeys: new Set(['x']) },
        condition: (e) =>
          `attribute_exists(${e.name('pk')}) AND ${e.name('status')} = ${e.value(status)} AND ${e.name('latest.version')} = ${e.value('1.0.0')}`,
      });

    const refused = store.client.send(new UpdateCommand({ TableName: store.tableName, Key, ...update('disabled') }));
    await expect(refused).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect(await read()).toMatchObject({ name: 'old', count: 1, scope: ['a'], latest: { version: '1.0.0' } });

    await store.client.send(new UpdateCommand({ TableName: store.tableName, Key, ...update('active') }));
    expect(await read()).toEqual({
      ...Key,
      status: 'active',
      name: 'new',
      count: 3,
      tags: new Set(['t', 'u']),
      newKeys: new Set(['y']),
      latest: { version: '1.1.0' },
      days: { '15': 3 },
      revokedAt: '2026-11-15',
    });
  });
});
