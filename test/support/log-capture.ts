import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { isWellFormedApiKey } from '../../lambda/domain/api-key';
import { CAPTURE_DIR_VARIABLE, type LogRecord } from './key-leak-check';

/**
 * Every log line the service writes during a test run: Powertools' JSON lines and embedded-metric
 * blobs, on this process's stdout and stderr or on a local stack's that a test started. They are kept
 * from the terminal (a full run writes thousands), held here for the test file's assertions, and
 * appended with every API key the tests used to the run's capture folder, where the key-leak reporter
 * (key-leak-reporter.js) greps all of them once the run ends.
 */

/** Powertools writes each record as one line, its level or the metric envelope first. */
const LOG_LINE = /^\{"(?:level|_aws)":.*\}$/;
/** Written to the run's files in batches: a synchronous write per line would slow the tests it watches. */
const FLUSH_BYTES = 64 * 1024;

const lines: string[] = [];
const parsed: LogRecord[] = [];

/** Shared by every test file a process runs (and by the reporter, when jest runs in band). */
interface CaptureState {
  sink: (text: string) => string;
  pending: { lines: string; keys: string };
  flush: () => void;
}
const STATE = Symbol.for('prompt-service.log-capture');
type CapturingStream = NodeJS.WriteStream & { [STATE]?: CaptureState };

function runFile(kind: 'lines' | 'keys'): string | undefined {
  const dir = process.env[CAPTURE_DIR_VARIABLE];
  return dir ? join(dir, `${kind}-${process.pid}.txt`) : undefined;
}

function createState(): CaptureState {
  const state: CaptureState = {
    sink: record,
    pending: { lines: '', keys: '' },
    flush: () => {
      for (const kind of ['lines', 'keys'] as const) {
        const file = runFile(kind);
        if (file && state.pending[kind] !== '') appendFileSync(file, state.pending[kind]);
        state.pending[kind] = '';
      }
    },
  };
  process.once('exit', state.flush);
  return state;
}

function state(): CaptureState {
  const stream = process.stdout as CapturingStream;
  stream[STATE] ??= createState();
  return stream[STATE];
}

function toRun(kind: 'lines' | 'keys', text: string): void {
  const current = state();
  current.pending[kind] += text;
  if (current.pending[kind].length > FLUSH_BYTES) current.flush();
}

/** Takes the log lines out of `text` and returns the rest, untouched. */
function record(text: string): string {
  if (!text.includes('{"')) return text;
  const kept: string[] = [];
  let taken = '';
  for (const line of text.split(/(?<=\n)/)) {
    const trimmed = line.trim();
    if (LOG_LINE.test(trimmed)) {
      lines.push(trimmed);
      taken += `${trimmed}\n`;
    } else {
      kept.push(line);
    }
  }
  if (taken !== '') toRun('lines', taken);
  return kept.join('');
}

type Write = typeof process.stdout.write;

function intercept(stream: CapturingStream, shared: CaptureState): void {
  const original = stream.write as (...args: unknown[]) => boolean;
  const write = (chunk: unknown, ...rest: unknown[]): boolean => {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : undefined;
    if (text === undefined) return original.call(stream, chunk, ...rest);
    const remaining = shared.sink(text);
    if (remaining !== '') return original.call(stream, remaining, ...rest);
    const callback = rest.find((value): value is () => void => typeof value === 'function');
    if (callback) process.nextTick(callback);
    return true;
  };
  stream.write = write as Write;
}

/**
 * From here on, this test file's log lines are captured instead of printed. The streams are patched once
 * per process and each test file points them at its own `record`: a worker runs many files in turn, and
 * wrapping again each time would stack the wrappers.
 */
export function installLogCapture(): void {
  const stdout = process.stdout as CapturingStream;
  const existing = stdout[STATE];
  if (existing) {
    existing.sink = record;
    return;
  }
  const shared = state();
  intercept(stdout, shared);
  intercept(process.stderr, shared);
}

/** Writes what is pending to the run's capture folder. */
export function flushLogCapture(): void {
  (process.stdout as CapturingStream)[STATE]?.flush();
}

/**
 * For one output stream of a child process (a local stack a test started): its log lines are the run's
 * too. Chunks split lines anywhere, so only whole lines are looked at.
 */
export function childOutputCapture(): (chunk: Buffer | string) => void {
  let pending = '';
  return (chunk) => {
    pending += chunk.toString();
    const end = pending.lastIndexOf('\n');
    if (end === -1) return;
    record(pending.slice(0, end + 1));
    pending = pending.slice(end + 1);
  };
}

/** Every log record this test file's run has captured so far, in order. */
export function capturedLogRecords(): readonly LogRecord[] {
  for (let i = parsed.length; i < lines.length; i += 1) parsed.push(JSON.parse(lines[i] ?? '{}') as LogRecord);
  return parsed;
}

/** The service's one line per request, optionally only those of one service name. */
export function capturedRequestLines(service?: string): readonly LogRecord[] {
  return capturedLogRecords().filter((line) => line.message === 'request' && (service === undefined || line.service === service));
}

/** The lines captured so far that carry embedded metrics (each request's line does). */
export function capturedMetricBlobs(): readonly LogRecord[] {
  return capturedLogRecords().filter((line) => '_aws' in line);
}

/** A key a test presented or created: the run's log lines must never contain it. */
export function registerApiKey(apiKey: string): void {
  if (isWellFormedApiKey(apiKey)) toRun('keys', `${apiKey}\n`);
}

/** Keys in `Authorization: Bearer <key>` headers of any shape fetch takes. */
export function registerBearerKeys(headers: unknown): void {
  if (headers === undefined || headers === null) return;
  const values =
    headers instanceof Headers
      ? [headers.get('authorization')]
      : Array.isArray(headers)
        ? headers.filter(([name]) => String(name).toLowerCase() === 'authorization').map(([, value]) => value)
        : Object.entries(headers as Record<string, unknown>)
            .filter(([name]) => name.toLowerCase() === 'authorization')
            .map(([, value]) => value);
  for (const value of values) {
    const key = /^Bearer\s+(\S+)/i.exec(String(value ?? ''))?.[1];
    if (key) registerApiKey(key);
  }
}
