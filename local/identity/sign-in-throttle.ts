/**
 * How the stand-in slows down password guessing, as Cognito does (docs/behaviour-rules.md, "The local stack is a guest on the developer's machine"):
 * after FAILURES_BEFORE_LOCKOUT failed passwords for one username, the next attempts are refused without a
 * password check for a time that starts at one second and doubles with each further failure, up to
 * MAX_LOCKOUT_MS; a success resets it. Usernames are counted whether or not such a user exists, so a lockout
 * says nothing about who has an account. Besides, one client gets a burst of failed attempts and then one every
 * CLIENT_REFILL_MS, whatever names it tries: each check is a scrypt run on the pool every sign-in shares.
 */

export const FAILURES_BEFORE_LOCKOUT = 5;
const FIRST_LOCKOUT_MS = 1_000;
const MAX_LOCKOUT_MS = 15 * 60 * 1_000;
/** A run of failures older than this is forgotten, as a lockout that long is over anyway. */
const FORGET_AFTER_MS = MAX_LOCKOUT_MS;
export const CLIENT_BURST = 10;
export const CLIENT_REFILL_MS = 2_000;
/** Bounds both tables: names and clients beyond it push out the ones least recently seen. */
const MAX_ENTRIES = 10_000;

export type ThrottleVerdict =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly reason: 'user-locked' | 'client-limited'; readonly retryAfterMs: number };

interface UserFailures {
  count: number;
  lockedUntil: number;
  lastFailureAt: number;
}

interface ClientBucket {
  tokens: number;
  updatedAt: number;
}

export class SignInThrottle {
  // Maps, never objects: usernames come from requests (`__proto__` is one more name).
  readonly #users = new Map<string, UserFailures>();
  readonly #clients = new Map<string, ClientBucket>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Whether an attempt may check a password now; a refused attempt is not checked and not counted. */
  check(username: string, client: string): ThrottleVerdict {
    const now = this.now();
    const failures = this.#users.get(userKey(username));
    if (failures && failures.lockedUntil > now) {
      return { allowed: false, reason: 'user-locked', retryAfterMs: failures.lockedUntil - now };
    }
    const bucket = this.#bucket(client, now);
    if (bucket.tokens < 1) {
      return { allowed: false, reason: 'client-limited', retryAfterMs: Math.ceil((1 - bucket.tokens) * CLIENT_REFILL_MS) };
    }
    bucket.tokens -= 1;
    return { allowed: true };
  }

  failed(username: string): void {
    const now = this.now();
    const key = userKey(username);
    const previous = this.#users.get(key);
    const failures = previous && now - previous.lastFailureAt < FORGET_AFTER_MS ? previous : { count: 0, lockedUntil: 0, lastFailureAt: now };
    failures.count += 1;
    failures.lastFailureAt = now;
    if (failures.count >= FAILURES_BEFORE_LOCKOUT) {
      const doublings = failures.count - FAILURES_BEFORE_LOCKOUT;
      failures.lockedUntil = now + Math.min(MAX_LOCKOUT_MS, FIRST_LOCKOUT_MS * 2 ** Math.min(doublings, 30));
    }
    remember(this.#users, key, failures);
  }

  /** A success resets the name's failures and gives the client its attempt back: only failures use up a burst. */
  succeeded(username: string, client: string): void {
    this.#users.delete(userKey(username));
    const bucket = this.#clients.get(client);
    if (bucket) bucket.tokens = Math.min(CLIENT_BURST, bucket.tokens + 1);
  }

  #bucket(client: string, now: number): ClientBucket {
    const bucket = this.#clients.get(client) ?? { tokens: CLIENT_BURST, updatedAt: now };
    bucket.tokens = Math.min(CLIENT_BURST, bucket.tokens + (now - bucket.updatedAt) / CLIENT_REFILL_MS);
    bucket.updatedAt = now;
    remember(this.#clients, client, bucket);
    return bucket;
  }
}

/** Emails sign in whatever their case, so they are counted whatever their case. */
const userKey = (username: string): string => username.trim().toLowerCase();

function remember<T>(table: Map<string, T>, key: string, value: T): void {
  // Re-inserted: a Map iterates in insertion order, so the first key is the one least recently seen.
  table.delete(key);
  table.set(key, value);
  if (table.size > MAX_ENTRIES) table.delete(table.keys().next().value as string);
}
