import { isMarkerError, MARKER_ERRORS, type MarkerError } from './bedrock-errors';

/**
 * The markers a test (or a person trying the stack) writes into the last user message to steer the
 * stand-in: `REPLY:`, `ERROR:<name>`, `THROTTLE:<n>`, `SLOW:<ms>`, `PACE:<ms>` (docs/runs.md). Each
 * starts a word, in capitals; anything else that looks like one (`ERROR:ENOENT`, `SLOW:soon`) is text.
 */

export const MAX_SLOW_MS = 30_000;
export const MAX_PACE_MS = 1_000;

export interface Markers {
  readonly error: MarkerError | undefined;
  /** How many calls with this very message answer ThrottlingException first. */
  readonly throttle: number | undefined;
  /** Before the first piece of a stream. */
  readonly slowMs: number;
  /** Between two pieces of a stream. */
  readonly paceMs: number;
  /** The text after the last `REPLY:`, trimmed; undefined without one. */
  readonly reply: string | undefined;
  /** The message with its markers (and the spaces after each) taken out, trimmed: the reply when there is no `REPLY:`. */
  readonly text: string;
}

const REPLY = /\bREPLY:/g;
const ERROR = new RegExp(`\\bERROR:(${MARKER_ERRORS.join('|')})(?!\\w)`, 'g');
const THROTTLE = /\bTHROTTLE:(\d+)(?!\w)/g;
const SLOW = /\bSLOW:(\d+)(?!\w)/g;
const PACE = /\bPACE:(\d+)(?!\w)/g;
/** Each marker with the spaces after it on its line: `Hello SLOW:5 world` reads `Hello world`. */
const REMOVED = [ERROR, THROTTLE, SLOW, PACE].map((marker) => new RegExp(`${marker.source}[^\\S\\r\\n]*`, 'g'));

/** Everything after the last `REPLY:` is the reply, word for word: markers are read before it only. */
export function readMarkers(message: string): Markers {
  const replyAt = lastMatch(message, REPLY);
  const head = replyAt === undefined ? message : message.slice(0, replyAt.index);
  const named = firstMatch(head, ERROR)?.[1];
  const error = named !== undefined && isMarkerError(named) ? named : undefined;
  const throttle = numberOf(firstMatch(head, THROTTLE), Number.MAX_SAFE_INTEGER);
  return {
    error,
    throttle,
    slowMs: numberOf(firstMatch(head, SLOW), MAX_SLOW_MS) ?? 0,
    paceMs: numberOf(firstMatch(head, PACE), MAX_PACE_MS) ?? 0,
    reply: replyAt === undefined ? undefined : message.slice(replyAt.index + replyAt[0].length).trim(),
    text: REMOVED.reduce((text, marker) => text.replace(marker, ''), head).trim(),
  };
}

function firstMatch(text: string, pattern: RegExp): RegExpExecArray | undefined {
  pattern.lastIndex = 0;
  return pattern.exec(text) ?? undefined;
}

function lastMatch(text: string, pattern: RegExp): RegExpExecArray | undefined {
  let last: RegExpExecArray | undefined;
  for (const match of text.matchAll(pattern)) last = match as RegExpExecArray;
  return last;
}

function numberOf(match: RegExpExecArray | undefined, max: number): number | undefined {
  return match === undefined ? undefined : Math.min(Number(match[1]), max);
}
