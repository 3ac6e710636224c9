import type { APIGatewayProxyEvent } from 'aws-lambda';
import { createFallbackHandler, createGetPromptHandler, createListPromptsHandler } from '../../lambda/handlers';
import { METRIC, METRICS_NAMESPACE } from '../../lambda/metric-names';
import { productionDependencies } from '../../lambda/runtime';
import { apiEvent, lambdaContext } from '../support/events';
import { Fixtures, prompt, version } from '../support/fixtures';
import type { LogRecord } from '../support/key-leak-check';
import { capturedLogRecords } from '../support/log-capture';
import { type LocalStore, startLocalStore } from '../support/local-store';

/**
 * The functions as runtime.ts builds them (Powertools Logger and Metrics included) against a real store:
 * what they write to stdout, which is what Lambda sends to CloudWatch, read back line by line.
 */

const SERVICE = 'prompt-service-telemetry-test';
let store: LocalStore;
let apiKey: string;
let zeroLimitKey: string;

beforeAll(async () => {
  // Lambda sets it for on-demand functions; Powertools reports cold starts only then.
  process.env.AWS_LAMBDA_INITIALIZATION_TYPE = 'on-demand';
  store = await startLocalStore('telemetry-test');
  const fixtures = new Fixtures(store.client, store.tableName);
  await fixtures.account('acme');
  await fixtures.prompts('acme', prompt('welcome', [version('1.0.0')]));
  apiKey = await fixtures.apiKey('acme');
  zeroLimitKey = await fixtures.apiKey('acme', { monthlyLimit: 0 });
});
afterAll(async () => {
  delete process.env.AWS_LAMBDA_INITIALIZATION_TYPE;
  await store.close();
});

type Event = APIGatewayProxyEvent;

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
  return (name: keyof typeof handlers, event: Event) => handlers[name](event, lambdaContext());
}

/** What the functions write from now on. */
function watch() {
  const from = capturedLogRecords().length;
  const mine = () => capturedLogRecords().slice(from).filter((record) => record.service === SERVICE);
  return {
    lines: () => mine().filter((record) => !('_aws' in record)),
    requests: () => mine().filter((record) => record.message === 'request'),
    metrics: () => mine().filter((record) => '_aws' in record),
  };
}

interface MetricDirective {
  Namespace: string;
  Dimensions: string[][];
  Metrics: { Name: string; Unit: string }[];
}

/** Every value of one metric in the blobs, each with the dimensions it was published under. */
function metricValues(blobs: readonly LogRecord[], name: string): { value: number; dimensions: Record<string, unknown> }[] {
  return blobs.flatMap((blob) => {
    const directives = (blob._aws as { CloudWatchMetrics: MetricDirective[] }).CloudWatchMetrics;
    const directive = directives.find((candidate) => candidate.Metrics.some((metric) => metric.Name === name));
    if (!directive) return [];
    expect(directive.Namespace).toBe(METRICS_NAMESPACE);
    const dimensions = Object.fromEntries((directive.Dimensions[0] ?? []).map((dimension) => [dimension, blob[dimension]]));
    const raw = blob[name];
    return (Array.isArray(raw) ? raw : [raw]).map((value) => ({ value: Number(value), dimensions }));
  });
}

describe('logs (Powertools Logger)', () => {
  test('one line per request with route, status, latency, key id, account and usage, plus cold start and request id', async () => {
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
      status: 200,
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
      [404, 'NOT_FOUND'],
      [405, 'METHOD_NOT_ALLOWED'],
    ]);
  });

  test('the level comes from POWERTOOLS_LOG_LEVEL: at WARN a 200 writes no line', async () => {
    const invoke = coldFunctions({ POWERTOOLS_LOG_LEVEL: 'WARN' });
    const seen = watch();
    await invoke('getPrompt', apiEvent('GET', '/prompts/welcome', { apiKey }));
    expect(seen.lines()).toEqual([]);
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

  test('a preflight, answered before any handler runs, is logged too', async () => {
    const invoke = coldFunctions();
    const seen = watch();
    await invoke('fallback', apiEvent('OPTIONS', '/prompts/welcome', { headers: { Origin: 'https://app.test' } }));
    expect(seen.requests()).toEqual([expect.objectContaining({ method: 'OPTIONS', status: 204 })]);
  });
});

describe('metrics (Powertools Metrics, embedded metric format)', () => {
  test('each request is counted by route and status', async () => {
    const invoke = coldFunctions();
    const seen = watch();
    await invoke('getPrompt', apiEvent('GET', '/prompts/welcome', { apiKey }));
    await invoke('listPrompts', apiEvent('GET', '/prompts', { apiKey }));
    await invoke('getPrompt', apiEvent('GET', '/prompts/missing', { apiKey }));
    expect(metricValues(seen.metrics(), METRIC.requests)).toEqual([
      { value: 1, dimensions: { service: SERVICE, route: 'getPrompt', status: '200' } },
      { value: 1, dimensions: { service: SERVICE, route: 'listPrompts', status: '200' } },
      { value: 1, dimensions: { service: SERVICE, route: 'getPrompt', status: '404' } },
    ]);
  });

  test('every store round trip is timed, and so is every request', async () => {
    const invoke = coldFunctions();
    const seen = watch();
    await invoke('getPrompt', apiEvent('GET', '/prompts/welcome', { apiKey }));
    const storeLatency = metricValues(seen.metrics(), METRIC.storeLatency);
    // A key's first request in a function: the count, then the prompt head.
    expect(storeLatency).toHaveLength(2);
    for (const { value, dimensions } of storeLatency) {
      expect(value).toBeGreaterThan(0);
      expect(dimensions).toEqual({ service: SERVICE });
    }
    expect(metricValues(seen.metrics(), METRIC.latency)).toEqual([{ value: expect.any(Number), dimensions: { service: SERVICE } }]);
  });

  test('401s and 429s are counted on metrics of their own', async () => {
    const invoke = coldFunctions();
    const seen = watch();
    await invoke('getPrompt', apiEvent('GET', '/prompts/welcome'));
    await invoke('getPrompt', apiEvent('GET', '/prompts/welcome', { apiKey: zeroLimitKey }));
    expect(metricValues(seen.metrics(), METRIC.unauthorized).map(({ value }) => value)).toEqual([1]);
    expect(metricValues(seen.metrics(), METRIC.usageLimitExceeded).map(({ value }) => value)).toEqual([1]);
  });

  test('a preflight is counted and its metrics flushed, though no after-middleware ran', async () => {
    const invoke = coldFunctions();
    const seen = watch();
    await invoke('fallback', apiEvent('OPTIONS', '/anything'));
    expect(metricValues(seen.metrics(), METRIC.requests)).toEqual([
      { value: 1, dimensions: { service: SERVICE, route: 'preflight', status: '204' } },
    ]);
    expect(metricValues(seen.metrics(), METRIC.latency)).toHaveLength(1);
  });

  test('a cold start is counted once per function instance, named after the function', async () => {
    const invoke = coldFunctions();
    const seen = watch();
    await invoke('getPrompt', apiEvent('GET', '/prompts/welcome', { apiKey }));
    await invoke('getPrompt', apiEvent('GET', '/prompts/welcome', { apiKey }));
    expect(metricValues(seen.metrics(), 'ColdStart')).toEqual([
      { value: 1, dimensions: { service: SERVICE, function_name: 'test' } },
    ]);
  });
});
