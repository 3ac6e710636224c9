import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { type BedrockError, STREAM_EXCEPTIONS } from './bedrock-errors';
import { piecesOf } from './characters';
import { EVENT_STREAM_CONTENT_TYPE, eventFrame, exceptionFrame } from './event-stream';
import type { Answer } from './rule';

/**
 * How each answer goes on the wire, as Bedrock Runtime writes it: Converse as one JSON body, ConverseStream
 * as event-stream frames written one by one as they are made, and errors as status, `x-amzn-ErrorType` and
 * `{message}`. A client that leaves stops the writing at once.
 */

/** What the stand-in writes to: Node's HTTP/1.1 response or its HTTP/2 compatibility response. */
export interface AnswerSink {
  writeHead(status: number, headers: Record<string, string>): unknown;
  write(chunk: Uint8Array): boolean;
  end(chunk: Uint8Array): unknown;
  once(event: 'close' | 'drain', listener: () => void): unknown;
  off(event: 'close' | 'drain', listener: () => void): unknown;
  readonly headersSent: boolean;
}

/** Bedrock streams text in pieces of a few tokens; the stand-in's rule says 8 characters. */
export const PIECE_CHARACTERS = 8;

const requestIdHeader = () => ({ 'x-amzn-RequestId': randomUUID() });

export function writeError(sink: AnswerSink, error: BedrockError): void {
  const body = Buffer.from(JSON.stringify({ message: error.message }));
  sink.writeHead(error.status, {
    'Content-Type': 'application/json',
    'Content-Length': String(body.length),
    'x-amzn-ErrorType': error.errorName,
    ...requestIdHeader(),
  });
  sink.end(body);
}

/** Converse: the whole answer at once, after as long as its stream would have taken. */
export async function writeConverse(sink: AnswerSink, answer: Answer, startedAt: number): Promise<void> {
  await whileConnected(sink, async (signal) => {
    const pieces = piecesOf(textOf(answer), PIECE_CHARACTERS).length;
    await delay(answer.slowMs + answer.paceMs * Math.max(pieces - 1, 0), undefined, { signal });
    const { content } = answer;
    const block = content.kind === 'text' ? { text: content.text } : { toolUse: { toolUseId: toolUseId(), name: content.name, input: content.input } };
    const body = Buffer.from(
      JSON.stringify({
        output: { message: { role: 'assistant', content: [block] } },
        stopReason: answer.stopReason,
        usage: answer.usage,
        metrics: { latencyMs: elapsedMs(startedAt) },
      }),
    );
    sink.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(body.length), ...requestIdHeader() });
    sink.end(body);
  });
}

/**
 * ConverseStream: messageStart at once; then, after SLOW, the pieces (a tool use opens its block first),
 * PACE apart; then the block's end, messageStop and metadata, or the error the stream was asked to carry.
 */
export async function writeConverseStream(sink: AnswerSink, answer: Answer, startedAt: number): Promise<void> {
  await whileConnected(sink, async (signal) => {
    const send = (frame: Uint8Array) => writeFrame(sink, frame, signal);
    const { content } = answer;
    sink.writeHead(200, { 'Content-Type': EVENT_STREAM_CONTENT_TYPE, ...requestIdHeader() });
    await send(eventFrame('messageStart', { role: 'assistant' }));
    if (content.kind === 'toolUse') {
      await send(eventFrame('contentBlockStart', { contentBlockIndex: 0, start: { toolUse: { toolUseId: toolUseId(), name: content.name } } }));
    }
    await delay(answer.slowMs, undefined, { signal });
    const pieces = piecesOf(textOf(answer), PIECE_CHARACTERS);
    for (const [index, piece] of pieces.entries()) {
      if (index > 0 && answer.paceMs > 0) await delay(answer.paceMs, undefined, { signal });
      const delta = content.kind === 'text' ? { text: piece } : { toolUse: { input: piece } };
      await send(eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta }));
    }
    await send(eventFrame('contentBlockStop', { contentBlockIndex: 0 }));
    if (answer.streamError !== undefined) {
      sink.end(exceptionFrame(STREAM_EXCEPTIONS[answer.streamError.name] as string, answer.streamError.message));
      return;
    }
    await send(eventFrame('messageStop', { stopReason: answer.stopReason }));
    sink.end(eventFrame('metadata', { usage: answer.usage, metrics: { latencyMs: elapsedMs(startedAt) } }));
  });
}

const textOf = (answer: Answer): string => (answer.content.kind === 'text' ? answer.content.text : answer.content.inputText);

/** Bedrock's form: `tooluse_` and 22 characters. */
const toolUseId = (): string => `tooluse_${randomBytes(16).toString('base64url').slice(0, 22)}`;

const elapsedMs = (startedAt: number): number => Math.round(performance.now() - startedAt);

/** Runs the writing until it is done or the client leaves (then it stops where it is, quietly). */
async function whileConnected(sink: AnswerSink, write: (signal: AbortSignal) => Promise<void>): Promise<void> {
  const left = new AbortController();
  const onClose = () => left.abort();
  sink.once('close', onClose);
  try {
    await write(left.signal);
  } catch (error) {
    if (!left.signal.aborted) throw error;
  } finally {
    sink.off('close', onClose);
  }
}

/** One frame, written now; when the client reads slower than the stand-in writes, the next waits for it. */
async function writeFrame(sink: AnswerSink, frame: Uint8Array, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  if (sink.write(frame)) return;
  await new Promise<void>((resolve, reject) => {
    const onDrain = () => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    const onAbort = () => {
      sink.off('drain', onDrain);
      reject(signal.reason);
    };
    sink.once('drain', onDrain);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
