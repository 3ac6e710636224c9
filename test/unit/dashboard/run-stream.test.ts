import { createRunStreamer } from '../../../dashboard/src/api/run-stream';
import { ApiProblem, problemInWords } from '../../../dashboard/src/logic/api-errors';

/**
 * The dashboard's streaming run (dashboard/src/api/run-stream.ts): a run's server-sent events read chunk by chunk,
 * each event's data parsed by the contract's RunEvents, refusals as ApiProblems, and a stop that lets go of the answer.
 */

const RUN = {
  runId: 'run_20261129T120000000Z_0a1b2c3d',
  promptId: 'welcome',
  version: '1.0.0',
  label: null,
  provider: 'local',
  model: 'gpt-4o-mini',
  params: { temperature: 0.7, maxTokens: 1024 },
  variables: { name: 'Ada' },
  messages: [{ role: 'user', content: 'REPLY: Hello Ada' }],
  output: { text: 'Hello Ada', json: null },
  schema: null,
  usage: { inputTokens: 4, outputTokens: 3 },
  costUsd: 0.000002,
  latencyMs: 40,
  firstTokenMs: 12,
  stopReason: 'end_turn',
  attempts: 1,
  state: 'completed',
  error: null,
  by: 'demo@example.com',
  at: '2026-11-29T12:00:00.000Z',
} as const;

const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/** A fetch answering one event stream in the byte chunks given (split anywhere, inside a character too); it records what was sent. */
function streamingBytes(parts: readonly Uint8Array[], options: { holdOpen?: boolean } = {}) {
  const sent: { url: string; init: RequestInit }[] = [];
  let cancelled = false;
  const fetch = async (url: string | URL | Request, init?: RequestInit) => {
    sent.push({ url: String(url), init: init ?? {} });
    const queue = [...parts];
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = queue.shift();
        if (next) controller.enqueue(next);
        else if (options.holdOpen) return new Promise<void>(() => undefined);
        else controller.close();
        return undefined;
      },
      cancel() {
        cancelled = true;
      },
    });
    return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream; charset=utf-8' } });
  };
  return { fetch: fetch as typeof globalThis.fetch, sent, cancelled: () => cancelled };
}

const streaming = (chunks: readonly string[], options: { holdOpen?: boolean } = {}) =>
  streamingBytes(
    chunks.map((chunk) => new TextEncoder().encode(chunk)),
    options,
  );

const streamer = (fetch: typeof globalThis.fetch, onUnauthorized: () => void = () => undefined) =>
  createRunStreamer({ token: () => 'id-token', onUnauthorized, fetch });
const BODY = { source: { promptId: 'welcome', version: '1.0.0' }, variables: { name: 'Ada' } };

test('posts the run asking for events, with the token, and hands over start, each delta and the ended run', async () => {
  const answer = streaming([
    event('start', { runId: RUN.runId, model: 'gpt-4o-mini', provider: 'local' }),
    event('delta', { text: 'Hello ' }),
    event('delta', { text: 'Ada' }),
    event('end', { run: RUN }),
  ]);
  const seen: string[] = [];
  const outcome = await streamer(answer.fetch)('acct', BODY, { onStart: (start) => seen.push(`start ${start.runId}`), onDelta: (text) => seen.push(text) });
  expect(outcome).toEqual({ kind: 'ended', run: RUN });
  expect(seen).toEqual([`start ${RUN.runId}`, 'Hello ', 'Ada']);
  const [{ url, init }] = answer.sent as [{ url: string; init: RequestInit }];
  expect(url).toBe('/api/accounts/acct/runs');
  expect(init.method).toBe('POST');
  expect(init.headers).toMatchObject({ Accept: 'text/event-stream', Authorization: 'Bearer id-token', 'Content-Type': 'application/json' });
  expect(JSON.parse(String(init.body))).toEqual(BODY);
});

test('events split across chunks, inside a multi-byte character too, arrive whole and in order', async () => {
  const text = event('start', { runId: RUN.runId, model: 'm', provider: 'local' }) + event('delta', { text: 'Grüße 👋' }) + event('end', { run: RUN });
  const bytes = new TextEncoder().encode(text);
  const chunks = Array.from({ length: Math.ceil(bytes.length / 3) }, (_, i) => bytes.slice(i * 3, i * 3 + 3));
  const deltas: string[] = [];
  const outcome = await streamer(streamingBytes(chunks).fetch)('acct', BODY, { onDelta: (piece) => deltas.push(piece) });
  expect(deltas).toEqual(['Grüße 👋']);
  expect(outcome.kind).toBe('ended');
});

