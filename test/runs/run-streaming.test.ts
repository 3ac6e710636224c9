import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { localCatalog } from '../../lambda/models/catalog';
import { createModels } from '../../lambda/models/models';
import { createManagementGateway } from '../../local/management-gateway';
import { type ModelStandIn, startModelStandIn } from '../../local/model-stand-in/server';
import { config, prompt, version } from '../support/fixtures';
import { idTokenClaims, ManagementHarness, type Person } from '../support/management-harness';
import { QUICK_RETRIES } from '../support/runs';

/**
 * A run answered as server-sent events, through npm start's management gateway over HTTP (local/management-
 * gateway.ts), which streams the run function's answers as the deployed REST API's streaming integration does:
 * each event reaches the caller as the model writes, not when the run ends.
 */

const api = new ManagementHarness();
let standIn: ModelStandIn;
let server: Server;
let base: string;
let editor: Person;
const RUNS = '/api/accounts/acct_stream/runs';

beforeAll(async () => {
  await api.start();
  standIn = await startModelStandIn();
  await api.fixtures.account('acct_stream');
  await api.fixtures.prompts('acct_stream', prompt('greeting', [version('1.0.0', { userMessage: 'REPLY: Hello ${name}!', config: config() })]));
  editor = await api.person('editor@stream.test', 'acct_stream', 'editor');
  const listener = createManagementGateway({
    dependencies: api.deps,
    models: createModels({ catalog: localCatalog(), region: 'us-east-1', standInEndpoint: standIn.url, endpointKeys: new Map() }, QUICK_RETRIES),
    verifyToken: async (token) => (token === 'token-of-editor' ? idTokenClaims(editor) : undefined),
  });
  server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await Promise.all([api.stop(), standIn.close()]);
});

interface Arrived {
  readonly event: string;
  readonly data: Record<string, unknown>;
  /** performance.now() when its last byte arrived. */
  readonly at: number;
}

/** POSTs a run asking for events, and reads them as they arrive. */
async function streamRun(body: unknown): Promise<{ status: number; contentType: string | null; sentAt: number; events: Arrived[] }> {
  const sentAt = performance.now();
  const response = await fetch(`${base}${RUNS}`, {
    method: 'POST',
    headers: { Authorization: 'Bearer token-of-editor', Accept: 'text/event-stream', 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const events: Arrived[] = [];
  let buffer = '';
  const decoder = new TextDecoder();
  for await (const chunk of response.body ?? []) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
      const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? '{}');
      events.push({ event, data, at: performance.now() });
    }
  }
  return { status: response.status, contentType: response.headers.get('content-type'), sentAt, events };
}

const unsaved = (userMessage: string) => ({ source: { promptId: 'greeting', prompt: { systemMessage: '', userMessage, config: config() } } });

test('start, then each piece as the model writes it, then end with the run', async () => {
  const { status, contentType, events } = await streamRun(unsaved('PACE:150 REPLY: Hello Ada Lovelace!'));
  expect([status, contentType]).toEqual([200, 'text/event-stream; charset=utf-8']);
  expect(events.map((event) => event.event)).toEqual(['start', 'delta', 'delta', 'delta', 'end']);
  expect(events.filter((event) => event.event === 'delta').map((event) => event.data.text)).toEqual(['Hello Ad', 'a Lovela', 'ce!']);
  const runId = events[0]?.data.runId;
  expect(events[0]?.data).toEqual({ runId, model: 'gpt-4o-mini', provider: 'local' });
  expect(events.at(-1)?.data).toMatchObject({ run: { runId, output: { text: 'Hello Ada Lovelace!' }, state: 'completed' } });
  // Three pieces 150 ms apart: the first reached the caller long before the last was written.
  const [first, , third] = events.filter((event) => event.event === 'delta');
  expect((third?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(250);
});

test('the start reaches the caller before the model’s first piece: SLOW: is the model’s share', async () => {
  const { sentAt, events } = await streamRun(unsaved('SLOW:600 REPLY: late'));
  const [start, delta] = events;
  expect(start?.event).toBe('start');
  expect((delta?.at ?? 0) - (start?.at ?? 0)).toBeGreaterThanOrEqual(500);
  expect((start?.at ?? 0) - sentAt).toBeLessThan(500);
  const { run } = (events.at(-1)?.data ?? {}) as { run?: { firstTokenMs?: number } };
  expect(run?.firstTokenMs).toBeGreaterThanOrEqual(600);
});

test('a model that fails once the run started ends the stream with error and the failed run', async () => {
  const { events } = await streamRun(unsaved('ERROR:ValidationException REPLY: half'));
  expect(events.map((event) => event.event)).toEqual(['start', 'delta', 'error']);
  expect(events[2]?.data).toMatchObject({ error: { code: 'MODEL_ERROR', message: expect.stringMatching(/^ValidationException: /) }, run: { state: 'failed' } });
  const kept = await fetch(`${base}${RUNS}/${events[0]?.data.runId}`, { headers: { Authorization: 'Bearer token-of-editor' } });
  expect(await kept.json()).toMatchObject({ run: { state: 'failed', error: { code: 'MODEL_ERROR' } } });
});

test('a caller who goes away stops the run, which is kept as failed', async () => {
  const controller = new AbortController();
  const response = await fetch(`${base}${RUNS}`, {
    method: 'POST',
    headers: { Authorization: 'Bearer token-of-editor', Accept: 'text/event-stream', 'Content-Type': 'application/json' },
    body: JSON.stringify(unsaved('SLOW:20000 REPLY: nobody reads this')),
    signal: controller.signal,
  });
  const reader = response.body?.getReader();
  const first = new TextDecoder().decode((await reader?.read())?.value);
  const runId = /"runId":"([^"]+)"/.exec(first)?.[1];
  controller.abort();
  const started = Date.now();
  for (;;) {
    const kept = await fetch(`${base}${RUNS}/${runId}`, { headers: { Authorization: 'Bearer token-of-editor' } });
    if (kept.status === 200) {
      expect(await kept.json()).toMatchObject({
        run: { state: 'failed', error: { code: 'MODEL_ERROR', message: 'stopped: the caller went away before the model finished' } },
      });
      break;
    }
    if (Date.now() - started > 5_000) throw new Error('the run went on after its caller left');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
});
