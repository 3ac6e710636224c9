import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { errorHandler } from '../http/error-handler';
import type { ApiEvent, ApiResult } from '../http/http-event';
import { emptyResponse, jsonResponse } from '../http/responses';
import { storeDeadline } from '../http/store-deadline';
import type { Table } from '../table/table';
import type { Telemetry } from '../telemetry';
import type { UserDirectory } from '../users/user-directory';
import type { ManagementContext } from './management-context';
import { answerBudget, withinBudget } from './middleware/answer-budget';
import { sentBody, validBody } from './middleware/body';
import { signedIn } from './middleware/caller';
import { membership } from './middleware/membership';
import { operationErrors } from './middleware/operation-errors';
import { operations } from './middleware/operations';
import { pathParameters } from './middleware/path-parameters';
import { refusalAudit } from './middleware/refusal-audit';
import { requestLog } from './middleware/request-log';
import { roleCheck } from './middleware/role';
import { routeLookup } from './middleware/route-lookup';
import { headersOf, queryOf } from './name-table';
import type { ManagementRoute } from './route';
import type { WebhookTools } from '../webhook-delivery/sealer-from-config';

export interface ManagementDependencies {
  /** The table with the functions' clients; each request binds it to its own deadline. */
  readonly table: Table;
  readonly directory: UserDirectory;
  readonly telemetry: Telemetry;
  /** Seals webhook secrets and checks their URLs; absent, webhooks cannot be created or rotated. */
  readonly webhooks?: WebhookTools;
}

/**
 * A management function, each step a middleware of middleware/: log line -> store deadline -> answer
 * budget -> caller (401) -> route (404) -> the store as the caller -> membership (404) -> the body as sent
 * -> path parameters (400) -> role (403) -> body and query (400) -> the route's handler -> shared operations.
 * Registration order matters: Middy runs `after`/`onError` in reverse, so a refusal is recorded in the
 * audit log first (refusal-audit.ts, within the answer's budget), then the budget stops, the operations'
 * errors get their HTTP meaning, errors become JSON, and the request is logged on its final response.
 */
export function createManagementHandler(deps: ManagementDependencies, routes: readonly ManagementRoute[]) {
  const dispatch = async (event: ApiEvent, context: ManagementContext): Promise<ApiResult> => {
    const { caller, params, member, table, ops, handle } = context;
    if (!caller || !params || !table || !ops || !handle) throw new Error('handler reached before the chain read the request');
    const reply = await withinBudget(
      context,
      handle({ caller, params, query: queryOf(event), headers: headersOf(event), member, table, ops, directory: deps.directory, now: new Date() }),
    );
    const headers = { 'Cache-Control': 'no-store', ...reply.headers };
    return reply.body === undefined ? emptyResponse(reply.status, headers) : jsonResponse(reply.status, reply.body, headers);
  };

  return managementChain<ManagementContext>(deps, routes).handler(dispatch);
}

/**
 * The management chain's middleware, in the order above, for a handler to finish: every management function's,
 * and the run function's (streaming-handler.ts), whose context carries its answer's stream too.
 */
export function managementChain<Context extends ManagementContext>(deps: ManagementDependencies, routes: readonly ManagementRoute[]) {
  return (
    middy<ApiEvent, ApiResult, Error, Context>()
      // logEvent: false, whatever POWERTOOLS_LOGGER_LOG_EVENT says: the event holds the caller's token.
      .use(injectLambdaContext(deps.telemetry.logger, { logEvent: false, resetKeys: true }))
      .use(requestLog(deps.telemetry))
      .use(storeDeadline())
      .use(errorHandler())
      .use(operationErrors())
      .use(answerBudget())
      .use(refusalAudit())
      .use(signedIn())
      .use(routeLookup(routes))
      .use(operations(deps.table, deps.directory, deps.webhooks))
      .use(membership())
      .use(sentBody())
      .use(pathParameters())
      .use(roleCheck())
      .use(validBody())
  );
}
