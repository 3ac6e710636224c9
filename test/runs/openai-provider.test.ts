import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { EndpointKeys } from '../../lambda/models/api-keys';
import type { CatalogModel } from '../../lambda/models/catalog';
import { ModelError, ModelThrottledError, ModelTimeoutError } from '../../lambda/models/errors';
import { OpenAiProvider } from '../../lambda/models/openai-provider';
import type { ModelRequest } from '../../lambda/models/provider';
import type { RetryPolicy } from '../../lambda/models/retry';
import { serverSentData } from '../../lambda/models/server-sent-events';
import { type OpenAiEndpoint, type ScriptedAnswer, sseChunk, startOpenAiEndpoint, streamedAnswer } from '../support/openai-endpoint';

/**
 * The OpenAI-compatible provider over real fetch, against a loopback chat completions endpoint (test/support/
 * openai-endpoint.ts) that records what it was sent and answers as each test scripts.
 */

const KEY = 'sk-test-Zq81LkP0aa77';
const QUICK: RetryPolicy = { attempts: 3, baseMs: 5, capMs: 20, random: () => 1 };
const within = (ms: number) => ({ deadline: Date.now() + ms });

let endpoint: OpenAiEndpoint;
let next: ScriptedAnswer[] = [];

beforeAll(async () => {
  endpoint = await startOpenAiEndpoint(() => next.shift() ?? { kind: 'json', status: 500, body: { error: { message: 'nothing scripted' } } });
});
afterAll(() => endpoint.close());
beforeEach(() => {
  next = [];
  endpoint.received.length = 0;
});

const model = (overrides: Partial<CatalogModel> = {}): CatalogModel => ({
  modelId: 'gpt-4o-mini',
  provider: 'openai',
  name: 'GPT-4o mini',
  streaming: true,
  structuredOutput: true,
  inputUsdPerMTok: 0.15,
  outputUsdPerMTok: 0.6,
  maxTemperature: 2,
  baseUrl: endpoint.baseUrl,
  apiKeyEnv: 'OPENAI_API_KEY',
  ...overrides,
});

const provider = (keys = new EndpointKeys(new Map([['gpt-4o-mini', KEY]]), () => new SecretsManagerClient({}))) => new OpenAiProvider(keys, QUICK);

const ask = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  model: model(),
  system: 'Be brief.',
  user: 'Greet Ada.',
  params: { maxTokens: 100, temperature: 1.5, topP: 0.9, stop: ['END'] },
  ...overrides,
});

test('a streamed answer is handed on piece by piece, with the usage of its last chunk', async () => {
  next = [{ kind: 'stream', chunks: streamedAnswer(['Hello', ' Ada', '!'], { prompt_tokens: 12, completion_tokens: 3 }) }];
  const pieces: string[] = [];
  const answer = await provider().converse(ask(), { ...within(5_000), onDelta: (text) => pieces.push(text) });
  expect(pieces).toEqual(['Hello', ' Ada', '!']);
  expect(answer).toMatchObject({ text: 'Hello Ada!', usage: { inputTokens: 12, outputTokens: 3 }, stopReason: 'end_turn', attempts: 1 });
  expect(answer.firstTokenMs).not.toBeNull();
});

test('the request is a chat completion with the messages, parameters, usage asked for, and the key as a Bearer token', async () => {
  next = [{ kind: 'stream', chunks: streamedAnswer(['ok'], { prompt_tokens: 1, completion_tokens: 1 }) }];
  await provider().converse(ask({ model: model({ endpointModel: 'openai/gpt-4o-mini' }) }), within(5_000));
  const [request] = endpoint.received;
  expect(request?.path).toBe('/v1/chat/completions');
  expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
  expect(request?.body).toEqual({
    model: 'openai/gpt-4o-mini',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Greet Ada.' },
    ],
    max_tokens: 100,
    temperature: 1.5,
    top_p: 0.9,
    stop: ['END'],
    stream: true,
    stream_options: { include_usage: true },
  });
});

test('structured output is asked for as a JSON schema response format', async () => {
  next = [{ kind: 'stream', chunks: streamedAnswer(['{"reply":"hi"}'], { prompt_tokens: 1, completion_tokens: 4 }) }];
  const schema = { type: 'object', properties: { reply: { type: 'string' } } };
  const answer = await provider().converse(ask({ output: { name: 'answer', description: 'The answer', schema } }), within(5_000));
  expect(endpoint.received[0]?.body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'answer', description: 'The answer', schema } });
  expect(answer.text).toBe('{"reply":"hi"}');
});

