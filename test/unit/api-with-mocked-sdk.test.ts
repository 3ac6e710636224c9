import { ConditionalCheckFailedException, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createDocumentClient } from '../../lambda/data/dynamo-client';
import { DynamoStore } from '../../lambda/data/dynamo-store';
import { hashApiKey } from '../../lambda/domain/api-key';
import { createGetPromptHandler, createListPromptsHandler } from '../../lambda/handlers';
import type { RequestLogRecord } from '../../lambda/middleware/request-log';
import { type ErrorBody, toApiResponse } from '../support/api-harness';
import { httpApiEvent, lambdaContext } from '../support/events';

/** The middleware and handlers over a mocked DynamoDB client: store failures and edge cases on demand. */
const API_KEY = 'prs_unitTestKeyunitTestKeyunitTestKey0000000';
const KEY_HASH = hashApiKey(API_KEY);
const UPGRADE_URL = 'https://example.test/upgrade';

const ddb = mockClient(DynamoDBDocumentClient);
let clock: Date;
let logs: RequestLogRecord[];

function handlers() {
  const deps = {
    store: new DynamoStore(createDocumentClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:1' }), 'table'),
    upgradeUrl: UPGRADE_URL,
    now: () => clock,
    log: (record: RequestLogRecord) => logs.push(record),
  };
  return { get: createGetPromptHandler(deps), list: createListPromptsHandler(deps) };
}

async function getPrompt(path = '/prompts/welcome') {
  return toApiResponse(await handlers().get(httpApiEvent('GET', path, { apiKey: API_KEY }), lambdaContext()));
}

const head = {
  promptId: 'welcome',
  promptName: 'Welcome',
  deleted: false,
  latest: {
    version: '1.2.0',
    systemMessage: 'sys',
    userMessage: 'Hi ${name}',
    config: { model: 'm', temperature: 1, schema: [], inputData: null, inputDataRootName: null },
  },
};

function givenKeyAndAccount(monthlyLimit?: number) {
  ddb.on(GetCommand, { Key: { pk: `APIKEY#${KEY_HASH}`, sk: 'APIKEY' } }).resolves({
    Item: { keyId: 'key_unit', accountId: 'acme', status: 'active', ...(monthlyLimit === undefined ? {} : { monthlyLimit }) },
  });
  ddb.on(GetCommand, { Key: { pk: 'ACCOUNT#acme', sk: 'ACCOUNT' } }).resolves({
    Item: { accountId: 'acme', name: 'Acme', plan: 'free' },
  });
  ddb.on(GetCommand, { Key: { pk: 'ACCOUNT#acme', sk: 'PROMPT#welcome' } }).resolves({ Item: head });
}

const throttled = () =>
  new ProvisionedThroughputExceededException({ message: 'Rate exceeded', $metadata: { httpStatusCode: 400 } });

beforeEach(() => {
  ddb.reset();
  clock = new Date('2026-11-15T12:00:00Z');
  logs = [];
});

describe('store throttling or outage after the SDK retries is 503 SERVICE_UNAVAILABLE with Retry-After', () => {
  test('throttled while looking up the key', async () => {
    ddb.on(GetCommand).rejects(throttled());
    const response = await getPrompt();
    expect(response.status).toBe(503);
    expect(response.json<ErrorBody>()).toEqual({ error: expect.any(String), code: 'SERVICE_UNAVAILABLE' });
    expect(response.headers['retry-after']).toBe('1');
    expect(response.headers['access-control-allow-origin']).toBe('*');
  });

  test('throttled while taking the usage unit: 503, never 429', async () => {
    givenKeyAndAccount();
    ddb.on(UpdateCommand).rejects(throttled());
    const response = await getPrompt();
    expect(response.status).toBe(503);
    expect(response.json<ErrorBody>().code).toBe('SERVICE_UNAVAILABLE');
  });

  test('throttled while reading the prompt: 503, and the unit taken is given back', async () => {
    givenKeyAndAccount();
    ddb.on(UpdateCommand).resolves({ Attributes: { used: 7 } });
    ddb.on(GetCommand, { Key: { pk: 'ACCOUNT#acme', sk: 'PROMPT#welcome' } }).rejects(throttled());
    const response = await getPrompt();
    expect(response.status).toBe(503);
    const updates = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(updates).toHaveLength(2);
    expect(updates[1]).toMatchObject({
      Key: { pk: `APIKEY#${KEY_HASH}`, sk: 'USAGE#2026-11' },
      UpdateExpression: 'SET #used = #used - :one',
    });
    expect(response.headers['x-ratelimit-remaining']).toBe(String(5000 - 6));
  });

  test('the store unreachable (connection refused) is 503', async () => {
    ddb.on(GetCommand).rejects(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }));
    expect((await getPrompt()).status).toBe(503);
  });

  test('a store-side 5xx is 503', async () => {
    ddb.on(GetCommand).rejects(
      Object.assign(new Error('Internal'), { name: 'InternalServerError', $metadata: { httpStatusCode: 500 } }),
    );
    expect((await getPrompt()).status).toBe(503);
  });

  test('a misconfigured table (not found) is a 500, not a 503 that invites retries', async () => {
    ddb.on(GetCommand).rejects(
      Object.assign(new Error('Requested resource not found'), {
        name: 'ResourceNotFoundException',
        $metadata: { httpStatusCode: 400 },
      }),
    );
    const response = await getPrompt();
    expect(response.status).toBe(500);
    expect(response.json<ErrorBody>()).toEqual({ error: 'Internal server error', code: 'INTERNAL_ERROR' });
    expect(response.rawBody).not.toContain('Requested resource not found');
  });

  test('the 5xx is logged with its cause, once', async () => {
    ddb.on(GetCommand).rejects(throttled());
    await getPrompt();
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ level: 'error', status: 503, errorCode: 'SERVICE_UNAVAILABLE' });
    expect(logs[0]?.error?.name).toBe('StoreUnavailableError');
  });

  test('a unit that cannot be given back is reported in the log, and the response is unchanged', async () => {
    givenKeyAndAccount();
    ddb.on(UpdateCommand).resolvesOnce({ Attributes: { used: 1 } }).rejects(throttled());
    ddb.on(GetCommand, { Key: { pk: 'ACCOUNT#acme', sk: 'PROMPT#welcome' } }).rejects(throttled());
    const response = await getPrompt();
    expect(response.status).toBe(503);
    expect(response.headers['x-ratelimit-remaining']).toBe('4999');
    expect(logs[0]?.usageReturnFailure).toBe('StoreUnavailableError');
  });
});

