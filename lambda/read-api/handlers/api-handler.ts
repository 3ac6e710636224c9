import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import { LruCache } from '../../table/read-path/lru-cache';
import type { PromptStore, ServedChange, UsageStore } from '../../table/read-path/api-store';
import type { RememberedPrompts } from '../../table/read-path/cached-prompt-store';
import type { ApiEvent, ApiResult } from '../../http/http-event';
import type { RouteName } from '../routes';
import type { ApiContext, Principal } from '../../http/api-context';
import { authenticate } from '../middleware/authenticate';
import { compression } from '../middleware/compression';
import { type CorsRules, cors } from '../middleware/cors';
import { errorHandler } from '../../http/error-handler';
import { type KnownAccount, quota, sameKnownAccount } from '../middleware/quota';
import { type RequestObserver, requestTelemetry } from '../middleware/request-telemetry';
import { routeGuard } from '../middleware/route-guard';
import { storeDeadline } from '../../http/store-deadline';
import type { Telemetry } from '../../telemetry';
import { RolloutAnswer, requireSides, servedRolloutsOf, withRolloutHeaders } from '../served-rollouts';
import type { RouteForesight, RouteForesights, RouteHandler, RouteHandlers } from './route-handler';

const KEY_ACCOUNTS_CACHED = 10_000;

export interface ApiDependencies {
  readonly usage: UsageStore;
  readonly prompts: PromptStore;
  /**
   * The same prompts as remembered (a CachedPromptStore): with it, a warm request's admission counts the rollout
   * sides the request will answer in its own write; without it, each side answered takes a write of its own.
   */
  readonly remembered?: RememberedPrompts;
  readonly upgradeUrl: string;
  readonly now: () => Date;
  readonly telemetry: Telemetry;
  readonly observeRequests?: RequestObserver;
}

/** What a function adds to the chain beyond its routes (the MCP endpoint, lambda/mcp/). */
export interface ChainOptions {
  readonly cors?: CorsRules;
  /**
   * Run once the presented key is read and before the store checks it: what must be known of the request to
   * decide how the key is checked (`context.readsPrompts`), and nothing that may refuse it before that check.
   */
  readonly beforeKeyCheck?: MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext>;
  /** Per route, the rollout sides a warm request will answer, told from memory before its admission is sent. */
  readonly foresights?: RouteForesights;
}

/**
 * Every function of the API is this chain, differing only in the routes it serves:
 * CORS (and preflight) -> route -> store deadline -> key -> quota -> handler, with one error handler for all of it,
 * and large answers gzipped for callers that accept it.
 * Registration order matters: Middy runs `after`/`onError` in reverse, so errors become JSON
 * first, then get rate-limit headers (quota), then CORS headers, then the request is logged, its metrics
 * in the same line, on its final response, then Powertools resets the logger.
 */
export function createApiHandler(deps: ApiDependencies, handlers: RouteHandlers, options: ChainOptions = {}) {
  const keyAccounts = new LruCache<KnownAccount>({ maxEntries: KEY_ACCOUNTS_CACHED });
  const served = Object.keys(handlers) as RouteName[];
  const dispatch = async (_event: ApiEvent, context: ApiContext): Promise<ApiResult> => {
    const { route, httpRequest, principal, admission, storeDeadline: deadline } = context;
    if (!route || !httpRequest || !principal || !deadline) throw new Error('handler reached without route or principal');
    const handler = handlers[route.name] as RouteHandler<typeof route.name>;
    const served = servedRolloutsOf(context);
    const run = async ({ accountId, promptsRevision, scope }: Principal) => {
      // Inside the run, so that a refused subject is answered after the key check, as other bad requests are.
      const rollouts = new RolloutAnswer(requireSides(served));
      const result = await handler({ route, request: httpRequest, reader: { accountId, promptsRevision, scope, deadline }, rollouts });
      return { result, rollouts };
    };
    const answerWith = async (running: ReturnType<typeof run>): Promise<ApiResult> => {
      const { result, rollouts } = await running;
      served.answered = rollouts.answered;
      return withRolloutHeaders(result, rollouts.answered);
    };
    const answer = run(principal);
    if (!admission) return answerWith(answer);
    // The key and the quota are decided first: if they refuse, the handler's answer is never seen.
    answer.catch(() => undefined);
    await admission;
    const admitted = context.principal;
    // The key check says something changed since this container last checked the key (a publish, a label
    // move, a delete, the key's scope): what the handler read meanwhile, under the revision remembered
    // from the key's last check, may not hold; read again under the one this check returned.
    return answerWith(admitted && !sameKnownAccount(admitted, principal) ? run(admitted) : answer);
  };

  const foresee = (context: ApiContext, known: KnownAccount): readonly ServedChange[] => {
    const { route, httpRequest, storeDeadline: deadline } = context;
    const { sides } = servedRolloutsOf(context);
    if (!route || !httpRequest || !deadline || !sides || !deps.remembered) return [];
    const foresight = options.foresights?.[route.name] as RouteForesight<typeof route.name> | undefined;
    if (!foresight) return [];
    try {
      const reader = { ...known, deadline };
      return foresight({ route, request: httpRequest, reader, sides, remembered: deps.remembered }).flatMap(({ rollout }) =>
        rollout ? [{ rolloutId: rollout.rolloutId, side: rollout.side, by: 1 }] : [],
      );
    } catch {
      // A request memory cannot tell of (a malformed one, which its handler refuses) counts what its handler answers.
      return [];
    }
  };

  const { logger } = deps.telemetry;
  const telemetry = requestTelemetry(deps.telemetry, deps.observeRequests);
  return (
    middy<ApiEvent, ApiResult, Error, ApiContext>(telemetry.plugin)
      // logEvent: false overrides POWERTOOLS_LOGGER_LOG_EVENT: the event holds the caller's key.
      .use(injectLambdaContext(logger, { logEvent: false, resetKeys: true }))
      .use(telemetry.middleware)
      .use(cors(options.cors))
      .use(compression())
      .use(routeGuard(served))
      .use(storeDeadline())
      .use(authenticate())
      .use(options.beforeKeyCheck ? [options.beforeKeyCheck] : [])
      .use(quota(deps.usage, { upgradeUrl: deps.upgradeUrl, now: deps.now, keyAccounts, foresee }))
      .use(errorHandler())
      .handler(dispatch)
  );
}