test('a model that does not stream gets one JSON answer', async () => {
  next = [
    {
      kind: 'json',
      body: {
        choices: [{ index: 0, message: { role: 'assistant', content: 'All at once' }, finish_reason: 'length' }],
        usage: { prompt_tokens: 5, completion_tokens: 9 },
      },
    },
  ];
  const answer = await provider().converse(ask({ model: model({ streaming: false }) }), within(5_000));
  expect(endpoint.received[0]?.body.stream).toBeUndefined();
  expect(answer).toMatchObject({ text: 'All at once', usage: { inputTokens: 5, outputTokens: 9 }, stopReason: 'max_tokens', firstTokenMs: null });
});

test('an endpoint that reports no usage is counted as the stand-in counts: a token per 4 characters', async () => {
  next = [{ kind: 'stream', chunks: streamedAnswer(['12345678', '9']) }];
  const answer = await provider().converse(ask(), within(5_000));
  // "Be brief." (9) + "Greet Ada." (10) = 19 characters in; 9 out.
  expect(answer.usage).toEqual({ inputTokens: 5, outputTokens: 3 });
});

test('throttling (429) is tried again after its Retry-After, then answered', async () => {
  next = [
    { kind: 'json', status: 429, headers: { 'Retry-After': '0.05' }, body: { error: { message: 'Rate limit reached' } } },
    { kind: 'stream', chunks: streamedAnswer(['ok'], { prompt_tokens: 1, completion_tokens: 1 }) },
  ];
  const answer = await provider().converse(ask(), within(5_000));
  expect(answer).toMatchObject({ text: 'ok', attempts: 2 });
});

test('throttling past every attempt is a ModelThrottledError with the endpoint’s message', async () => {
  next = [1, 2, 3].map(() => ({ kind: 'json', status: 429, body: { error: { message: 'Rate limit reached' } } }) as const);
  const failure = await provider()
    .converse(ask(), within(5_000))
    .catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(ModelThrottledError);
  expect(failure).toMatchObject({ attempts: 3, message: 'HTTP 429: Rate limit reached' });
});

