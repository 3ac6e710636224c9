import { PassThrough } from 'node:stream';
import { ApiError } from '../http/api-error';
import { BudgetExceededError } from '../features/budget/model-budget';
import { InvalidRunError, RunFailedError } from '../features/runs/errors';
import type { RunListener, RunStart } from '../features/runs/run-prompt';
import type { RunRecord } from '../features/runs/run-record';
import { toApiError } from '../http/error-handler';
import { badRequest, toManagementError } from './management-errors';
import type { runPrompt } from './handlers/run-contracts';
import type { ReplyOf } from './route';

type RunReply = ReplyOf<typeof runPrompt>;

/**
 * How a run is answered (docs/runs.md "Runs"): as JSON when it ends, or, for `Accept: text/event-stream`, as
 * server-sent events while it runs: `start` {runId, model, provider}, a `delta` {text} for each piece the model
 * writes, then `end` {run}, or `error` {error: {code, message}, run?}. Whatever is refused before the model is
 * called (a 400, a 404, 429 BUDGET_EXCEEDED, a store that cannot answer) is the same JSON error either way, with its
 * status: the stream starts only once the run does.
 */

/** What the run's errors are over HTTP: the field of a 400, the budget's numbers, a failed run's id. */
export function runError(error: unknown): unknown {
  if (error instanceof InvalidRunError) return badRequest(error.message, error.field);
  if (error instanceof BudgetExceededError) return new ApiError(429, 'BUDGET_EXCEEDED', error.message, {}, { used: error.used, limit: error.limit });
  if (error instanceof RunFailedError) return new ApiError(error.failure.status, error.failure.code, error.failure.message, {}, { runId: error.run.runId });
  return toManagementError(error);
}

export const wantsEvents = (accept: string | undefined): boolean =>
  (accept ?? '').split(',').some((type) => type.split(';')[0]?.trim().toLowerCase() === 'text/event-stream');

/** One server-sent event: its name, and its data as one line of JSON (JSON escapes every line break). */
export const serverSentEvent = (name: string, data: unknown): string => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

export const EVENT_STREAM_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-store',
  // Proxies in front of a local stack or a CDN should pass each event on as it comes.
  'X-Accel-Buffering': 'no',
} as const;

/** The run answered as JSON, once it has ended. */
export async function runAsJson(run: (listener: RunListener) => Promise<RunRecord>): Promise<RunReply> {
  try {
    return { status: 200, body: { run: await run({}) } };
  } catch (error) {
    throw runError(error);
  }
}

/**
 * The run answered as events: resolves once the run has started (with the stream, which the run goes on writing)
 * or rejects with what refused it before then. A caller who goes away stops the model call.
 */
export function runAsEvents(run: (listener: RunListener) => Promise<RunRecord>): Promise<RunReply> {
  const stream = new PassThrough();
  const gone = new AbortController();
  stream.on('close', () => {
    if (!stream.writableFinished) gone.abort(new Error('the caller went away'));
  });
  const write = (name: string, data: unknown) => {
    if (!stream.destroyed && !stream.writableEnded) stream.write(serverSentEvent(name, data));
  };
  return new Promise<RunReply>((resolve, reject) => {
    let started = false;
    const onStart = (start: RunStart) => {
      started = true;
      write('start', start);
      resolve({ status: 200, headers: EVENT_STREAM_HEADERS, stream });
    };
    run({ onStart, onDelta: (text) => write('delta', { text }), signal: gone.signal }).then(
      (record) => {
        write('end', { run: record });
        stream.end();
      },
      (error: unknown) => {
        if (!started) return reject(runError(error));
        const answer = toApiError(runError(error));
        write('error', { error: { code: answer.code, message: answer.message }, ...(error instanceof RunFailedError ? { run: error.run } : {}) });
        stream.end();
      },
    );
  });
}
