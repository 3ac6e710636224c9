/**
 * What can go wrong calling a model, one hierarchy whatever the provider: what each means to a run is decided once
 * (docs/runs.md "Runs"): throttling is retried, then 503 MODEL_THROTTLED; a model past the run's deadline is 504
 * MODEL_TIMEOUT; anything else the provider says is 502 MODEL_ERROR with its message. A message here is the
 * provider's words, with any key taken out (scrubbed by the provider that made it): it reaches answers and logs.
 */
import type { ModelErrorCode } from '../domain/run-rules';
import { withoutSecrets } from './secret-scrubber';

export type { ModelErrorCode };

export abstract class ModelCallError extends Error {
  abstract readonly code: ModelErrorCode;
  abstract readonly status: 502 | 503 | 504;
  /** Calls made to the model for this run, this failed one included. */
  attempts = 1;
  /** Whether some of the answer had been handed on (a stream that failed midway): such a call is never retried. */
  answered = false;
}

/** The provider refused or failed the call (a validation error, an access denial, an outage, a body it did not understand). */
export class ModelError extends ModelCallError {
  override readonly name = 'ModelError';
  readonly code = 'MODEL_ERROR';
  readonly status = 502;
}

/** The provider is throttling the stack: tried again with backoff within the deadline, then this. */
export class ModelThrottledError extends ModelCallError {
  override readonly name = 'ModelThrottledError';
  readonly code = 'MODEL_THROTTLED';
  readonly status = 503;
  constructor(
    message: string,
    /** What the provider asked for (`Retry-After`), in ms. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** The model did not finish within the run's deadline, or the provider said it timed out. */
export class ModelTimeoutError extends ModelCallError {
  override readonly name = 'ModelTimeoutError';
  readonly code = 'MODEL_TIMEOUT';
  readonly status = 504;
}

/** The longest provider message kept: enough to say what is wrong, never a page of HTML from a proxy. */
export const MAX_PROVIDER_MESSAGE = 500;

/** A provider's message as it may be shown: one line, cut short, each secret it might echo taken out. */
export function providerMessage(message: string, secrets: readonly string[] = []): string {
  let text = withoutSecrets(message, secrets);
  // Providers echo keys they refuse in part (`Incorrect API key provided: sk-proj-****abcd`): no fragment of one is kept.
  text = text
    .replace(/\b(sk|pk|rk|key)-[A-Za-z0-9_*.-]{3,}[A-Za-z0-9_*]/g, '[key]')
    .replace(/\s+/g, ' ')
    .trim();
  if (text === '') return 'the model provider gave no reason';
  return text.length > MAX_PROVIDER_MESSAGE ? `${text.slice(0, MAX_PROVIDER_MESSAGE - 1)}…` : text;
}