describe('a failed conditional update is the 429 body', () => {
  test('with the item the store returns (ReturnValuesOnConditionCheckFailure: ALL_OLD): no extra read', async () => {
    givenKeyAndAccount(50);
    ddb.on(UpdateCommand).rejects(
      new ConditionalCheckFailedException({
        message: 'The conditional request failed',
        $metadata: {},
        Item: marshall({ pk: `APIKEY#${KEY_HASH}`, sk: 'USAGE#2026-11', used: 50, limit: 50 }),
      }),
    );
    const response = await getPrompt();
    expect(response.status).toBe(429);
    expect(response.body).toEqual({
      error: expect.any(String),
      code: 'USAGE_LIMIT_EXCEEDED',
      usage: { used: 50, limit: 50 },
      upgradeUrl: UPGRADE_URL,
    });
    const update = ddb.commandCalls(UpdateCommand)[0]?.args[0].input;
    expect(update?.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
    expect(update?.ConditionExpression).toContain('#used < :limit');
    expect(ddb.commandCalls(GetCommand, { Key: { pk: `APIKEY#${KEY_HASH}`, sk: 'USAGE#2026-11' } })).toHaveLength(0);
  });

  test('without it (a store that does not return the item): one consistent read of the counter', async () => {
    givenKeyAndAccount(50);
    ddb.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: 'failed', $metadata: {} }));
    ddb.on(GetCommand, { Key: { pk: `APIKEY#${KEY_HASH}`, sk: 'USAGE#2026-11' } }).resolves({ Item: { used: 50 } });
    const response = await getPrompt();
    expect(response.status).toBe(429);
    expect(response.json<ErrorBody>().usage).toEqual({ used: 50, limit: 50 });
    const reads = ddb.commandCalls(GetCommand, { Key: { pk: `APIKEY#${KEY_HASH}`, sk: 'USAGE#2026-11' } });
    expect(reads).toHaveLength(1);
    expect(reads[0]?.args[0].input.ConsistentRead).toBe(true);
  });

  test('the 429 headers: Limit, Remaining 0, Reset, Retry-After until the reset, CORS', async () => {
    givenKeyAndAccount(50);
    clock = new Date('2026-11-30T22:00:00Z');
    ddb.on(UpdateCommand).rejects(
      new ConditionalCheckFailedException({ message: 'failed', $metadata: {}, Item: marshall({ used: 50 }) }),
    );
    const response = await getPrompt();
    expect(response.headers).toMatchObject({
      'x-ratelimit-limit': '50',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(Date.UTC(2026, 11, 1) / 1000),
      'retry-after': '7200',
      'access-control-allow-origin': '*',
      'content-type': 'application/json',
    });
  });
});

