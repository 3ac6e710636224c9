/** The store could not answer (throttled, unreachable, failing) after the SDK's own retries. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

/** One reason an import (or a publish through it) is refused; an import refused for several carries them all. */
export type Conflict = { kind: 'immutable' | 'conflict' | 'missing'; message: string };

/** The request contradicts what is stored (an existing id, a published version, a final revocation). */
export class ConflictError extends Error {
  override readonly name: string = 'ConflictError';
  constructor(
    message: string,
    readonly conflicts: readonly Conflict[] = [],
  ) {
    super(message);
  }
}

/** What is asked for is not stored (an account, a prompt, a key): 404. */
export class NotFoundError extends Error {
  override readonly name: string = 'NotFoundError';
}
