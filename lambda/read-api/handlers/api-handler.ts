import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import { LruCache } from '../store/lru-cache';
import type { PromptStore, ServedChange, UsageStore } from '../store/api-store';
import type { RememberedPrompts } from '../store/cached-prompt-store';
import type { ApiEvent, ApiResult } from '../../http/http-event';
import type { RouteName } from '../routes';
import type { ApiContext, Principal } from '../api-context';
import { authenticate } from '../middleware/authenticate';
import { compression } from '../middleware/compression';
import { type CorsRules, cors } from '../middleware/cors';
import { errorHandler } from '../../http/error-handler';
import { type KnownAccount, quota, sameKnownAccount } from '../middleware/quota';
import { type RequestObserver, requestTelemetry } from '../middleware/request-telemetry';
import { routeGuard } from '../middleware/route-guard';
import { STORE_BUDGET_MS, storeDeadline } from '../../http/store-deadline';
import type { Telemetry } from '../../telemetry';
import { RolloutAnswer, requireSides, servedRolloutsOf, withRolloutHeaders } from '../served-rollouts';
import type { RouteForesight, RouteForesights, RouteHandler, RouteHandlers } from './route-handler';
import { StoreUnavailableError } from '../../table/errors';

const KEY_ACCOUNTS_CACHED = 10_000;

/** How many times an answer is counted (and read again) before the request gives up with a 503. */
const COUNT_ROUNDS = 12;
/** The first wait for an end that holds the counters; each later one doubles, up to 16 times it. */
const HOLD_POLL_MS = 25;
/** What is kept of the store budget for the last count after waiting for an end. */
const LAST_COUNT_MS = 1_000;

/** An answer as a handler gave it, with the sides it serves and what it was read as. */
interface Answered {
  readonly result: ApiResult;
  readonly rollouts: RolloutAnswer;
  readonly reader: Principal;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
    const run = async (reader: Principal): Promise<Answered> => {
      const { accountId, promptsRevision, scope } = reader;
      // Inside the run, so that a refused subject is answered after the key check, as other bad requests are.
      const rollouts = new RolloutAnswer(requireSides(served));
      const result = await handler({ route, request: httpRequest, reader: { accountId, promptsRevision, scope, deadline, held: served.held }, rollouts });
      return { result, rollouts, reader };
    };
    let answer = run(principal);
    if (admission) {
      // The key and the quota are decided first: if they refuse, the handler's answer is never seen.
      answer.catch(() => undefined);
      await admission;
      const admitted = context.principal;
      // The key check says something changed since this container last checked the key (a publish, a label
      // move, a delete, the key's scope): what the handler read meanwhile, under the revision remembered
      // from the key's last check, may not hold; read again under the one this check returned.
      if (admitted && !sameKnownAccount(admitted, principal)) answer = run(admitted);
    }
    return countAnswered(context, answer, run);
  };

  /**
   * The sides an answer serves that its admission did not count, counted before it is sent
   * (docs/rollouts.md "Served counts"), on the revision it was read under: when the key carries another (a change
   * since, the rollout's end among them), the answer is read again under that one and counted anew; while an end
   * holds the counters, the count waits for the end (and counts regardless once the request cannot wait longer:
   * the end then reads again).
   */
  const countAnswered = async (context: ApiContext, first: Promise<Answered>, run: (reader: Principal) => Promise<Answered>): Promise<ApiResult> => {
    const served = servedRolloutsOf(context);
    const { storeDeadline: deadline, arrivedAt = Date.now() } = context;
    if (!deadline) throw new Error('counting an answer needs the store deadline');
    const waitUntil = arrivedAt + STORE_BUDGET_MS - LAST_COUNT_MS;
    let answered = await first;
    for (let round = 1; ; round += 1) {
      served.answered = answered.rollouts.answered;
      const owed = served.corrections(true);
      const counts = owed.filter(({ by }) => by > 0);
      // Sides counted and not served (the answer went another way) are given back on the terms they were counted on;
      // one whose terms no longer hold stays counted (its rollout ended meanwhile, its counts frozen with it).
      for (const given of served.givenBack(owed)) {
        const outcome = await deps.usage.countServed(answered.reader.keyHash, given, deadline);
        if (!outcome.counted && context.usage) context.usage.servedCountFailure = 'the rollout changed before the side was given back';
        served.counted = served.counted.filter((side) => !given.changes.some((change) => change.rolloutId === side.rolloutId && change.side === side.side));
      }
      if (counts.length === 0) return withRolloutHeaders(answered.result, answered.rollouts.answered);
      if (round > COUNT_ROUNDS) throw new StoreUnavailableError('the rollouts an answer serves kept changing while it was counted');
      const { keyHash, promptsRevision: revision } = answered.reader;
      const waiting = Date.now() < waitUntil;
      const outcome = await deps.usage.countServed(keyHash, { changes: counts, revision, ...(waiting ? { heldAt: Date.now() } : {}) }, deadline);
      if (outcome.counted) {
        served.counted = [...served.counted, ...counts.map((change) => ({ ...change, revision }))];
        return withRolloutHeaders(answered.result, answered.rollouts.answered);
      }
      // The key is gone: there is nothing left to count on.
      if (outcome.gone) return withRolloutHeaders(answered.result, answered.rollouts.answered);
      if (outcome.revision !== revision) {
        answered = await run({ ...answered.reader, promptsRevision: outcome.revision });
        continue;
      }
      // Held by an end of the rollout: wait for it (the end raises the revision, or lets go), then count again.
      await sleep(Math.max(1, Math.min((outcome.heldUntil ?? Date.now()) - Date.now(), waitUntil - Date.now(), HOLD_POLL_MS * 2 ** Math.min(round - 1, 3))));
    }
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
