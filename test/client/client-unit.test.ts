import {
  createPromptClient,
  type FetchFunction,
  type FetchInit,
  InvalidOptionsError,
  type PromptData,
  type PromptSnapshot,
  ServiceUnavailableError,
} from '../../client/src/index';

/**
 * What the real stack cannot be made to do on demand (hang, answer 5xx, throttle at the gateway),
 * through an injected fetch. Behaviour against the real stack is in client.test.ts.
 */

const KEY = 'prs_unit_test_key_do_not_echo_0001';
const BASE = 'https://prompts.example.test';

const body = (promptId: string, version = '1.0.0'): PromptData => ({
  promptId,
  promptName: promptId,
  version,
  systemMessage: 'System',
  userMessage: 'Hello ${name}',
  config: { model: 'm', temperature: 0.5, schema: [], inputData: null, inputDataRootName: null },
});

const snapshotOf = (...prompts: PromptData[]): PromptSnapshot => ({
  format: 'prompt-retrieval-snapshot',
  formatVersion: 1,
  createdAt: '2026-11-01T00:00:00.000Z',
  prompts,
  versions: [],
});

function response(status: number, json?: unknown, headers: Record<string, string> = {}) {
  return { status, headers: new Headers(headers), text: async () => (json === undefined ? '' : JSON.stringify(json)) };
}

/** A fetch that answers from a script, and remembers every call. */
function scripted(answer: (url: string, init: FetchInit) => ReturnType<FetchFunction>) {
  const calls: Array<{ url: string; init: FetchInit }> = [];
  const fetch: FetchFunction = (url, init) => {
    calls.push({ url, init });
    return answer(url, init);
  };
  return { fetch, calls };
}

/** A fetch that never answers, but gives up when its signal is aborted, as a real one does. */
const hanging: FetchFunction = (_url, init) =>
  new Promise((_resolve, reject) => init.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));

test('a request with no answer within timeoutMs is an outage: the snapshot copy is served', async () => {
  const client = createPromptClient({ baseUrl: BASE, apiKey: KEY, fetch: hanging, timeoutMs: 20, snapshot: snapshotOf(body('p')) });

  expect(await client.get('p')).toMatchObject({ source: 'snapshot', version: '1.0.0' });
});

test('a request with no answer within timeoutMs, and no copy, throws SERVICE_UNAVAILABLE saying so', async () => {
  const client = createPromptClient({ baseUrl: BASE, apiKey: KEY, fetch: hanging, timeoutMs: 20 });

  const error = await client.get('p').catch((caught: unknown) => caught);

  expect(error).toBeInstanceOf(ServiceUnavailableError);
  expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: 'GET /prompts/p: no answer within 20 ms' });
});

test('a 5xx with no copy to serve throws SERVICE_UNAVAILABLE with the API status and message', async () => {
  const { fetch } = scripted(async () => response(503, { error: 'The service is temporarily unavailable.', code: 'SERVICE_UNAVAILABLE' }));
  const client = createPromptClient({ baseUrl: BASE, apiKey: KEY, fetch });

  await expect(client.get('p')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, message: 'The service is temporarily unavailable.' });
});

test('a 5xx on revalidation keeps the cached copy, and the API is asked again only after a pause', async () => {
  const clock = { now: 0 };
  let down = false;
  const { fetch, calls } = scripted(async () => (down ? response(500, { error: 'boom', code: 'INTERNAL_ERROR' }) : response(200, body('p'), { etag: '"a"' })));
  const client = createPromptClient({ baseUrl: BASE, apiKey: KEY, fetch, now: () => clock.now });
  await client.get('p');
  down = true;

  clock.now = 60_000;
  for (let i = 0; i < 50; i += 1) expect((await client.get('p')).source).toBe('cache');
  await client.idle();
  for (let i = 0; i < 50; i += 1) await client.get('p');
  expect(calls).toHaveLength(2);

  clock.now += 5_000;
  await client.get('p');
  await client.idle();
  expect(calls).toHaveLength(3);
});

test("API Gateway's own 429 (no code, no Retry-After) pauses requests briefly and throws SERVICE_UNAVAILABLE when nothing is cached", async () => {
  const clock = { now: 0 };
  const { fetch, calls } = scripted(async () => response(429, { message: 'Too Many Requests' }));
  const client = createPromptClient({ baseUrl: BASE, apiKey: KEY, fetch, now: () => clock.now });

  await expect(client.get('p')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 429 });
  await expect(client.get('q')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  expect(calls).toHaveLength(1);
  clock.now += 1_000;
  await client.get('q').catch(() => undefined);
  expect(calls).toHaveLength(2);
});

