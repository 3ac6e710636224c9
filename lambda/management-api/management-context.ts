import type { MiddlewareObj, Request } from '@middy/core';
import type { ApiEvent, ApiResult } from '../http/http-event';
import type { Operations } from '../operations';
import type { Table } from '../table/table';
import type { Member } from '../features/members/members';
import type { SentBody } from './middleware/body';
import type { BoundHandler, Caller, ManagementRoute } from './route';
import type { HttpContext } from '../http/http-context';

/** What the management chain's middleware (middleware/) learns about a request, in the order it learns it. */
export interface ManagementContext extends HttpContext {
  /** Rejects with 503 when the answer is due (answer-budget.ts). */
  answerDue?: Promise<never>;
  caller?: Caller;
  route?: ManagementRoute;
  /** The table bound to the request's store deadline, and the operations acting as the caller. */
  table?: Table;
  ops?: Operations;
  /** The path's account, once the caller is known to be a member of it. */
  accountId?: string;
  /**
   * A change committed but its revision was not copied to the account's keys (operations/commit.ts): it stands, and
   * the read API may serve the account's earlier prompts until a later change copies again. Its error's name.
   */
  keysCopyFailure?: string;
  member?: Member;
  /** The body as sent, read before anything is refused: a refusal records what was asked for. */
  sent?: SentBody;
  /** Path parameters, validated (names as data). */
  params?: Readonly<Record<string, string>>;
  /** The route's handler with the body its schema read. */
  handle?: BoundHandler;
}

export type ManagementMiddleware = MiddlewareObj<ApiEvent, ApiResult, Error, ManagementContext>;

export type ManagementMiddyRequest = Request<ApiEvent, ApiResult, Error, ManagementContext>;
