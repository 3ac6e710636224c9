import { BedrockProvider, createBedrockClient } from '../../lambda/models/bedrock-provider';
import type { CatalogModel } from '../../lambda/models/catalog';
import { ModelError, ModelThrottledError, ModelTimeoutError } from '../../lambda/models/errors';
import type { ModelRequest } from '../../lambda/models/provider';
import type { RetryPolicy } from '../../lambda/models/retry';
import { type ModelStandIn, startModelStandIn } from '../../local/model-stand-in/server';

/**
 * The Bedrock provider through AWS's own BedrockRuntimeClient, against the local stand-in model (which speaks
 * Bedrock Runtime's protocol, the binary event stream included): the code path a deployed run takes.
 */

let standIn: ModelStandIn;
let provider: BedrockProvider;
// Quick waits, so the tests are about how many attempts, not how long.
const QUICK: RetryPolicy = { attempts: 4, baseMs: 5, capMs: 20, random: () => 1 };

beforeAll(async () => {
  standIn = await startModelStandIn();
  provider = new BedrockProvider(createBedrockClient({ region: 'us-east-1', endpoint: standIn.url }), QUICK);
});

afterAll(() => standIn.close());

const model = (overrides: Partial<CatalogModel> = {}): CatalogModel => ({
  modelId: 'us.anthropic.claude-haiku-4-5-20251001-v1:0',
  provider: 'local',
  name: 'Claude Haiku 4.5',
  streaming: true,
  structuredOutput: true,
  inputUsdPerMTok: 1,
  outputUsdPerMTok: 5,
  maxTemperature: 1,
  ...overrides,
});

const ask = (user: string, overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  model: model(),
  system: 'Be brief.',
  user,
  params: { maxTokens: 256 },
  ...overrides,
});

const within = (ms: number) => ({ deadline: Date.now() + ms });

test('a streaming model’s answer is handed on piece by piece as it arrives, then whole with its usage and stop reason', async () => {
  const pieces: string[] = [];
  const answer = await provider.converse(ask('REPLY: Hello Ada, welcome to Acme!'), { ...within(10_000), onDelta: (text) => pieces.push(text) });
  expect(pieces).toEqual(['Hello Ad', 'a, welco', 'me to Ac', 'me!']);
  expect(answer.text).toBe('Hello Ada, welcome to Acme!');
  // ceil((9 + 34) / 4) in, ceil(27 / 4) out: the stand-in's count.
  expect(answer.usage).toEqual({ inputTokens: 11, outputTokens: 7 });
  expect(answer.stopReason).toBe('end_turn');
  expect(answer.attempts).toBe(1);
});

test('the time to the first piece is measured from the call: SLOW: gives the model’s share', async () => {
  const answer = await provider.converse(ask('SLOW:300 REPLY: late'), within(10_000));
  expect(answer.firstTokenMs).toBeGreaterThanOrEqual(300);
  expect(answer.latencyMs).toBeGreaterThanOrEqual(answer.firstTokenMs ?? 0);
});

test('a model that does not stream is called with Converse: one answer, no time to a first piece', async () => {
  const pieces: string[] = [];
  const answer = await provider.converse(ask('REPLY: all at once', { model: model({ streaming: false }) }), {
    ...within(10_000),
    onDelta: (text) => pieces.push(text),
  });
  expect(answer).toMatchObject({ text: 'all at once', firstTokenMs: null, stopReason: 'end_turn' });
  expect(pieces).toEqual([]);
});

test('maxTokens and stop sequences reach the model as its inference configuration', async () => {
  const cut = await provider.converse(ask('REPLY: abcdefghijkl', { params: { maxTokens: 2 } }), within(10_000));
  expect(cut).toMatchObject({ text: 'abcdefgh', stopReason: 'max_tokens' });
  const stopped = await provider.converse(ask('REPLY: one. two.', { params: { maxTokens: 100, stop: ['.'] } }), within(10_000));
  expect(stopped).toMatchObject({ text: 'one', stopReason: 'stop_sequence' });
});

test('structured output is asked for as a forced tool, and the tool’s input is the answer', async () => {
  const output = { name: 'answer', description: 'The answer', schema: { type: 'object', properties: { reply: { type: 'string' } } } };
  for (const streaming of [true, false]) {
    const answer = await provider.converse(ask('REPLY: {"reply": "hi"}', { model: model({ streaming }), output }), within(10_000));
    expect(answer).toMatchObject({ toolInput: { reply: 'hi' }, text: '{"reply":"hi"}', stopReason: 'tool_use' });
  }
});

test('throttling is tried again: THROTTLE:2 answers on the third attempt', async () => {
  const answer = await provider.converse(ask(`THROTTLE:2 REPLY: at last ${Math.random()}`), within(10_000));
  expect(answer.text).toMatch(/^at last/);
  expect(answer.attempts).toBe(3);
});

test('throttling past every attempt is a ModelThrottledError that counts them', async () => {
  const failure = await provider.converse(ask(`THROTTLE:9 REPLY: never ${Math.random()}`), within(10_000)).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(ModelThrottledError);
  expect(failure).toMatchObject({ code: 'MODEL_THROTTLED', status: 503, attempts: 4 });
});

test('throttling is not waited out past the deadline', async () => {
  const slowRetries = new BedrockProvider(createBedrockClient({ region: 'us-east-1', endpoint: standIn.url }), {
    attempts: 4,
    baseMs: 10_000,
    capMs: 10_000,
    random: () => 1,
  });
  const started = Date.now();
  const failure = await slowRetries.converse(ask(`THROTTLE:9 REPLY: x ${Math.random()}`), within(2_000)).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(ModelThrottledError);
  expect(failure).toMatchObject({ attempts: 1 });
  expect(Date.now() - started).toBeLessThan(2_000);
});

test('an error after part of the answer was handed on is not tried again', async () => {
  const pieces: string[] = [];
  const failure = await provider
    .converse(ask('ERROR:ThrottlingException REPLY: half an answer'), { ...within(10_000), onDelta: (text) => pieces.push(text) })
    .catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(ModelThrottledError);
  expect(failure).toMatchObject({ attempts: 1, answered: true });
  expect(pieces.join('')).toBe('half an answer');
});

test.each([
  ['ValidationException', ModelError, 'MODEL_ERROR', 502],
  ['AccessDeniedException', ModelError, 'MODEL_ERROR', 502],
  ['ServiceUnavailableException', ModelError, 'MODEL_ERROR', 502],
  ['ModelTimeoutException', ModelTimeoutError, 'MODEL_TIMEOUT', 504],
])('Bedrock’s %s is a %p (%s, %d) with the provider’s message, tried once', async (name, kind, code, status) => {
  for (const streaming of [true, false]) {
    const failure = await provider.converse(ask(`ERROR:${name}`, { model: model({ streaming }) }), within(10_000)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(kind);
    expect(failure).toMatchObject({ code, status, attempts: 1 });
    expect((failure as Error).message).toMatch(new RegExp(`^${name}: `));
  }
});

test('a model past the run’s deadline is a ModelTimeoutError at the deadline, not when the model ends', async () => {
  for (const streaming of [true, false]) {
    const started = Date.now();
    const failure = await provider.converse(ask('SLOW:5000 REPLY: too late', { model: model({ streaming }) }), within(400)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelTimeoutError);
    expect(Date.now() - started).toBeLessThan(3_000);
  }
});

test('a stand-in that is not there is a ModelError saying it could not be reached', async () => {
  const nowhere = new BedrockProvider(createBedrockClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9' }), QUICK);
  const failure = await nowhere.converse(ask('REPLY: x'), within(5_000)).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(ModelError);
});
