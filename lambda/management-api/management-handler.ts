import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy, { type MiddlewareObj, type Request } from '@middy/core';
import type * as z from 'zod';
import { ApiError, serviceUnavailable } from '../http/api-error';
import { type ApiEvent, type ApiResult, bodyTextOf } from '../http/http-event';
import { emptyResponse, jsonResponse } from '../http/responses';
import type { ApiContext } from '../http/api-context';
import { errorHandler } from '../http/error-handler';
import { deadlineAfter, REFUND_BUDGET_MS, storeDeadline } from '../http/store-deadline';
import { AccountOperations } from '../operations/account-operations';
import { textNestsDeeperThan } from '../domain/content-rules';
import { atLeast } from '../domain/roles';
import { findMember } from '../table/members';
import { callerOf } from './caller';
import { badRequest, forbidden, invalidBody, notFound, toManagementError, unauthorized } from './management-errors';
import type { Caller, ManagementDependencies, ManagementRequest, RouteSpec } from './management-request';
import { AccountId, KeyId, Label, PromptId, UserId, Version } from './schemas';

/** Whatever the store or the user pool does, the answer leaves by then (the read API's 5 s, docs/read-api.md "Store faults"). */
export const ANSWER_BUDGET_MS = 4_800;

const PARAMETERS: ReadonlyMap<string, z.ZodType<string>> = new Map([
  ['promptId', PromptId],
  ['version', Version],
  ['label', Label],
  ['keyId', KeyId],
  ['userId', UserId],
]);

/** Names from a request (headers, query, path) are data: a table of them inherits nothing, `constructor` included. */
const nameTable = (): Record<string, string> => Object.create(null) as Record<string, string>;

export interface ManagementContext extends ApiContext {
  caller?: Caller;
  accountId?: string;
  /**
   * A change committed but its revision was not copied to the account's keys (table/change.ts): it stands, and
   * the read API may serve the account's earlier prompts until a later change copies again. Its error's name.
   */
  keysCopyFailure?: string;
}

type ManagementMiddyRequest = Request<ApiEvent, ApiResult, Error, ManagementContext>;

/**
 * A management function: log line -> store deadline -> errors as JSON -> dispatch, where dispatch is
 * claims -> caller (401) -> route -> membership and role (404, 403) -> body (400, 413) -> handler ->
 * shared operations. Every refused attempt to change something is recorded in the audit log.
 */
export function createManagementHandler(deps: ManagementDependencies, routes: readonly RouteSpec[]) {
  const byKey = new Map(routes.map((route) => [`${route.method} ${route.path}`, route]));
  const dispatch = async (event: ApiEvent, context: ManagementContext): Promise<ApiResult> => {
    const arrivedAt = context.arrivedAt ?? Date.now();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(serviceUnavailable()), Math.max(0, arrivedAt + ANSWER_BUDGET_MS - Date.now()));
    });
    try {
      return await Promise.race([answer(event, context, arrivedAt), late]);
    } finally {
      clearTimeout(timer);
    }
  };

  const answer = async (event: ApiEvent, context: ManagementContext, arrivedAt: number): Promise<ApiResult> => {
    const caller = callerOf(event);
    if (!caller) throw unauthorized();
    context.caller = caller;
    const route = byKey.get(`${event.httpMethod.toUpperCase()} ${event.resource}`);
    if (!route) throw notFound();
    const deadline = context.storeDeadline;
    if (!deadline) throw new Error('storeDeadline must run before dispatch');
    const table = deps.table.withDeadline(deadline);
    const ops = new AccountOperations({
      table,
      auditTable: deps.table.withDeadline(deadlineAfter(arrivedAt, REFUND_BUDGET_MS)),
      actor: { type: 'user', userId: caller.userId, email: caller.email },
      directory: deps.directory,
      onCopyFailed: (_accountId, error) => {
        context.keysCopyFailure = error instanceof Error ? error.name : 'unknown';
      },
    });
    const raw = event.pathParameters ?? {};
    const accountId = raw.accountId;
    const params = nameTable();
    let member: ManagementRequest['member'];
    if (accountId !== undefined) {
      // Not a member, or no such account: the same 404, and nothing recorded in an account the caller is not in.
      if (!AccountId.safeParse(accountId).success) throw notFound();
      member = await findMember(table, accountId, caller.userId);
      if (!member) throw notFound();
      params.accountId = accountId;
      context.accountId = accountId;
    }
    const sent = bodyOf(event, route);
    const refuse = async (error: ApiError): Promise<never> => {
      if (route.action && accountId !== undefined) {
        const attempt = { accountId, action: route.action, target: targetOf(route, accountId, raw, sent.json), ...(sent.json === undefined ? {} : { requested: sent.json }) };
        // A refusal the store cannot record is still answered as one.
        await ops.refuse(attempt, { code: error.code, message: error.message }).catch(() => undefined);
      }
      throw error;
    };
    try {
      for (const [name, value] of Object.entries(raw)) {
        if (name === 'accountId' || value === undefined) continue;
        const schema = PARAMETERS.get(name);
        const parsed = schema?.safeParse(value);
        if (parsed && !parsed.success) throw invalidBody(parsed.error, name);
        params[name] = value;
      }
      if (route.access !== 'signed-in' && (!member || !atLeast(member.role, route.access))) {
        throw forbidden(`your role in this account (${member?.role ?? 'none'}) does not allow this: it needs ${route.access}`);
      }
      const body = validBody(route, sent);
      const reply = await route.handle({
        caller,
        params,
        query: queryOf(event),
        headers: headersOf(event),
        body,
        member,
        table,
        ops,
        directory: deps.directory,
        now: new Date(),
      });
      const headers = { 'Cache-Control': 'no-store', ...reply.headers };
      return reply.body === undefined ? emptyResponse(reply.status, headers) : jsonResponse(reply.status, reply.body, headers);
    } catch (error) {
      if (error instanceof ApiError && error.statusCode < 500) return refuse(error);
      throw toManagementError(error);
    }
  };

  return middy<ApiEvent, ApiResult, Error, ManagementContext>()
    // logEvent: false, whatever POWERTOOLS_LOGGER_LOG_EVENT says: the event holds the caller's token.
    .use(injectLambdaContext(deps.telemetry.logger, { logEvent: false, resetKeys: true }))
    .use(requestLog(deps))
    .use(storeDeadline() as MiddlewareObj<ApiEvent, ApiResult, Error, ManagementContext>)
    .use(errorHandler() as MiddlewareObj<ApiEvent, ApiResult, Error, ManagementContext>)
    .handler(dispatch);
}