test('a fetch that throws anything, even synchronously, never surfaces as an unhandled rejection', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const clock = { now: 0 };
    let calls = 0;
    const fetch: FetchFunction = (url) => {
      calls += 1;
      if (calls === 1) return Promise.resolve(response(200, body('p')));
      if (url.endsWith('/prompts')) throw 'not even an Error';
      return Promise.reject(undefined);
    };
    const client = createPromptClient({ baseUrl: BASE, apiKey: KEY, fetch, now: () => clock.now, snapshot: snapshotOf(body('p')) });
    await client.get('p');
    clock.now = 120_000;
    await client.get('p');
    await client.list();
    await client.idle();
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test('after a 401, every call asks the API, and once it accepts the key again copies are served again', async () => {
  let status = 200;
  const { fetch, calls } = scripted(async () =>
    status === 401 ? response(401, { error: 'Invalid API key', code: 'UNAUTHORIZED' }) : response(200, body('p'), { etag: '"a"' }),
  );
  const clock = { now: 0 };
  const client = createPromptClient({ baseUrl: BASE, apiKey: KEY, fetch, now: () => clock.now });
  await client.get('p');
  status = 401;
  clock.now = 60_000;
  await client.get('p');
  await client.idle();

  await expect(client.get('p')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  await expect(client.get('p')).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  status = 200;
  expect((await client.get('p')).source).toBe('network');
  expect((await client.get('p')).source).toBe('cache');
  expect(calls).toHaveLength(5);
});

test('an answer that is not a prompt is treated as an outage, not handed to the caller', async () => {
  const { fetch } = scripted(async () => response(200, { hello: 'captive portal' }));
  const client = createPromptClient({ baseUrl: BASE, apiKey: KEY, fetch, snapshot: snapshotOf(body('p')) });

  expect((await client.get('p')).source).toBe('snapshot');
  await expect(client.get('q')).rejects.toThrow('GET /prompts/q: the answer is not a prompt the client can read (promptId: must be a string)');
});

test('the key is sent only in the Authorization header, the id is encoded, and a trailing slash on baseUrl is fine', async () => {
  const { fetch, calls } = scripted(async () => response(200, body('a b')));
  const client = createPromptClient({ baseUrl: `${BASE}/`, apiKey: KEY, fetch });

  await client.get('a b', { version: '1.0.0' });

  expect(calls[0]?.url).toBe(`${BASE}/prompts/a%20b?version=1.0.0`);
  expect(calls[0]?.init.headers).toEqual({ authorization: `Bearer ${KEY}`, accept: 'application/json' });
});

test('the key never appears in an error or in the client as printed', async () => {
  const { fetch } = scripted(async () => response(401, { error: 'Invalid API key', code: 'UNAUTHORIZED' }));
  const client = createPromptClient({ baseUrl: BASE, apiKey: KEY, fetch });

  const error = await client.get('p').catch((caught: unknown) => caught);

  expect(JSON.stringify(error)).not.toContain(KEY);
  expect(String(error)).not.toContain(KEY);
  expect(require('node:util').inspect(client, { depth: 10, showHidden: true })).not.toContain(KEY);
});

test('prompts handed out are frozen, so no caller can change what the next one gets', async () => {
  const { fetch } = scripted(async () => response(200, body('p')));
  const client = createPromptClient({ baseUrl: BASE, apiKey: KEY, fetch });

  const first = await client.get('p');
  expect(() => {
    (first as { userMessage: string }).userMessage = 'changed';
  }).toThrow(TypeError);
  expect(() => (first.config.schema as unknown[]).push('x')).toThrow(TypeError);
  expect((await client.get('p')).userMessage).toBe('Hello ${name}');
});

test.each([
  [{ baseUrl: 'prompts.example.test', apiKey: KEY }, 'baseUrl: must be an absolute http or https URL, got "prompts.example.test"'],
  [{ baseUrl: 'ftp://prompts.example.test', apiKey: KEY }, 'baseUrl: must be an http or https URL, got "ftp://prompts.example.test"'],
  [{ baseUrl: BASE, apiKey: ' ' }, 'apiKey: must be a non-empty string'],
  [{ baseUrl: BASE, apiKey: KEY, ttlSeconds: -1 }, 'ttlSeconds: must be a number, 0 or more'],
  [{ baseUrl: BASE, apiKey: KEY, snapshot: '{' }, /^snapshot: not valid JSON/],
  [
    { baseUrl: BASE, apiKey: KEY, snapshot: { format: 'other' } as never },
    'snapshot: not a snapshot of this client (expected format "prompt-retrieval-snapshot", formatVersion 1)',
  ],
  [
    { baseUrl: BASE, apiKey: KEY, snapshot: { ...snapshotOf(body('p')), versions: [{ ...body('q'), version: 1 }] } as never },
    'snapshot.versions[0].version: must be a string',
  ],
])('createPromptClient refuses bad options at once, naming the option: %#', (options, message) => {
  expect(() => createPromptClient(options)).toThrow(InvalidOptionsError);
  expect(() => createPromptClient(options)).toThrow(message);
});
