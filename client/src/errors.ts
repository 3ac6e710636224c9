/**
 * Every failure the client reports is a PromptClientError whose `code` is the API's own code where the
 * API gave one, so callers branch on `error.code` and never on message text.
 */
export type PromptErrorCode =
  | 'NOT_FOUND'
  | 'VERSION_NOT_FOUND'
  | 'LABEL_NOT_FOUND'
  | 'UNAUTHORIZED'
  | 'USAGE_LIMIT_EXCEEDED'
  | 'SERVICE_UNAVAILABLE'
  | 'BAD_REQUEST'
  | 'UNEXPECTED_RESPONSE'
  | 'INVALID_VARIABLES'
  | 'INVALID_OPTIONS';

export class PromptClientError extends Error {
  override readonly name: string = 'PromptClientError';
  readonly code: PromptErrorCode;
  /** The HTTP status the API answered with, when the error is an answer. */
  readonly status: number | undefined;

  constructor(code: PromptErrorCode, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status;
  }
}

/** The prompt does not exist for this key (or was deleted). */
export class NotFoundError extends PromptClientError {
  override readonly name = 'NotFoundError';
  declare readonly code: 'NOT_FOUND';

  constructor(
    readonly promptId: string,
    message = `Prompt ${promptId} not found`,
  ) {
    super('NOT_FOUND', message, { status: 404 });
  }
}

/** The prompt exists, but this version of it is not published. */
export class VersionNotFoundError extends PromptClientError {
  override readonly name = 'VersionNotFoundError';
  declare readonly code: 'VERSION_NOT_FOUND';

  constructor(
    readonly promptId: string,
    readonly version: string,
    message = `Version ${version} of prompt ${promptId} is not published`,
  ) {
    super('VERSION_NOT_FOUND', message, { status: 404 });
  }
}

/** The prompt exists, but does not carry this label (it was removed, or never set). */
export class LabelNotFoundError extends PromptClientError {
  override readonly name = 'LabelNotFoundError';
  declare readonly code: 'LABEL_NOT_FOUND';

  constructor(
    readonly promptId: string,
    readonly label: string,
    message = `Prompt ${promptId} has no label ${label}`,
  ) {
    super('LABEL_NOT_FOUND', message, { status: 404 });
  }
}

/** The API key is missing, unknown, revoked, disabled or expired. Never answered from a cache. */
export class UnauthorizedError extends PromptClientError {
  override readonly name = 'UnauthorizedError';
  declare readonly code: 'UNAUTHORIZED';

  constructor(message = 'Invalid API key') {
    super('UNAUTHORIZED', message, { status: 401 });
  }
}

/** The key's monthly quota is used up, and no copy of what was asked for exists. */
export class UsageLimitExceededError extends PromptClientError {
  override readonly name = 'UsageLimitExceededError';
  declare readonly code: 'USAGE_LIMIT_EXCEEDED';

  constructor(
    message: string,
    readonly usage: { readonly used: number; readonly limit: number },
    readonly upgradeUrl: string,
    /** When the quota starts again (the first second of the next UTC month). */
    readonly resetsAt: Date,
  ) {
    super('USAGE_LIMIT_EXCEEDED', message, { status: 429 });
  }
}

/** A network failure, a timeout, or a 5xx, and no copy of what was asked for exists. */
export class ServiceUnavailableError extends PromptClientError {
  override readonly name = 'ServiceUnavailableError';
  declare readonly code: 'SERVICE_UNAVAILABLE';

  constructor(message: string, options: { status?: number; cause?: unknown } = {}) {
    super('SERVICE_UNAVAILABLE', message, options);
  }
}

/** A malformed prompt id or version, as the API judged it. */
export class BadRequestError extends PromptClientError {
  override readonly name = 'BadRequestError';
  declare readonly code: 'BAD_REQUEST';

  constructor(message: string) {
    super('BAD_REQUEST', message, { status: 400 });
  }
}

/** `compile` was given values that do not fit the prompt's variables. */
export class TemplateVariablesError extends PromptClientError {
  override readonly name = 'TemplateVariablesError';
  declare readonly code: 'INVALID_VARIABLES';

  constructor(
    message: string,
    /** Variables of the prompt that were not given (or were null or undefined). */
    readonly missing: readonly string[],
    /** Names given that are not variables of the prompt (checked with `{ strict: true }` only). */
    readonly unknown: readonly string[],
    /** Variables given a value that is not a string, number or boolean. */
    readonly invalid: readonly string[],
  ) {
    super('INVALID_VARIABLES', message);
  }
}

/** createPromptClient was given options it cannot work with (a bad URL, an unreadable snapshot, ...). */
export class InvalidOptionsError extends PromptClientError {
  override readonly name = 'InvalidOptionsError';
  declare readonly code: 'INVALID_OPTIONS';

  constructor(message: string) {
    super('INVALID_OPTIONS', message);
  }
}