test('each delta is handed over as it arrives, before the stream ends', async () => {
  const answer = streaming([event('start', { runId: RUN.runId, model: 'm', provider: 'local' }), event('delta', { text: 'first' })], { holdOpen: true });
  const stop = new AbortController();
  const first = new Promise<string>((resolve) => {
    void streamer(answer.fetch)('acct', BODY, { onDelta: resolve }, stop.signal);
  });
  await expect(first).resolves.toBe('first');
  stop.abort();
});

test('a run the model failed is an outcome with its error and the failed run', async () => {
  const failed = { ...RUN, state: 'failed', error: { code: 'MODEL_ERROR', message: 'the model refused' } };
  const answer = streaming([
    event('start', { runId: RUN.runId, model: 'm', provider: 'local' }),
    event('error', { error: { code: 'MODEL_ERROR', message: 'the model refused' }, run: failed }),
  ]);
  await expect(streamer(answer.fetch)('acct', BODY)).resolves.toEqual({
    kind: 'failed',
    error: { code: 'MODEL_ERROR', message: 'the model refused' },
    run: failed,
  });
});

test('a refusal before the run starts is the ApiProblem of any call, the budget with its numbers', async () => {
  const fetch = (async () =>
    new Response(JSON.stringify({ error: "the account's budget is spent", code: 'BUDGET_EXCEEDED', used: 9500, limit: 10000 }), {
      status: 429,
      headers: { 'Content-Type': 'application/json' },
    })) as typeof globalThis.fetch;
  const refused = streamer(fetch)('acct', BODY).catch((error: unknown) => error);
  const problem = await refused;
  expect(problem).toBeInstanceOf(ApiProblem);
  expect(problem).toMatchObject({ status: 429, code: 'BUDGET_EXCEEDED', budget: { used: 9500, limit: 10000 } });
  expect(problemInWords(problem, 'Running')).toContain('9,500 of 10,000 tokens');
});

test('a 400 keeps the field it names, and a 401 tells the page before it is thrown', async () => {
  const told: string[] = [];
  const answering = (status: number, body: unknown) =>
    (async () => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } })) as typeof globalThis.fetch;
  await expect(
    streamer(answering(400, { error: 'variables.name: is required', code: 'BAD_REQUEST', field: 'variables.name' }))('acct', BODY),
  ).rejects.toMatchObject({
    status: 400,
    field: 'variables.name',
  });
  await expect(streamer(answering(401, { error: 'sign in', code: 'UNAUTHORIZED' }), () => told.push('401'))('acct', BODY)).rejects.toMatchObject({
    status: 401,
  });
  expect(told).toEqual(['401']);
});

test('a run answered as JSON (a server that does not stream) is read by the contract', async () => {
  const fetch = (async () =>
    new Response(JSON.stringify({ run: RUN }), { status: 200, headers: { 'Content-Type': 'application/json' } })) as typeof globalThis.fetch;
  await expect(streamer(fetch)('acct', BODY)).resolves.toEqual({ kind: 'ended', run: RUN });
});

test('an event whose data the contract does not take is an answer not understood', async () => {
  const answer = streaming([event('start', { runId: RUN.runId, model: 'm', provider: 'local' }), event('delta', { text: 42 })]);
  await expect(streamer(answer.fetch)('acct', BODY)).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
});

test('a stream that ends before its end or error event is a lost connection, never a run', async () => {
  const answer = streaming([event('start', { runId: RUN.runId, model: 'm', provider: 'local' }), event('delta', { text: 'half' })]);
  await expect(streamer(answer.fetch)('acct', BODY)).rejects.toMatchObject({ status: 0, code: 'NETWORK' });
});

test('stopping ends the reading as stopped and lets go of the answer', async () => {
  const answer = streaming([event('start', { runId: RUN.runId, model: 'm', provider: 'local' })], { holdOpen: true });
  const stop = new AbortController();
  const outcome = streamer(answer.fetch)('acct', BODY, { onStart: () => stop.abort() }, stop.signal);
  await expect(outcome).resolves.toEqual({ kind: 'stopped' });
  expect(answer.cancelled()).toBe(true);
});

test('a service that cannot be reached is the network problem, and a stop before the answer is stopped', async () => {
  const unreachable = (async () => {
    throw new TypeError('fetch failed');
  }) as typeof globalThis.fetch;
  await expect(streamer(unreachable)('acct', BODY)).rejects.toMatchObject({ status: 0, code: 'NETWORK' });
  const stop = new AbortController();
  stop.abort();
  const aborted = (async () => {
    throw new DOMException('aborted', 'AbortError');
  }) as typeof globalThis.fetch;
  await expect(streamer(aborted)('acct', BODY, {}, stop.signal)).resolves.toEqual({ kind: 'stopped' });
});
