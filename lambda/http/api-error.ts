import { ALLOWED_METHODS } from './responses';

/** Every failure the API reports on purpose; the error handler renders it as the spec's JSON error. */

export type ErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'NOT_FOUND'
  | 'VERSION_NOT_FOUND'
  | 'LABEL_NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'USAGE_LIMIT_EXCEEDED'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_ERROR'
  // Answered by the gateway itself, never by a function (read-api/routes.ts GATEWAY_ANSWERS).
  | 'RATE_LIMITED'
  | 'PAYLOAD_TOO_LARGE';

/** The management API's own codes beside those (lambda/management-api/management-errors.ts; openapi-management.yaml). */
export type ManagementErrorCode =
  | 'FORBIDDEN'
  | 'CONFLICT'
  | 'PRECONDITION_FAILED'
  | 'PRECONDITION_REQUIRED'
  // Runs (docs/runs.md): the account's budget of model tokens, and what the model did.
  | 'BUDGET_EXCEEDED'
  | 'MODEL_ERROR'
  | 'MODEL_THROTTLED'
  | 'MODEL_TIMEOUT';

export interface UsageLimitDetails {
  usage: { used: number; limit: number };
  upgradeUrl: string;
}

export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode | ManagementErrorCode,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
    readonly details?: UsageLimitDetails | Readonly<Record<string, unknown>>,
  ) {
    super(message);
  }
}

const BEARER_CHALLENGE = 'Bearer realm="prompts"';

export const badRequest = (message: string): ApiError => new ApiError(400, 'BAD_REQUEST', message);

export const missingAuthorization = (): ApiError => new ApiError(401, 'UNAUTHORIZED', 'Missing Authorization header', { 'WWW-Authenticate': BEARER_CHALLENGE });

export const invalidAuthorizationFormat = (): ApiError =>
  new ApiError(401, 'UNAUTHORIZED', 'Invalid Authorization header format', {
    'WWW-Authenticate': BEARER_CHALLENGE,
  });

/** Unknown, revoked and malformed keys look the same, so a caller learns nothing about which keys exist. */
export const invalidApiKey = (): ApiError =>
  new ApiError(401, 'UNAUTHORIZED', 'Invalid API key', {
    'WWW-Authenticate': `${BEARER_CHALLENGE}, error="invalid_token"`,
  });

export const routeNotFound = (): ApiError => new ApiError(404, 'NOT_FOUND', 'Not found');

export const promptNotFound = (promptId: string): ApiError => new ApiError(404, 'NOT_FOUND', `Prompt ${promptId} not found`);

export const versionNotFound = (promptId: string, version: string): ApiError =>
  new ApiError(404, 'VERSION_NOT_FOUND', `Version ${version} of prompt ${promptId} is not published`);

export const labelNotFound = (promptId: string, label: string): ApiError => new ApiError(404, 'LABEL_NOT_FOUND', `Prompt ${promptId} has no label ${label}`);

export const methodNotAllowed = (allow: string = ALLOWED_METHODS): ApiError => new ApiError(405, 'METHOD_NOT_ALLOWED', 'Method not allowed', { Allow: allow });

export const usageLimitExceeded = (limit: number, upgradeUrl: string, retryAfterSeconds: number): ApiError =>
  new ApiError(
    429,
    'USAGE_LIMIT_EXCEEDED',
    'Monthly usage limit exceeded. Upgrade your plan to make more requests.',
    { 'Retry-After': String(retryAfterSeconds) },
    // The spec fixes used == limit at the moment of refusal, even if a lowered limit left the count above it.
    { usage: { used: limit, limit }, upgradeUrl },
  );

export const STORE_RETRY_AFTER_SECONDS = 1;

export const serviceUnavailable = (): ApiError =>
  new ApiError(503, 'SERVICE_UNAVAILABLE', 'The service is temporarily unavailable. Please retry shortly.', {
    'Retry-After': String(STORE_RETRY_AFTER_SECONDS),
  });

export const internalError = (): ApiError => new ApiError(500, 'INTERNAL_ERROR', 'Internal server error');
