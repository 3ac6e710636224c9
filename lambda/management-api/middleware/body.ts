import type { ApiError } from '../../http/api-error';
import { type ApiEvent, bodyTextOf } from '../../http/http-event';
import { textNestsDeeperThan } from '../../domain/content-rules';
import type { ManagementMiddleware } from '../management-context';
import { badRequest, invalidBody } from '../management-errors';
import { queryOf } from '../name-table';
import type { ManagementRoute } from '../route';

export interface SentBody {
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

function sentBodyOf(event: ApiEvent, route: ManagementRoute): SentBody {
  if (!route.body) return {};
  const text = bodyTextOf(event);
  if (text === '') return route.bodyOptional ? { json: {} } : { problem: badRequest('body: a JSON object is required', 'body') };
  if (textNestsDeeperThan(text, MAX_BODY_DEPTH)) return { problem: badRequest(`body: must nest at most ${MAX_BODY_DEPTH} levels deep`, 'body') };
  try {
    const json: unknown = JSON.parse(text);
    return { json };
  } catch {
    return { problem: badRequest('body: must be JSON', 'body') };
  }
}

/** The body as sent, read (depth first, then JSON) before anything is refused, which refuses nothing: a refusal records what was asked for. */
export const sentBody = (): ManagementMiddleware => ({
  before: ({ event, context }) => {
    if (!context.route) throw new Error('routeLookup must run before sentBody');
    context.sent = sentBodyOf(event, context.route);
  },
});

/**
 * The body and the query by the route's contract, once the caller may make the change: 400 naming the field, and the
 * handler bound to what the schemas read.
 */
export const validBody = (): ManagementMiddleware => ({
  before: ({ event, context }) => {
    const { route, sent } = context;
    if (!route || !sent) throw new Error('sentBody must run before validBody');
    if (sent.problem) throw sent.problem;
    const bound = route.bind(sent.json, queryOf(event));
    if ('invalid' in bound) throw invalidBody(bound.invalid);
    context.handle = bound.handle;
  },
});