describe('the month rolls over with the clock', () => {
  test('the counter item is the UTC month of the request, and Reset follows it', async () => {
    givenKeyAndAccount();
    ddb.on(UpdateCommand).resolves({ Attributes: { used: 1 } });

    clock = new Date('2026-11-30T23:59:59Z');
    const november = await getPrompt();
    clock = new Date('2026-12-01T00:00:00Z');
    const december = await getPrompt();

    const keys = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input.Key);
    expect(keys).toEqual([
      { pk: `APIKEY#${KEY_HASH}`, sk: 'USAGE#2026-11' },
      { pk: `APIKEY#${KEY_HASH}`, sk: 'USAGE#2026-12' },
    ]);
    expect(november.headers['x-ratelimit-reset']).toBe('1796083200');
    expect(december.headers['x-ratelimit-reset']).toBe('1798761600');
  });
});

describe('header values of a successful response', () => {
  test('200 latest: JSON, ETag, revalidate, rate limits from the counter, CORS exposing them', async () => {
    givenKeyAndAccount();
    ddb.on(UpdateCommand).resolves({ Attributes: { used: 42 } });
    const response = await getPrompt();
    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({
      'content-type': 'application/json',
      'cache-control': 'private, no-cache',
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4958',
      'x-ratelimit-reset': '1796083200',
      'access-control-allow-origin': '*',
      'access-control-expose-headers': 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, ETag',
    });
    expect(response.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
  });

  test('the store is asked for the key by its hash, never by the key', async () => {
    givenKeyAndAccount();
    ddb.on(UpdateCommand).resolves({ Attributes: { used: 1 } });
    await getPrompt();
    expect(JSON.stringify(ddb.calls().map((call) => call.args[0].input))).not.toContain(API_KEY);
  });

  test('the list follows LastEvaluatedKey until the end', async () => {
    givenKeyAndAccount();
    ddb.on(UpdateCommand).resolves({ Attributes: { used: 1 } });
    const page = (id: string) => ({ ...head, promptId: id });
    const pages = [
      { Items: [page('a')], LastEvaluatedKey: { pk: 'ACCOUNT#acme', sk: 'PROMPT#a' } },
      { Items: [page('b')], LastEvaluatedKey: { pk: 'ACCOUNT#acme', sk: 'PROMPT#b' } },
      { Items: [page('c')] },
    ];
    // The paginator reuses one input object, so record each request's start key as it is sent.
    const starts: unknown[] = [];
    ddb.on(QueryCommand).callsFake((input: { ExclusiveStartKey?: unknown }) => {
      starts.push(input.ExclusiveStartKey);
      return pages[starts.length - 1];
    });
    const response = toApiResponse(
      await handlers().list(httpApiEvent('GET', '/prompts', { apiKey: API_KEY }), lambdaContext()),
    );
    expect(response.json<Array<{ promptId: string }>>().map((p) => p.promptId)).toEqual(['a', 'b', 'c']);
    expect(starts).toEqual([undefined, { pk: 'ACCOUNT#acme', sk: 'PROMPT#a' }, { pk: 'ACCOUNT#acme', sk: 'PROMPT#b' }]);
  });
});
