import type { ErrorCode, ManagementErrorCode } from '../http/api-error';
import { SHARED_GATEWAY_ANSWERS } from '../http/gateway-answers';
import { accountRoutes } from './handlers/account-routes';
import { auditRoutes } from './handlers/audit-routes';
import { changeRequestRoutes } from './handlers/change-request-routes';
import { keyRoutes } from './handlers/key-routes';
import { memberRoutes } from './handlers/member-routes';
import { promptRoutes } from './handlers/prompt-routes';
import { runRoutes } from './handlers/run-routes';
import { rolloutRoutes } from './handlers/rollout-routes';
import { usageRoutes } from './handlers/usage-routes';
import { webhookRoutes } from './handlers/webhook-routes';
import type { ManagementRoute } from './route';

/**
 * The management API's route table: its functions, the routes each serves (as the handler files declare
 * them, method, path, access, body and handler together) and what its gateway answers itself. The deployed
 * stack (lib/management-api.ts), the local gateway (local/management-gateway.ts), the OpenAPI document
 * (bin/openapi-management.ts) and the tests build theirs from this table. Every method has the Cognito
 * authorizer. Paths start at `/api`, as CloudFront forwards them.
 */

export interface ManagementFunction {
  readonly id: string;
  /** The Lambda entry file, exporting `handler`. */
  readonly entry: string;
  readonly description: string;
  readonly routes: readonly ManagementRoute[];
  /**
   * Its answers stream (Lambda response streaming, through the REST API's streaming integration): its chain is
   * streaming-handler.ts, and it may take as long as a model (docs/runs.md).
   */
  readonly streaming?: true;
}

export const MANAGEMENT_FUNCTIONS: readonly ManagementFunction[] = [
  {
    id: 'ManageAccounts',
    entry: 'lambda/management-api/accounts-function.ts',
    description: 'Management API: the signed-in user and their accounts',
    routes: accountRoutes,
  },
  {
    id: 'ManagePrompts',
    entry: 'lambda/management-api/prompts-function.ts',
    description: 'Management API: prompts, drafts, publishing, labels, their change requests and rollouts',
    routes: [...promptRoutes, ...changeRequestRoutes, ...rolloutRoutes],
  },
  {
    id: 'ManageKeys',
    entry: 'lambda/management-api/keys-function.ts',
    description: 'Management API: API keys',
    routes: keyRoutes,
  },
  {
    id: 'ManageMembers',
    entry: 'lambda/management-api/members-function.ts',
    description: 'Management API: members and roles',
    routes: memberRoutes,
  },
  {
    id: 'ManageActivity',
    entry: 'lambda/management-api/activity-function.ts',
    description: 'Management API: usage by day and the audit log',
    routes: [...usageRoutes, ...auditRoutes],
  },
  {
    // Its own function: the only management function that may seal with the stack's webhook key (KMS Encrypt).
    id: 'ManageWebhooks',
    entry: 'lambda/management-api/webhooks-function.ts',
    description: 'Management API: webhooks, their secrets, tests and deliveries',
    routes: webhookRoutes,
  },
  {
    // Its own function: the only one with the model SDK and bedrock:InvokeModel* (on the catalog's models alone).
    id: 'RunPrompts',
    entry: 'lambda/management-api/runs-function.ts',
    description: 'Management API: runs of prompts on models, streamed, and the models',
    routes: runRoutes,
    streaming: true,
  },
];

export const ALL_ROUTES: readonly ManagementRoute[] = MANAGEMENT_FUNCTIONS.flatMap((fn) => fn.routes);

/** One function's routes; an unknown function stops it at cold start. */
export function routesOf(functionId: string): readonly ManagementRoute[] {
  const fn = MANAGEMENT_FUNCTIONS.find((candidate) => candidate.id === functionId);
  if (!fn) throw new Error(`no management function ${functionId}`);
  return fn.routes;
}

/**
 * What the management API's gateway answers itself, before or instead of a function: the service's JSON
 * errors, without CORS (the dashboard calls it on its own origin). The deployed REST API's gateway
 * responses (lib/management-api.ts) and the local gateway's answers (local/management-gateway.ts) are both
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
  ...SHARED_GATEWAY_ANSWERS,
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
