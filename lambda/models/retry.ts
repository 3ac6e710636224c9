import { ModelCallError, ModelThrottledError, ModelTimeoutError } from './errors';

/**
 * Throttling is tried again (docs/runs.md "Runs"): up to `attempts` calls, each wait a random share of an
 * exponentially growing ceiling ("full jitter", so that runs throttled together do not come back together), at least
 * what the provider asked for (`Retry-After`), and never past the run's deadline: a wait that would end after it is
 * not started, and the throttling stands. A call that had already handed on part of its answer is never repeated.
 */
export interface RetryPolicy {
  readonly attempts: number;
  readonly baseMs: number;
  readonly capMs: number;
  readonly random: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 4, baseMs: 250, capMs: 4_000, random: Math.random };

/** The wait before attempt `next` (2 for the first retry). */
export function backoffMs(policy: RetryPolicy, next: number, retryAfterMs = 0): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** (next - 2));
  return Math.max(retryAfterMs, Math.floor(policy.random() * ceiling));
}

export async function withRetries<T>(
  call: (attempt: number) => Promise<T>,
  options: { readonly deadline: number; readonly signal?: AbortSignal; readonly policy?: RetryPolicy },
): Promise<{ readonly value: T; readonly attempts: number }> {
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return { value: await call(attempt), attempts: attempt };
    } catch (error) {
      if (error instanceof ModelCallError) error.attempts = attempt;
      if (!(error instanceof ModelThrottledError) || error.answered || attempt >= policy.attempts) throw error;
      const wait = backoffMs(policy, attempt + 1, error.retryAfterMs);
      if (Date.now() + wait >= options.deadline) throw error;
      await sleep(wait, options.signal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new ModelTimeoutError('the run was stopped'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ModelTimeoutError('the run was stopped'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