test('an endpoint that echoes the key it refuses never gets it into the error', async () => {
  next = [{ kind: 'json', status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}. Also sk-proj-****abcd.` } } }];
  const failure = await provider()
    .converse(ask(), within(5_000))
    .catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(ModelError);
  const message = (failure as Error).message;
  expect(message).toBe('HTTP 401: Incorrect API key provided: [key]. Also [key].');
  expect(message).not.toContain('Zq81');
});

test('an error page is cut short to one line', async () => {
  next = [{ kind: 'text', status: 502, body: `<html>\n<body>${'Bad gateway '.repeat(200)}</body></html>` }];
  const failure = await provider()
    .converse(ask(), within(5_000))
    .catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(ModelError);
  expect((failure as Error).message.length).toBeLessThanOrEqual(500);
  expect((failure as Error).message).not.toContain('\n');
});

test('an error event in the middle of a stream is a ModelError, not tried again', async () => {
  next = [{ kind: 'stream', chunks: [...streamedAnswer(['half']).slice(0, 2), sseChunk({ error: { message: 'upstream overloaded' } })] }];
  const failure = await provider()
    .converse(ask(), within(5_000))
    .catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(ModelError);
  expect(failure).toMatchObject({ message: 'upstream overloaded', answered: true, attempts: 1 });
});

test('an endpoint past the run’s deadline is a ModelTimeoutError at the deadline', async () => {
  next = [{ kind: 'stream', chunks: streamedAnswer(['late']), firstAfterMs: 5_000 }];
  const started = Date.now();
  const failure = await provider()
    .converse(ask(), within(300))
    .catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(ModelTimeoutError);
  expect(Date.now() - started).toBeLessThan(3_000);
});

test('an endpoint that cannot be reached is a ModelError saying so', async () => {
  const failure = await provider()
    .converse(ask({ model: model({ baseUrl: 'http://127.0.0.1:9/v1' }) }), within(5_000))
    .catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(ModelError);
  expect((failure as Error).message).toMatch(/^the endpoint could not be reached/);
});

test('a model whose key variable is not set is a ModelError naming the variable, and nothing is sent', async () => {
  const failure = await provider(new EndpointKeys(new Map(), () => new SecretsManagerClient({})))
    .converse(ask(), within(5_000))
    .catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(ModelError);
  expect((failure as Error).message).toContain('set OPENAI_API_KEY');
  expect(endpoint.received).toHaveLength(0);
});

describe('a key in Secrets Manager (deployed)', () => {
  const arn = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:openai-AbCdEf';
  const secretModel = () => model({ apiKeyEnv: undefined, apiKeySecretArn: arn });

  test('is read once per cold start and sent as the Bearer token', async () => {
    const secrets = mockClient(SecretsManagerClient);
    secrets.on(GetSecretValueCommand, { SecretId: arn }).resolves({ SecretString: KEY });
    const keys = new EndpointKeys(new Map(), () => new SecretsManagerClient({ region: 'us-east-1' }));
    next = [1, 2].map(() => ({ kind: 'stream', chunks: streamedAnswer(['ok'], { prompt_tokens: 1, completion_tokens: 1 }) }) as const);
    await provider(keys).converse(ask({ model: secretModel() }), within(5_000));
    await provider(keys).converse(ask({ model: secretModel() }), within(5_000));
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(1);
    expect(endpoint.received.map((request) => request.headers.authorization)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
    secrets.restore();
  });

  test('that cannot be read is a ModelError, tried again on the next run', async () => {
    const secrets = mockClient(SecretsManagerClient);
    secrets
      .on(GetSecretValueCommand)
      .rejectsOnce(Object.assign(new Error('denied'), { name: 'AccessDeniedException' }))
      .resolves({ SecretString: KEY });
    const keys = new EndpointKeys(new Map(), () => new SecretsManagerClient({ region: 'us-east-1' }));
    const failure = await provider(keys)
      .converse(ask({ model: secretModel() }), within(5_000))
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelError);
    expect((failure as Error).message).toBe("the endpoint's key could not be read from Secrets Manager (AccessDeniedException)");
    next = [{ kind: 'stream', chunks: streamedAnswer(['ok'], { prompt_tokens: 1, completion_tokens: 1 }) }];
    await expect(provider(keys).converse(ask({ model: secretModel() }), within(5_000))).resolves.toMatchObject({ text: 'ok' });
    secrets.restore();
  });
});

describe('server-sent events', () => {
  async function* chunked(text: string, size: number): AsyncGenerator<Uint8Array> {
    const bytes = new TextEncoder().encode(text);
    for (let at = 0; at < bytes.length; at += size) yield bytes.slice(at, at + size);
  }
  const read = async (text: string, size: number) => {
    const events: string[] = [];
    for await (const data of serverSentData(chunked(text, size))) events.push(data);
    return events;
  };

  test('events split anywhere, a multi-byte character among them, read the same', async () => {
    const text = 'data: {"a":"é👋"}\r\n\r\n: a comment\nevent: x\ndata: one\ndata: two\n\ndata:[DONE]\r\r';
    for (const size of [1, 2, 3, 7, text.length]) expect(await read(text, size)).toEqual(['{"a":"é👋"}', 'one\ntwo', '[DONE]']);
  });

  test('a last event without its blank line still counts', async () => {
    expect(await read('data: last', 4)).toEqual(['last']);
  });
});

test('an endpoint that writes its key into the answer never gets it to the caller, whole or split across pieces', async () => {
  const [head, tail] = [KEY.slice(0, 9), KEY.slice(9)];
  next = [{ kind: 'stream', chunks: streamedAnswer(['Your key is ', head, tail, ', and again ', KEY, '.'], { prompt_tokens: 4, completion_tokens: 9 }) }];
  const pieces: string[] = [];
  const answer = await provider().converse(ask(), { ...within(5_000), onDelta: (text) => pieces.push(text) });
  expect(pieces.join('')).toBe('Your key is [key], and again [key].');
  expect(answer.text).toBe('Your key is [key], and again [key].');
  expect(JSON.stringify({ pieces, answer })).not.toContain('Zq81');
  // Ordinary text is not held back: the first piece goes on as it came.
  expect(pieces[0]).toBe('Your key is ');
});

test('a model that does not stream has its key taken out of its answer too', async () => {
  next = [{ kind: 'json', body: { choices: [{ index: 0, message: { role: 'assistant', content: `Bearer ${KEY}` }, finish_reason: 'stop' }] } }];
  const answer = await provider().converse(ask({ model: model({ streaming: false }) }), within(5_000));
  expect(answer.text).toBe('Bearer [key]');
});
