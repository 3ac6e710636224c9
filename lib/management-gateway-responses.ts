import type { ErrorCode, ManagementErrorCode } from '../lambda/http/api-error';

/**
 * What the management API's gateway answers itself, before or instead of a function: the service's JSON
 * errors, without CORS (the dashboard calls it on its own origin). The deployed REST API's gateway
 * responses (management-api.ts) and the local gateway's answers (local/management-gateway.ts) are both
 * built from this table.
 */
export interface ManagementGatewayAnswer {
  readonly type: 'UNAUTHORIZED' | 'MISSING_AUTHENTICATION_TOKEN' | 'THROTTLED' | 'REQUEST_TOO_LARGE' | 'INTEGRATION_TIMEOUT' | 'DEFAULT_4XX' | 'DEFAULT_5XX';
  /** The status the client sees; absent keeps the gateway's own. */
  readonly statusCode?: number;
  readonly code: ErrorCode | ManagementErrorCode;
  readonly message: string;
  readonly retryAfterSeconds?: number;
}

export const MANAGEMENT_GATEWAY_ANSWERS: readonly ManagementGatewayAnswer[] = [
  // The Cognito authorizer's answer to no, malformed, expired or foreign token.
  { type: 'UNAUTHORIZED', statusCode: 401, code: 'UNAUTHORIZED', message: 'Sign in again: no valid identity on the request' },
  { type: 'MISSING_AUTHENTICATION_TOKEN', statusCode: 404, code: 'NOT_FOUND', message: 'Not found' },
  { type: 'THROTTLED', statusCode: 429, code: 'RATE_LIMITED', message: 'Too many requests. Please retry shortly.', retryAfterSeconds: 1 },
  { type: 'REQUEST_TOO_LARGE', statusCode: 413, code: 'PAYLOAD_TOO_LARGE', message: 'The request is too large.' },
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


export const managementAnswerBody = (answer: ManagementGatewayAnswer): string => JSON.stringify({ error: answer.message, code: answer.code });

export function managementAnswerHeaders(answer: Pick<ManagementGatewayAnswer, 'retryAfterSeconds'>): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-store',
    ...(answer.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(answer.retryAfterSeconds) }),
  };
}

export function managementGatewayAnswer(type: ManagementGatewayAnswer['type']): ManagementGatewayAnswer {
  const answer = MANAGEMENT_GATEWAY_ANSWERS.find((candidate) => candidate.type === type);
  if (!answer) throw new Error(`no management gateway answer for ${type}`);
  return answer;
}
