import { PassThrough, Writable } from 'node:stream';
import type { Context } from 'aws-lambda';
import type { ApiEvent } from '../../lambda/http/http-event';
import { type LambdaStreamingRuntime, lambdaRuntime, streamingEntry } from '../../lambda/management-api/response-streaming';
import type { StreamingResult } from '../../lambda/management-api/streaming-handler';

/**
 * Deployed, the run function answers through Lambda response streaming: what the Node.js runtime's `awslambda`
 * does with a handler (streamifyResponse) and a response stream (HttpResponseStream.from: the HTTP integration's
 * prelude, the status and headers as JSON, then 8 NUL bytes, then the body) is played here as AWS documents it.
 */

type Streamed = (event: ApiEvent, responseStream: Writable, context: Context) => Promise<void>;

const runtime: LambdaStreamingRuntime = {
  streamifyResponse: (handler) => handler,
  HttpResponseStream: {
    from(responseStream, prelude) {
      responseStream.write(`${JSON.stringify(prelude)}\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000`);
      return responseStream;
    },
  },
};

/** The bytes the function wrote, with when each piece came. */
function collector(): { stream: Writable; pieces: { at: number; text: string }[]; done: Promise<void> } {
  const pieces: { at: number; text: string }[] = [];
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      pieces.push({ at: performance.now(), text: chunk.toString('utf8') });
      callback();
    },
    final(callback) {
      finish();
      callback();
    },
  });
  return { stream, pieces, done };
}

const invoke = async (result: StreamingResult) => {
  const handler = streamingEntry(async () => result, runtime) as Streamed;
  const out = collector();
  await handler({} as ApiEvent, out.stream, {} as Context);
  await out.done;
  return out.pieces;
};

test('a JSON answer is the prelude with its status and headers, then the body', async () => {
  const pieces = await invoke({
    statusCode: 429,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
    body: '{"code":"BUDGET_EXCEEDED"}',
  });
  expect(pieces.map((piece) => piece.text).join('')).toBe(
    `${JSON.stringify({ statusCode: 429, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' } })}${'\u0000'.repeat(8)}{"code":"BUDGET_EXCEEDED"}`,
  );
});

test('a stream is written through piece by piece as it is produced, after the prelude', async () => {
  const body = new PassThrough();
  const handler = streamingEntry(async () => ({ statusCode: 200, headers: { 'Content-Type': 'text/event-stream' }, body }), runtime) as Streamed;
  const out = collector();
  const finished = handler({} as ApiEvent, out.stream, {} as Context);
  body.write('event: start\ndata: {}\n\n');
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(out.pieces.map((piece) => piece.text)).toEqual([expect.stringContaining('"statusCode":200'), 'event: start\ndata: {}\n\n']);
  body.end('event: end\ndata: {}\n\n');
  await finished;
  expect(out.pieces.map((piece) => piece.text).slice(1)).toEqual(['event: start\ndata: {}\n\n', 'event: end\ndata: {}\n\n']);
});

test('an answer with no body is the prelude alone', async () => {
  expect((await invoke({ statusCode: 204, headers: {} })).map((piece) => piece.text).join('')).toBe(`{"statusCode":204,"headers":{}}${'\u0000'.repeat(8)}`);
});

test('outside Lambda, there is no awslambda: the entry says so rather than answering wrong', () => {
  expect(() => lambdaRuntime()).toThrow('awslambda is not there');
});
