import { createServer, type Server } from 'node:http';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { createFallbackHandler, createGetPromptHandler, createListPromptsHandler } from '../../lambda/read-api/handlers';
import { METRIC, METRICS_NAMESPACE } from '../../lambda/metric-names';
import { productionDependencies } from '../../lambda/read-api/runtime';
import { emfMetrics, emfProblems } from '../support/emf';
import { apiEvent, lambdaContext } from '../support/events';
import { Fixtures, prompt, version } from '../support/fixtures';
import type { LogRecord } from '../support/key-leak-check';
import { capturedLogRecords } from '../support/log-capture';
import { type LocalStore, startLocalStore } from '../support/local-store';

/**
 * The functions as runtime.ts builds them (Powertools Logger and Metrics included) against a real store:
 * what they write to stdout and stderr, which is what Lambda sends to CloudWatch, read back line by line.
 */

const SERVICE = 'prompt-service-telemetry-test';
/** A store that throttles every call (a port of this test's own range): every request gets a 503. */
const THROTTLING_STORE_PORT = 42150;
const THROTTLING_STORE = `http://127.0.0.1:${THROTTLING_STORE_PORT}`;
let store: LocalStore;
let throttlingStore: Server;
let apiKey: string;
let zeroLimitKey: string;

function startThrottlingStore(): Promise<Server> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException', message: 'Rate exceeded' }));
    });
  });
  return new Promise((resolve) => server.listen(THROTTLING_STORE_PORT, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  // Lambda sets it for on-demand functions; Powertools reports cold starts only then.
  process.env.AWS_LAMBDA_INITIALIZATION_TYPE = 'on-demand';
  store = await startLocalStore('telemetry-test');
  throttlingStore = await startThrottlingStore();
  const fixtures = new Fixtures(store.client, store.tableName);
  await fixtures.account('acme');
  await fixtures.prompts('acme', prompt('welcome', [version('1.0.0')]));
  apiKey = await fixtures.apiKey('acme');
  zeroLimitKey = await fixtures.apiKey('acme', { monthlyLimit: 0 });
});
afterAll(async () => {
  delete process.env.AWS_LAMBDA_INITIALIZATION_TYPE;
  await store.close();
  await new Promise((resolve) => throttlingStore.close(resolve));
});

type Event = APIGatewayProxyEvent;
type FunctionName = 'getPrompt' | 'listPrompts' | 'fallback';

/** A fresh set of functions, as after a cold start, with the environment the stack gives them. */
function coldFunctions(env: Record<string, string> = {}) {
  const deps = productionDependencies({
    TABLE_NAME: store.tableName,
    UPGRADE_URL: 'https://prompts.example.test/upgrade',
    AWS_REGION: 'us-east-1',
    DYNAMODB_ENDPOINT: store.endpoint,
    POWERTOOLS_SERVICE_NAME: SERVICE,
    ...env,
  });
  const handlers = {
    getPrompt: createGetPromptHandler(deps),
    listPrompts: createListPromptsHandler(deps),
    fallback: createFallbackHandler(deps),
  };
  return (name: FunctionName, event: Event) => handlers[name](event, lambdaContext());
}

/** Every line the functions write from now on, and their request lines. */
function watch() {
  const from = capturedLogRecords().length;
  const lines = () =>
    capturedLogRecords()
      .slice(from)
      .filter((record) => record.service === SERVICE);
  return { lines, requests: () => lines().filter((record) => record.message === 'request') };
}

/** Every value of one metric in the lines, each with the dimensions it was published under. */
function metricValues(lines: readonly LogRecord[], name: string): { value: number; dimensions: Readonly<Record<string, unknown>> }[] {
  return lines
    .filter((line) => '_aws' in line)
    .flatMap((line) => emfMetrics(line))
    .filter((metric) => metric.name === name)
    .flatMap((metric) => {
      expect(metric.namespace).toBe(METRICS_NAMESPACE);
      return metric.values.map((value) => ({ value, dimensions: metric.dimensions }));
    });
}

