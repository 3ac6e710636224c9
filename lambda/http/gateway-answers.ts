import type { ErrorCode } from './api-error';

/**
 * What API Gateway itself answers (not a function) in both REST APIs alike, in the API's JSON error format: each
 * API's route table (read-api/routes.ts, management-api/routes.ts) adds the answers of its own.
 */
export const SHARED_GATEWAY_ANSWERS = [
  // The stage's throttle, for all callers together: a short wait, unlike a key's monthly quota.
  { type: 'THROTTLED', statusCode: 429, code: 'RATE_LIMITED', message: 'Too many requests. Please retry shortly.', retryAfterSeconds: 1 },
  { type: 'REQUEST_TOO_LARGE', statusCode: 413, code: 'PAYLOAD_TOO_LARGE', message: 'The request is too large.' },
  // A method no resource serves: the gateway's "Missing Authentication Token" 403, which the routes leave unreachable.
  { type: 'MISSING_AUTHENTICATION_TOKEN', statusCode: 404, code: 'NOT_FOUND', message: 'Not found' },
  // The function did not answer in time: what a store that cannot answer gets, so clients retry alike.
  {
    type: 'INTEGRATION_TIMEOUT',
    statusCode: 503,
    code: 'SERVICE_UNAVAILABLE',
    message: 'The service is temporarily unavailable. Please retry shortly.',
    retryAfterSeconds: 1,
  },
  { type: 'DEFAULT_4XX', code: 'BAD_REQUEST', message: 'The request was refused.' },
  { type: 'DEFAULT_5XX', code: 'INTERNAL_ERROR', message: 'Internal server error' },
] as const satisfies readonly {
  type: string;
  statusCode?: number;
  code: ErrorCode;
  message: string;
  retryAfterSeconds?: number;
}[];
