import { createHash } from 'node:crypto';

/** Distinct messages remembered; past it the oldest is forgotten (and would be throttled afresh). */
const MAX_MESSAGES = 10_000;

/**
 * How many calls each last user message has made, for `THROTTLE:<n>`: counted per stand-in (one per
 * `npm start`, one per test that starts one), whatever the model or the operation. Messages are kept by
 * their hash, so a large one costs no more than a small one.
 */
export class ThrottleCounts {
  private readonly calls = new Map<string, number>();

  /** Counts one more call with this message, and says which call it is (the first is 1). */
  record(message: string): number {
    const key = createHash('sha256').update(message).digest('base64');
    const count = (this.calls.get(key) ?? 0) + 1;
    this.calls.delete(key);
    this.calls.set(key, count);
    if (this.calls.size > MAX_MESSAGES) this.calls.delete(this.calls.keys().next().value as string);
    return count;
  }
}
