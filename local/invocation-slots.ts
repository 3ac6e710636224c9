/**
 * Invocations the local stack runs at once, as a deployed function's concurrency would; docs/local-stack.md
 * says what it absorbs. Each request makes at most three store calls at once (the key
 * check, a prompt's head and version), so the store clients keep that many connections per invocation:
 * no store call ever waits for a socket with its timeout running.
 */
export const LOCAL_CONCURRENCY = { maxRunning: 16, maxWaiting: 10_000 } as const;
const STORE_CALLS_PER_REQUEST = 3;
export const LOCAL_STORE_SOCKETS = LOCAL_CONCURRENCY.maxRunning * STORE_CALLS_PER_REQUEST;

/**
 * How many invocations run at once, as a Lambda function's concurrency bounds them; the rest wait in
 * line, in arrival order, up to a bound. Waiting here is the gateway's business: a store call's own
 * timeouts start only when the invocation runs.
 */
export class InvocationSlots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly maxRunning: number,
    readonly maxWaiting: number,
  ) {}

  /** Resolves with a release function once a slot is free; undefined at once when the line is full. */
  async acquire(): Promise<(() => void) | undefined> {
    if (this.running < this.maxRunning) {
      this.running += 1;
      return this.releaser();
    }
    if (this.waiting.length >= this.maxWaiting) return undefined;
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    return this.releaser();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next in line, so the count of running invocations stays as it is.
      if (next) next();
      else this.running -= 1;
    };
  }
}
