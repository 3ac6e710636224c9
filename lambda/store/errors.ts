import type { Conflict } from './import-plan';

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

export class ImmutableVersionError extends ConflictError {
  override readonly name: string = 'ImmutableVersionError';
}

export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
}
