import * as z from 'zod/mini';
import { pathOf } from '../../../lambda/management-api/contract';
import { RunEvents, runPrompt } from '../../../lambda/management-api/handlers/run-contracts';
import { ApiProblem, problemFromAnswer } from '../logic/api-errors';
import { EventStreamParser, type ServerSentEvent } from '../logic/event-stream';
import type { CallerOptions } from './call';
import type { Run, RunRequest, RunStart } from './types';

/**
 * A run of a prompt read as the model writes it (docs/runs.md "Runs"): `POST .../runs` with `Accept:
 * text/event-stream` through fetch, its body read chunk by chunk and each event's data parsed with the contract's
 * `RunEvents`. A refusal before the run starts (400, 404, 429 BUDGET_EXCEEDED, a store that cannot answer) is a JSON
 * error, thrown as the same ApiProblem as any call's; a run the model failed is an outcome, with the failed run kept.
 * Aborting the signal stops reading and closes the connection, which stops the model call.
 */

export interface RunListener {
  onStart?(start: RunStart): void;
  onDelta?(text: string): void;
}

export type RunOutcome =
  | { readonly kind: 'ended'; readonly run: Run }
  | { readonly kind: 'failed'; readonly error: { readonly code: string; readonly message: string }; readonly run: Run | undefined }
  | { readonly kind: 'stopped' };

const notUnderstood = (what: string) => new ApiProblem(200, 'INTERNAL_ERROR', `the service's ${what} was not understood`);

/** One event of a run, its data parsed by its name's schema; anything else is an answer not understood. */
export function runEventOf(event: ServerSentEvent) {
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    throw notUnderstood(`${event.event} event`);
  }
  const parse = <Schema extends z.ZodMiniType>(schema: Schema): z.output<Schema> => {
    const parsed = z.safeParse(schema, data);
    if (!parsed.success) throw notUnderstood(`${event.event} event`);
    return parsed.data;
  };
  switch (event.event) {
    case 'start':
      return { name: 'start', ...parse(RunEvents.start) } as const;
    case 'delta':
      return { name: 'delta', ...parse(RunEvents.delta) } as const;
    case 'end':
      return { name: 'end', ...parse(RunEvents.end) } as const;
    case 'error':
      return { name: 'error', ...parse(RunEvents.error) } as const;
    default:
      // A name this reader does not know is one a later service added: passed over, as event streams mean it.
      return undefined;
  }
}

const RunAnswer = runPrompt.answers[200];

const isAbort = (error: unknown, signal: AbortSignal | undefined) => signal?.aborted === true || (error instanceof DOMException && error.name === 'AbortError');

export function createRunStreamer({ baseUrl = '', token, onUnauthorized, fetch: send = globalThis.fetch }: CallerOptions) {
  return async (accountId: string, body: RunRequest, listener: RunListener = {}, signal?: AbortSignal): Promise<RunOutcome> => {
    const headers: Record<string, string> = { Accept: 'text/event-stream', 'Content-Type': 'application/json' };
    const bearer = token();
    if (bearer) headers.Authorization = `Bearer ${bearer}`;
    // Never from a cache; Node's fetch has no cache, and ignores the option.
    const init: RequestInit & { readonly cache?: 'no-store' } = {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      cache: 'no-store',
      ...(signal ? { signal } : {}),
    };
    let response: Response;
    try {
      response = await send(`${baseUrl}${pathOf(runPrompt.path, { accountId })}`, init);
    } catch (error) {
      if (isAbort(error, signal)) return { kind: 'stopped' };
      throw new ApiProblem(0, 'NETWORK', 'the service could not be reached');
    }
    const type = response.headers.get('Content-Type') ?? '';
    if (!response.ok || !type.toLowerCase().startsWith('text/event-stream')) {
      // Not a stream: a refusal before the run started, or (from a server that does not stream) the run as JSON.
      const text = await response.text().catch(() => '');
      let parsed: unknown;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (!response.ok) {
        if (response.status === 401) onUnauthorized?.();
        throw problemFromAnswer(response.status, parsed);
      }
      const answer = z.safeParse(RunAnswer, parsed);
      if (!answer.success) throw notUnderstood('answer to the run');
      return { kind: 'ended', run: answer.data.run };
    }
    return readEvents(response, listener, signal);
  };
}

async function readEvents(response: Response, listener: RunListener, signal: AbortSignal | undefined): Promise<RunOutcome> {
  const reader = response.body?.getReader();
  if (!reader) throw notUnderstood('answer to the run');
  const decoder = new TextDecoder();
  const parser = new EventStreamParser();
  const stop = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (isAbort(error, signal)) return { kind: 'stopped' };
        throw new ApiProblem(0, 'NETWORK', 'the connection was lost while the model was writing');
      }
      if (signal?.aborted) return { kind: 'stopped' };
      const events = chunk.done ? parser.push(decoder.decode()) : parser.push(decoder.decode(chunk.value, { stream: true }));
      for (const event of events) {
        const read = runEventOf(event);
        if (read?.name === 'start') listener.onStart?.({ runId: read.runId, model: read.model, provider: read.provider });
        else if (read?.name === 'delta') listener.onDelta?.(read.text);
        else if (read?.name === 'end') return { kind: 'ended', run: read.run };
        else if (read?.name === 'error') return { kind: 'failed', error: read.error, run: read.run };
      }
      if (chunk.done) {
        parser.end();
        throw new ApiProblem(0, 'NETWORK', 'the connection was lost before the run ended');
      }
    }
  } finally {
    signal?.removeEventListener('abort', stop);
    // Whatever ended the reading (the last event, a stop, a fault), the connection is let go.
    stop();
  }
}
