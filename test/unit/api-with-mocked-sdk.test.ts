import { ConditionalCheckFailedException, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createStoreClients } from '../../lambda/table/client';
import { DynamoStore } from '../../lambda/read-api/store/dynamo-store';
import { hashApiKey } from '../../lambda/domain/api-key';
import { createGetPromptHandler, createListPromptsHandler } from '../../lambda/read-api/handlers';
import { type ErrorBody, TEST_SERVICE_NAME, testTelemetry, toApiResponse } from '../support/api-harness';
import { apiEvent, lambdaContext } from '../support/events';
import type { LogRecord } from '../support/key-leak-check';
import { capturedMetricBlobs, capturedRequestLines } from '../support/log-capture';

/** The middleware and handlers over a mocked DynamoDB client: store failures and edge cases on demand. */
const API_KEY = 'prs_unitTestKeyunitTestKeyunitTestKey0000000';
const KEY_HASH = hashApiKey(API_KEY);
const UPGRADE_URL = 'https://example.test/upgrade';

const ddb = mockClient(DynamoDBDocumentClient);
let clock: Date;
let logsFrom = 0;
/** The request lines written since the test began. */
const logs = (): readonly LogRecord[] => capturedRequestLines(TEST_SERVICE_NAME).slice(logsFrom);

function handlers() {
  const store = new DynamoStore(createStoreClients({ region: 'us-east-1', endpoint: 'http://127.0.0.1:1' }), 'table');
  const deps = {
    usage: store,
    prompts: store,
    upgradeUrl: UPGRADE_URL,
    now: () => clock,
    telemetry: testTelemetry(),
  };
  return { get: createGetPromptHandler(deps), list: createListPromptsHandler(deps) };
}

let api: ReturnType<typeof handlers>;