interface SentBody {
  /** The body's JSON, for a route that takes one. */
  readonly json?: unknown;
  /** Why it is no body for the route: not JSON, or none. */
  readonly problem?: ApiError;
}

/**
 * How deep a body may nest before it is read: far past any body the API takes (a draft's
 * config.inputData, the deepest, ends at 26 levels), so the fields' own rules name what is too deep.
 */
const MAX_BODY_DEPTH = 64;

/** The body as sent, read before anything is refused: a refusal records what was asked for. */
function bodyOf(event: ApiEvent, route: RouteSpec): SentBody {
  if (!route.body) return {};
  const text = bodyTextOf(event);
  if (text === '') return { problem: badRequest('body: a JSON object is required', 'body') };
  if (textNestsDeeperThan(text, MAX_BODY_DEPTH)) return { problem: badRequest(`body: must nest at most ${MAX_BODY_DEPTH} levels deep`, 'body') };
  try {
    return { json: JSON.parse(text) as unknown };
  } catch {
    return { problem: badRequest('body: must be JSON', 'body') };
  }
}

function validBody(route: RouteSpec, sent: SentBody): unknown {
  if (!route.body) return undefined;
  if (sent.problem) throw sent.problem;
  const parsed = route.body.safeParse(sent.json);
  if (!parsed.success) throw invalidBody(parsed.error);
  return parsed.data;
}

/**
 * What a refused attempt was aimed at, as the audit log names it: every path parameter as sent (valid
 * or not), for a route that creates something the body's name for it, and the account itself when
 * nothing in it is named (as the operations name their targets).
 */
function targetOf(route: RouteSpec, accountId: string, path: Readonly<Record<string, string | undefined>>, json: unknown): Record<string, string> {
  const target = nameTable();
  for (const [name, value] of Object.entries(path)) if (name !== 'accountId' && value !== undefined) target[name] = value;
  for (const name of route.bodyTarget ?? []) {
    const value = typeof json === 'object' && json !== null && Object.hasOwn(json, name) ? (json as Record<string, unknown>)[name] : undefined;
    if (typeof value === 'string') target[name] = value;
  }
  return Object.keys(target).length > 0 ? target : { accountId };
}

function headersOf(event: ApiEvent): Record<string, string> {
  const headers = nameTable();
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers[name.toLowerCase()] = value;
  return headers;
}

function queryOf(event: ApiEvent): Record<string, string> {
  const query = nameTable();
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) if (value !== undefined) query[name] = value;
  return query;
}

/**
 * One JSON line per request: who (user id), which account, which route, the status and the error code.
 * Never the event, its headers (the token) or a body (a key's secret is in one 201).
 */
function requestLog({ telemetry }: ManagementDependencies): MiddlewareObj<ApiEvent, ApiResult, Error, ManagementContext> {
  const started = new WeakMap<object, number>();
  const write = (request: ManagementMiddyRequest) => {
    const status = request.response?.statusCode;
    const fields = {
      message: 'request',
      method: request.event.httpMethod,
      route: `${request.event.httpMethod} ${request.event.resource}`,
      path: request.event.path,
      status,
      latencyMs: Math.round((performance.now() - (started.get(request) ?? performance.now())) * 100) / 100,
      userId: request.context.caller?.userId,
      accountId: request.context.accountId,
      errorCode: request.context.apiError?.code,
      keysCopyFailure: request.context.keysCopyFailure,
    };
    if (status === undefined || status >= 500) {
      telemetry.logger.error({ ...fields, ...(request.error ? { error: { name: request.error.name, message: request.error.message } } : {}) });
    } else if (fields.keysCopyFailure !== undefined) telemetry.logger.warn(fields);
    else telemetry.logger.info(fields);
  };
  return {
    before: (request) => {
      started.set(request, performance.now());
    },
    after: write,
    onError: write,
  };
}