describe('one line per request, carrying its metrics (CloudWatch embedded metric format)', () => {
  const cases: Array<{
    answer: string;
    send: () => [FunctionName, Event];
    env?: Record<string, string>;
    fields: Record<string, unknown>;
    counted?: string;
  }> = [
    {
      answer: 'a 200',
      send: () => ['getPrompt', apiEvent('GET', '/prompts/welcome', { apiKey })],
      fields: { level: 'INFO', route: 'getPrompt', status: '200', keyId: expect.stringMatching(/^key_[0-9a-f]{16}$/), accountId: 'acme' },
    },
    {
      answer: 'a 401',
      send: () => ['getPrompt', apiEvent('GET', '/prompts/welcome')],
      fields: { level: 'INFO', route: 'getPrompt', status: '401', errorCode: 'UNAUTHORIZED' },
      counted: METRIC.unauthorized,
    },
    {
      answer: 'a 429',
      send: () => ['getPrompt', apiEvent('GET', '/prompts/welcome', { apiKey: zeroLimitKey })],
      fields: { level: 'INFO', route: 'getPrompt', status: '429', errorCode: 'USAGE_LIMIT_EXCEEDED', used: 0, limit: 0 },
      counted: METRIC.usageLimitExceeded,
    },
    {
      answer: 'a 503',
      send: () => ['getPrompt', apiEvent('GET', '/prompts/welcome', { apiKey })],
      env: { DYNAMODB_ENDPOINT: THROTTLING_STORE },
      fields: { level: 'ERROR', route: 'getPrompt', status: '503', errorCode: 'SERVICE_UNAVAILABLE', error: expect.any(Object) },
      counted: METRIC.serviceUnavailable,
    },
    {
      answer: 'a preflight',
      send: () => ['fallback', apiEvent('OPTIONS', '/prompts/welcome', { headers: { Origin: 'https://app.test' } })],
      fields: { level: 'INFO', method: 'OPTIONS', route: 'preflight', status: '204' },
    },
  ];

  test.each(cases)('$answer: one parseable line with its fields and its metrics as valid EMF', async ({ send, env, fields, counted }) => {
    const invoke = coldFunctions(env);
    // Warm: the cold start's metric rides on the first line, and is tested below.
    await invoke(...send());
    const seen = watch();
    await invoke(...send());

    const lines = seen.lines();
    expect(lines).toHaveLength(1);
    const [line] = lines as [LogRecord];
    expect(line).toMatchObject({
      message: 'request',
      service: SERVICE,
      cold_start: false,
      function_name: 'test',
      function_request_id: 'aws-request-id',
      gatewayRequestId: 'request-id',
      latencyMs: expect.any(Number),
      ...fields,
    });
    expect(emfProblems(line)).toEqual([]);
    expect(metricValues(lines, METRIC.requests)).toEqual([{ value: 1, dimensions: { service: SERVICE, route: fields.route, status: fields.status } }]);
    expect(metricValues(lines, METRIC.latency)).toEqual([{ value: line.latencyMs, dimensions: { service: SERVICE } }]);
    const refusals = [METRIC.unauthorized, METRIC.usageLimitExceeded, METRIC.serviceUnavailable];
    for (const metric of refusals) {
      expect(metricValues(lines, metric)).toEqual(metric === counted ? [{ value: 1, dimensions: { service: SERVICE } }] : []);
    }
  });

  test('the embedded-metric check refuses what CloudWatch would not take', () => {
    const valid = {
      _aws: { Timestamp: 1, CloudWatchMetrics: [{ Namespace: 'N', Dimensions: [['service']], Metrics: [{ Name: 'M', Unit: 'Count' }] }] },
      service: 's',
      M: 1,
    };
    expect(emfProblems(valid)).toEqual([]);
    expect(emfProblems({ ...valid, service: 200 })).toEqual(['dimension service is not a string at the root']);
    expect(emfProblems({ ...valid, M: undefined })).toEqual(['metric M is not a number or an array of numbers']);
    expect(emfProblems({ _aws: valid._aws, M: 1 })).toEqual(['dimension service (_aws.CloudWatchMetrics[0].Dimensions[0]) is not a member of the root']);
    expect(emfProblems({ ...valid, _aws: { CloudWatchMetrics: [] } })).toEqual(['_aws.Timestamp is not a number of milliseconds since the epoch']);
  });
});

