import type { ErrorCode } from '../lambda/http/api-error';
import { EXPOSED_HEADERS } from '../lambda/read-api/middleware/cors';

/**
 * What the API Gateway answers itself, before or instead of a function, rewritten into the API's one
 * error format with CORS headers (docs/deploy.md): the deployed REST API's gateway responses and the
 * local gateway's answers are both built from this table.
 */
export interface GatewayAnswer {
  /** API Gateway's response type (ResponseType in aws-cdk-lib/aws-apigateway). */
  readonly type: GatewayResponseType;
  /** The status the client sees; absent keeps the gateway's own (e.g. 502 for a function that crashed). */
  readonly statusCode?: number;
  readonly code: ErrorCode;
  readonly message: string;
  readonly retryAfterSeconds?: number;
}

export type GatewayResponseType =
  | 'THROTTLED'
  | 'QUOTA_EXCEEDED'
  | 'WAF_FILTERED'
  | 'REQUEST_TOO_LARGE'
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'INTEGRATION_TIMEOUT'
  | 'DEFAULT_4XX'
  | 'DEFAULT_5XX';

/** How long a client blocked by the per-IP rule should wait: WAF counts requests over 5-minute windows. */
export const WAF_RETRY_AFTER_SECONDS = 60;

export const GATEWAY_ANSWERS: readonly GatewayAnswer[] = [
  // The stage's throttle, for all callers together: a short wait, unlike a key's monthly quota.
  { type: 'THROTTLED', statusCode: 429, code: 'RATE_LIMITED', message: 'Too many requests. Please retry shortly.', retryAfterSeconds: 1 },
  { type: 'QUOTA_EXCEEDED', statusCode: 429, code: 'RATE_LIMITED', message: 'Too many requests. Please retry shortly.', retryAfterSeconds: 1 },
  // WAF answers 403 by default; the only rule it has here is the per-IP rate rule.
  {
    type: 'WAF_FILTERED',
    statusCode: 429,
    code: 'RATE_LIMITED',
    message: 'Too many requests from this address. Please retry later.',
    retryAfterSeconds: WAF_RETRY_AFTER_SECONDS,
  },
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
];

export function gatewayAnswer(type: GatewayResponseType): GatewayAnswer {
  const answer = GATEWAY_ANSWERS.find((candidate) => candidate.type === type);
  if (!answer) throw new Error(`no gateway answer for ${type}`);
  return answer;
}

/** The body: the API's error format, a fixed text, so the gateway needs no template variables. */
export const gatewayAnswerBody = (answer: GatewayAnswer): string => JSON.stringify({ error: answer.message, code: answer.code });

/** The headers every gateway answer carries, as the functions' errors do: JSON, CORS, never cached. */
export function gatewayAnswerHeaders(answer: Pick<GatewayAnswer, 'retryAfterSeconds'>): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Expose-Headers': EXPOSED_HEADERS,
    'Cache-Control': 'no-store',
    ...(answer.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(answer.retryAfterSeconds) }),
  };
}