async function getPrompt(path = '/prompts/welcome') {
  return toApiResponse(await api.get(apiEvent('GET', path, { apiKey: API_KEY }), lambdaContext()));
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

const KEY = { pk: `APIKEY#${KEY_HASH}`, sk: 'APIKEY' };

function keyItem(used: number, monthlyLimit?: number, month = '2026-11') {
  return {
    ...KEY,
    keyId: 'key_unit',
    accountId: 'acme',
    status: 'active',
    plan: 'free',
    ...(monthlyLimit === undefined ? {} : { monthlyLimit }),
    limit: monthlyLimit ?? 5000,
    [`used#${month}`]: used,
  };
}

/** An update as the store reads it: each placeholder replaced by the name, or the value (as JSON), it stands for. */
function spelledOut(input: UpdateCommandInput | undefined): { update: string; condition: string } {
  const fill = (expression = '') =>
    expression
      .replace(/#\w+/g, (placeholder) => input?.ExpressionAttributeNames?.[placeholder] ?? placeholder)
      .replace(/:\w+/g, (placeholder) => JSON.stringify(input?.ExpressionAttributeValues?.[placeholder]) ?? placeholder);
  return { update: fill(input?.UpdateExpression), condition: fill(input?.ConditionExpression) };
}

/** The count of a request of 15 November 2026 in a month already counted, and the unit given back. */
const COUNT = 'SET used#2026-11 = used#2026-11 + 1, days.15 = if_not_exists(days.15, 0) + 1';
const GIVE_BACK = 'SET used#2026-11 = used#2026-11 - 1, days.15 = days.15 - 1';

/**
 * The key is active and the store counts the request: `used` is the count after it. A unit given back is
 * taken, or with `givingBack: 'throttled'` refused.
 */
function givenAdmitted(used = 1, monthlyLimit?: number, givingBack: 'taken' | 'throttled' = 'taken') {
  ddb.on(UpdateCommand, { Key: KEY }).callsFake((input: UpdateCommandInput) => {
    const { update } = spelledOut(input);
    if (update === COUNT) return { Attributes: keyItem(used, monthlyLimit) };
    if (update === GIVE_BACK && givingBack === 'throttled') throw throttled();
    return {};
  });
  ddb.on(GetCommand, { Key: { pk: 'ACCOUNT#acme', sk: 'PROMPT#welcome' } }).resolves({ Item: head });
}

const throttled = () => new ProvisionedThroughputExceededException({ message: 'Rate exceeded', $metadata: { httpStatusCode: 400 } });

beforeEach(() => {
  ddb.reset();
  api = handlers();
  clock = new Date('2026-11-15T12:00:00Z');
  logsFrom = capturedRequestLines(TEST_SERVICE_NAME).length;
});

describe('store throttling or outage after the SDK retries is 503 SERVICE_UNAVAILABLE with Retry-After', () => {
  test('throttled while verifying the key and counting the request', async () => {
    ddb.on(UpdateCommand).rejects(throttled());
    const response = await getPrompt();
    expect(response.status).toBe(503);
    expect(response.json<ErrorBody>()).toEqual({ error: expect.any(String), code: 'SERVICE_UNAVAILABLE' });
    expect(response.headers['retry-after']).toBe('1');
    expect(response.headers['access-control-allow-origin']).toBe('*');
  });

  test('throttled while counting the request: 503, never 429 or 401', async () => {
    ddb.on(UpdateCommand).rejects(throttled());
    const response = await getPrompt();
    expect(response.status).toBe(503);
    expect(response.json<ErrorBody>().code).toBe('SERVICE_UNAVAILABLE');
    expect(response.headers['www-authenticate']).toBeUndefined();
  });

  test('throttled while reading the prompt: 503, and the unit taken is given back', async () => {
    givenAdmitted(7);
    ddb.on(GetCommand, { Key: { pk: 'ACCOUNT#acme', sk: 'PROMPT#welcome' } }).rejects(throttled());
    const response = await getPrompt();
    expect(response.status).toBe(503);
    const updates = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(updates).toHaveLength(2);
    expect(updates[1]?.Key).toEqual(KEY);
    expect(spelledOut(updates[1])).toEqual({
      update: GIVE_BACK,
      condition: 'used#2026-11 > 0 AND daysMonth = "2026-11" AND days.15 > 0',
    });
    expect(response.headers['x-ratelimit-remaining']).toBe(String(5000 - 6));
  });

  test('the store unreachable (connection refused) is 503', async () => {
    ddb.on(UpdateCommand).rejects(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }));
    expect((await getPrompt()).status).toBe(503);
  });

  test('a store-side 5xx is 503', async () => {
    ddb.on(UpdateCommand).rejects(Object.assign(new Error('Internal'), { name: 'InternalServerError', $metadata: { httpStatusCode: 500 } }));
    expect((await getPrompt()).status).toBe(503);
  });

  test('a misconfigured table (not found) is a 500, not a 503 that invites retries', async () => {
    ddb.on(UpdateCommand).rejects(
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
    ddb.on(UpdateCommand).rejects(throttled());
    await getPrompt();
    expect(logs()).toHaveLength(1);
    expect(logs()[0]).toMatchObject({
      level: 'ERROR',
      status: '503',
      errorCode: 'SERVICE_UNAVAILABLE',
      error: { name: 'StoreUnavailableError' },
    });
  });

  test('a unit that cannot be given back is reported in the log, and the response is unchanged', async () => {
    givenAdmitted(1, undefined, 'throttled');
    ddb.on(GetCommand, { Key: { pk: 'ACCOUNT#acme', sk: 'PROMPT#welcome' } }).rejects(throttled());
    const response = await getPrompt();
    expect(response.status).toBe(503);
    expect(response.headers['x-ratelimit-remaining']).toBe('4999');
    expect(logs()[0]?.usageReturnFailure).toBe('StoreUnavailableError');
  });

  test('a 503, and a unit that could not be given back, are counted on metrics of their own', async () => {
    givenAdmitted(1, undefined, 'throttled');
    ddb.on(GetCommand, { Key: { pk: 'ACCOUNT#acme', sk: 'PROMPT#welcome' } }).rejects(throttled());
    const from = capturedMetricBlobs().length;
    await getPrompt();
    const published = capturedMetricBlobs()
      .slice(from)
      .filter((blob) => blob.service === TEST_SERVICE_NAME);
    expect(published).toContainEqual(expect.objectContaining({ ServiceUnavailable: 1, RefundFailed: 1 }));
  });
});

describe('a failed conditional update is the 429 body, or the 401 of a dead key', () => {
  const conditionFailed = (item?: Record<string, unknown>) =>
    new ConditionalCheckFailedException({
      message: 'The conditional request failed',
      $metadata: {},
      ...(item ? { Item: marshall(item, { removeUndefinedValues: true }) } : {}),
    });

  test('with the item the store returns (ReturnValuesOnConditionCheckFailure: ALL_OLD): no extra read', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed(keyItem(50, 50)));
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
    expect(spelledOut(update).condition).toContain('status = "active"');
    expect(spelledOut(update).condition).toContain('used#2026-11 < limit');
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });

  test('without it (a store that does not return the item): one consistent read of the key item', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    ddb.on(GetCommand, { Key: KEY }).resolves({ Item: keyItem(5000) });
    const response = await getPrompt();
    expect(response.status).toBe(429);
    expect(response.json<ErrorBody>().usage).toEqual({ used: 5000, limit: 5000 });
    const reads = ddb.commandCalls(GetCommand, { Key: KEY });
    expect(reads).toHaveLength(1);
    expect(reads[0]?.args[0].input.ConsistentRead).toBe(true);
  });

  test.each([
    ['unknown (no item)', undefined],
    ['revoked', { ...keyItem(0), status: 'revoked' }],
    ['without a limit in force', { ...keyItem(0), limit: undefined }],
  ])('a key that is %s is 401 Invalid API key, whichever way the store reports it', async (_, item) => {
    ddb.on(UpdateCommand).rejects(conditionFailed(item));
    // DynamoDB returns no item for a key that does not exist, so that case reads too.
    ddb.on(GetCommand, { Key: KEY }).resolves(item ? { Item: item } : {});
    const withItem = await getPrompt();
    ddb.reset();
    ddb.on(UpdateCommand).rejects(conditionFailed());
    ddb.on(GetCommand, { Key: KEY }).resolves(item ? { Item: item } : {});
    const withRead = await getPrompt();
    for (const response of [withItem, withRead]) {
      expect(response.status).toBe(401);
      expect(response.json<ErrorBody>()).toEqual({ error: 'Invalid API key', code: 'UNAUTHORIZED' });
      expect(response.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });

  test('the 429 headers: Limit, Remaining 0, Reset, Retry-After until the reset, CORS', async () => {
    clock = new Date('2026-11-30T22:00:00Z');
    ddb.on(UpdateCommand).rejects(conditionFailed(keyItem(50, 50)));
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
    const counterOf = (input: UpdateCommandInput) => Object.values(input.ExpressionAttributeNames ?? {}).find((name) => name.startsWith('used#'));
    ddb.on(UpdateCommand).callsFake((input: UpdateCommandInput) => ({
      Attributes: keyItem(1, undefined, counterOf(input)?.slice('used#'.length)),
    }));
    ddb.on(GetCommand).resolves({ Item: head });

    clock = new Date('2026-11-30T23:59:59Z');
    const november = await getPrompt();
    clock = new Date('2026-12-01T00:00:00Z');
    const december = await getPrompt();

    const counters = ddb.commandCalls(UpdateCommand).map((call) => counterOf(call.args[0].input));
    expect(counters).toEqual(['used#2026-11', 'used#2026-12']);
    expect(november.headers['x-ratelimit-reset']).toBe('1796083200');
    expect(december.headers['x-ratelimit-reset']).toBe('1798761600');
  });
});