describe('logs (Powertools Logger)', () => {
  test('the line has route, status, latency, key id, account and usage, plus cold start and request id', async () => {
    const invoke = coldFunctions();
    const seen = watch();
    await invoke('getPrompt', apiEvent('GET', '/prompts/welcome', { apiKey }));
    await invoke('getPrompt', apiEvent('GET', '/prompts/welcome', { apiKey }));
    const [first, second] = seen.requests();
    expect(seen.requests()).toHaveLength(2);
    expect(first).toMatchObject({
      level: 'INFO',
      message: 'request',
      service: SERVICE,
      cold_start: true,
      function_request_id: 'aws-request-id',
      method: 'GET',
      path: '/prompts/welcome',
      route: 'getPrompt',
      status: '200',
      keyId: expect.stringMatching(/^key_[0-9a-f]{16}$/),
      accountId: 'acme',
      limit: 5000,
      gatewayRequestId: 'request-id',
    });
    expect(typeof first?.latencyMs).toBe('number');
    expect(second).toMatchObject({ cold_start: false, used: Number(first?.used) + 1 });
  });

  test('a refused request names the error code the error handler answered with', async () => {
    const invoke = coldFunctions();
    const seen = watch();
    await invoke('getPrompt', apiEvent('GET', '/prompts/missing', { apiKey }));
    await invoke('fallback', apiEvent('DELETE', '/prompts', { apiKey }));
    expect(seen.requests().map((line) => [line.status, line.errorCode])).toEqual([
      ['404', 'NOT_FOUND'],
      ['405', 'METHOD_NOT_ALLOWED'],
    ]);
  });

  test("at WARN a 200's line holds its metrics alone, at WARN, so that Lambda's filter at WARN keeps it", async () => {
    const invoke = coldFunctions({ POWERTOOLS_LOG_LEVEL: 'WARN' });
    await invoke('getPrompt', apiEvent('GET', '/prompts/welcome', { apiKey }));
    const seen = watch();
    await invoke('getPrompt', apiEvent('GET', '/prompts/welcome', { apiKey }));
    const lines = seen.lines();
    expect(lines).toHaveLength(1);
    const [line] = lines as [LogRecord];
    expect(line).toMatchObject({ level: 'WARN', message: 'request metrics', service: SERVICE, route: 'getPrompt', status: '200' });
    expect(line).not.toHaveProperty('keyId');
    expect(line).not.toHaveProperty('path');
    expect(emfProblems(line)).toEqual([]);
    expect(metricValues(lines, METRIC.requests)).toEqual([{ value: 1, dimensions: { service: SERVICE, route: 'getPrompt', status: '200' } }]);
  });

  test('at WARN a 5xx still writes its whole line, at ERROR', async () => {
    const invoke = coldFunctions({ POWERTOOLS_LOG_LEVEL: 'WARN', DYNAMODB_ENDPOINT: THROTTLING_STORE });
    const seen = watch();
    await invoke('getPrompt', apiEvent('GET', '/prompts/welcome', { apiKey }));
    expect(seen.lines()).toEqual([expect.objectContaining({ level: 'ERROR', message: 'request', status: '503', errorCode: 'SERVICE_UNAVAILABLE' })]);
  });

  test('at DEBUG each store round trip is logged with its operation and time', async () => {
    const invoke = coldFunctions({ POWERTOOLS_LOG_LEVEL: 'DEBUG' });
    const seen = watch();
    await invoke('getPrompt', apiEvent('GET', '/prompts/welcome', { apiKey }));
    const calls = seen.lines().filter((line) => line.message === 'store call');
    expect(calls.map((line) => line.operation)).toContain('UpdateItem');
    for (const call of calls) expect(call).toMatchObject({ level: 'DEBUG', durationMs: expect.any(Number), failed: false });
  });

  test('the event, which carries the key, is not logged even when POWERTOOLS_LOGGER_LOG_EVENT asks for it', async () => {
    process.env.POWERTOOLS_LOGGER_LOG_EVENT = 'true';
    try {
      const invoke = coldFunctions();
      const seen = watch();
      await invoke('getPrompt', apiEvent('GET', '/prompts/welcome', { apiKey }));
      expect(seen.lines()).toHaveLength(1);
      expect(JSON.stringify(seen.lines())).not.toContain(apiKey);
    } finally {
      delete process.env.POWERTOOLS_LOGGER_LOG_EVENT;
    }
  });
});

describe('metrics (Powertools Metrics, in the request line)', () => {
  test('each request is counted by route and status', async () => {
    const invoke = coldFunctions();
    const seen = watch();
    await invoke('getPrompt', apiEvent('GET', '/prompts/welcome', { apiKey }));
    await invoke('listPrompts', apiEvent('GET', '/prompts', { apiKey }));
    await invoke('getPrompt', apiEvent('GET', '/prompts/missing', { apiKey }));
    expect(metricValues(seen.lines(), METRIC.requests)).toEqual([
      { value: 1, dimensions: { service: SERVICE, route: 'getPrompt', status: '200' } },
      { value: 1, dimensions: { service: SERVICE, route: 'listPrompts', status: '200' } },
      { value: 1, dimensions: { service: SERVICE, route: 'getPrompt', status: '404' } },
    ]);
  });

  test('every store round trip is timed, and so is every request', async () => {
    const invoke = coldFunctions();
    const seen = watch();
    await invoke('getPrompt', apiEvent('GET', '/prompts/welcome', { apiKey }));
    const storeLatency = metricValues(seen.lines(), METRIC.storeLatency);
    // A key's first request in a function: the count, then the prompt head.
    expect(storeLatency).toHaveLength(2);
    for (const { value, dimensions } of storeLatency) {
      expect(value).toBeGreaterThan(0);
      expect(dimensions).toEqual({ service: SERVICE });
    }
    expect(metricValues(seen.lines(), METRIC.latency)).toEqual([{ value: expect.any(Number), dimensions: { service: SERVICE } }]);
  });

  test('a cold start is counted once per function instance, named after the function, on its first line', async () => {
    const invoke = coldFunctions();
    const seen = watch();
    await invoke('getPrompt', apiEvent('GET', '/prompts/welcome', { apiKey }));
    await invoke('getPrompt', apiEvent('GET', '/prompts/welcome', { apiKey }));
    const [first, second] = seen.lines() as [LogRecord, LogRecord];
    expect(metricValues([first], METRIC.coldStart)).toEqual([{ value: 1, dimensions: { service: SERVICE, function_name: 'test' } }]);
    expect(emfProblems(first)).toEqual([]);
    expect(metricValues([second], METRIC.coldStart)).toEqual([]);
  });
});
