/**
 * The errors the stand-in answers, as Bedrock Runtime answers them: an HTTP status, the error's name in
 * `x-amzn-ErrorType` and `{message}` as JSON, which the AWS SDK turns into its exception class of that name.
 * Once a stream has started, an error travels as an exception frame instead (event-stream.ts).
 */

/** The errors `ERROR:<name>` asks for. */
export const MARKER_ERRORS = [
  'ValidationException',
  'ModelTimeoutException',
  'ServiceUnavailableException',
  'AccessDeniedException',
  'ThrottlingException',
] as const;
export type MarkerError = (typeof MARKER_ERRORS)[number];

/** Every error the stand-in answers: the marker errors, what a request that is no Converse call gets, and a fault of its own. */
export type BedrockErrorName = MarkerError | 'UnknownOperationException' | 'InternalServerException';

/** Bedrock Runtime's status for each (its API model's `httpError`). */
export const ERROR_STATUS: Readonly<Record<BedrockErrorName, number>> = {
  ValidationException: 400,
  AccessDeniedException: 403,
  ModelTimeoutException: 408,
  ThrottlingException: 429,
  ServiceUnavailableException: 503,
  UnknownOperationException: 404,
  InternalServerException: 500,
};

/** The errors ConverseStream's event stream can carry after it started, by their member name there. */
export const STREAM_EXCEPTIONS: Readonly<Partial<Record<MarkerError, string>>> = {
  ThrottlingException: 'throttlingException',
  ValidationException: 'validationException',
  ServiceUnavailableException: 'serviceUnavailableException',
};

/** Bedrock's own words for each, then why the stand-in said it. */
export const MARKER_ERROR_MESSAGES: Readonly<Record<MarkerError, string>> = {
  ValidationException: 'The model refused the request as invalid.',
  ModelTimeoutException: 'Model has timed out in processing the request. Try your request again.',
  ServiceUnavailableException: 'The service is unavailable. Try your request again.',
  AccessDeniedException: "You don't have access to the model with the specified model ID.",
  ThrottlingException: 'Too many requests, please wait before trying again.',
};

export class BedrockError extends Error {
  override readonly name = 'BedrockError';
  constructor(
    readonly errorName: BedrockErrorName,
    message: string,
    /** When the answer differs from the error's usual status (a body over the limit is 413). */
    readonly status: number = ERROR_STATUS[errorName],
  ) {
    super(message);
  }
}

export const isMarkerError = (name: string): name is MarkerError => (MARKER_ERRORS as readonly string[]).includes(name);