describe('header values of a successful response', () => {
  test('200 latest: JSON, ETag, revalidate, rate limits from the counter, CORS exposing them', async () => {
    givenAdmitted(42);
    const response = await getPrompt();
    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({
      'content-type': 'application/json',
      'cache-control': 'private, no-cache',
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4958',
      'x-ratelimit-reset': '1796083200',
      'access-control-allow-origin': '*',
      'access-control-expose-headers': 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, ETag, X-Prompt-Rollout',
    });
    expect(response.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
  });

  test('the store is asked for the key by its hash, never by the key', async () => {
    givenAdmitted(1);
    await getPrompt();
    expect(JSON.stringify(ddb.calls().map((call) => call.args[0].input))).not.toContain(API_KEY);
  });

  test('the list follows LastEvaluatedKey until the end', async () => {
    givenAdmitted(1);
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
    const response = toApiResponse(await api.list(apiEvent('GET', '/prompts', { apiKey: API_KEY }), lambdaContext()));
    expect(response.json<Array<{ promptId: string }>>().map((p) => p.promptId)).toEqual(['a', 'b', 'c']);
    expect(starts).toEqual([undefined, { pk: 'ACCOUNT#acme', sk: 'PROMPT#a' }, { pk: 'ACCOUNT#acme', sk: 'PROMPT#b' }]);
  });
});

describe('store round trips', () => {
  /** Records when each store call starts and ends, with the admission held open until released. */
  function trace() {
    const events: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    ddb.on(UpdateCommand).callsFake(async () => {
      events.push('admit:start');
      await released;
      events.push('admit:end');
      return { Attributes: keyItem(1) };
    });
    ddb.on(GetCommand).callsFake(async () => {
      events.push('read:start');
      return { Item: head };
    });
    return { events, release };
  }

  test('a key seen for the first time: verified first, then the prompt is read', async () => {
    const { events, release } = trace();
    const pending = getPrompt();
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    expect((await pending).status).toBe(200);
    expect(events).toEqual(['admit:start', 'admit:end', 'read:start']);
  });

  test('a key whose account is known: the prompt is read while the key is verified, one round trip in all', async () => {
    givenAdmitted(1);
    await getPrompt();
    ddb.reset();
    const { events, release } = trace();
    const pending = getPrompt();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).toEqual(['admit:start', 'read:start']);
    release();
    expect((await pending).status).toBe(200);
  });

  test('a key whose account is known, at a label: one BatchGetItem of head and label item while the key is verified, as latest', async () => {
    givenAdmitted(1);
    await getPrompt();
    ddb.reset();
    const { events, release } = trace();
    const labelItem = { sk: 'LABEL#production#welcome', labelled: { ...head.latest, version: '1.0.0' } };
    ddb.on(BatchGetCommand).callsFake(async () => {
      events.push('read:start');
      return { Responses: { table: [{ ...head, sk: 'PROMPT#welcome' }, labelItem] } };
    });
    const pending = getPrompt('/prompts/welcome?label=production');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).toEqual(['admit:start', 'read:start']);
    release();
    const answer = await pending;
    expect(answer.json<{ version: string }>().version).toBe('1.0.0');
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
    const [batch] = ddb.commandCalls(BatchGetCommand);
    expect(batch?.args[0].input.RequestItems?.table?.Keys).toEqual([
      { pk: 'ACCOUNT#acme', sk: 'PROMPT#welcome' },
      { pk: 'ACCOUNT#acme', sk: 'LABEL#production#welcome' },
    ]);
    expect(batch?.args[0].input.RequestItems?.table?.ConsistentRead).toBe(true);
  });

  test('keys a BatchGetItem leaves unprocessed are asked for again', async () => {
    givenAdmitted(1);
    const labelKey = { pk: 'ACCOUNT#acme', sk: 'LABEL#production#welcome' };
    ddb
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { table: [{ ...head, sk: 'PROMPT#welcome' }] }, UnprocessedKeys: { table: { Keys: [labelKey] } } })
      .resolves({ Responses: { table: [{ sk: labelKey.sk, labelled: { ...head.latest, version: '1.1.0' } }] } });
    const answer = await getPrompt('/prompts/welcome?label=production');
    expect(answer.json<{ version: string }>().version).toBe('1.1.0');
    expect(ddb.commandCalls(BatchGetCommand).map((call) => call.args[0].input.RequestItems?.table?.Keys)).toEqual([
      [{ pk: 'ACCOUNT#acme', sk: 'PROMPT#welcome' }, labelKey],
      [labelKey],
    ]);
  });

  test('a key revoked since: the prompt read in the meantime is never shown, the answer is 401', async () => {
    givenAdmitted(1);
    await getPrompt();
    ddb.reset();
    ddb
      .on(UpdateCommand)
      .rejects(new ConditionalCheckFailedException({ message: 'failed', $metadata: {}, Item: marshall({ ...keyItem(1), status: 'revoked' }) }));
    ddb.on(GetCommand).resolves({ Item: head });
    const response = await getPrompt();
    expect(response.status).toBe(401);
    expect(response.rawBody).not.toContain('welcome');
  });

  test('a handler failure while the key is refused: the refusal wins, and no unit is given back', async () => {
    givenAdmitted(1);
    await getPrompt();
    ddb.reset();
    ddb.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: 'failed', $metadata: {}, Item: marshall(keyItem(5000)) }));
    ddb.on(GetCommand).rejects(throttled());
    const response = await getPrompt();
    expect(response.status).toBe(429);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  test('OPTIONS, 405 and unknown routes make no store call', async () => {
    for (const [method, path] of [
      ['OPTIONS', '/prompts'],
      ['POST', '/prompts'],
      ['GET', '/nowhere'],
    ] as const) {
      await api.get(apiEvent(method, path, { apiKey: API_KEY }), lambdaContext());
    }
    expect(ddb.calls()).toHaveLength(0);
  });
});
