import type { MiddlewareObj, Request } from '@middy/core';
import type { LruCache } from '../store/lru-cache';
import type { Admission, ServedChange, ServedCount, UsageStore } from '../store/api-store';
import { servedRolloutsOf } from '../served-rollouts';
import { sameScope } from '../../domain/prompt-scope';
import { type QuotaPeriod, quotaPeriodAt, secondsUntil } from '../../domain/quota-period';
import { invalidApiKey, usageLimitExceeded } from '../../http/api-error';
import type { ApiEvent, ApiResult } from '../../http/http-event';
import type { ApiContext, Principal, UsageState } from '../api-context';
import { deadlineAfter, REFUND_BUDGET_MS } from '../../http/store-deadline';

/** What a key check says of the caller beyond the count: a later check may say otherwise (a delete, a new scope). */
export type KnownAccount = Omit<Principal, 'keyHash'>;

export function sameKnownAccount(a: KnownAccount, b: KnownAccount): boolean {
  return a.accountId === b.accountId && a.promptsRevision === b.promptsRevision && sameScope(a.scope, b.scope);
}

export interface QuotaOptions {
  readonly upgradeUrl: string;
  readonly now: () => Date;
  /** What the last key check of each key said of its account (a key never changes account). */
  readonly keyAccounts: LruCache<KnownAccount>;
  /**
   * The rollout sides the request will answer, as far as memory tells under the account already known
   * (api-handler.ts): counted in the admission's own write, on its condition.
   */
  readonly foresee?: (context: ApiContext, known: KnownAccount) => readonly ServedChange[];
}

type ApiRequest = Request<ApiEvent, ApiResult, Error, ApiContext>;

export function rateLimitHeaders(usage: UsageState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(usage.limit),
    'X-RateLimit-Remaining': String(Math.max(0, usage.limit - usage.used)),
    'X-RateLimit-Reset': String(usage.resetsAt),
  };
}

/**
 * One store operation per request both verifies the key (known, active) and takes one unit of its
 * monthly quota, so a revoked key, a changed plan or a deleted prompt applies on the very next request.
 * A request that reads no prompt (`context.readsPrompts === false`) takes one read of the key instead,
 * by the same rule, and counts nothing; its answer still carries the key's rate-limit headers.
 * It starts here and its promise is `context.admission`: when the key's account is already known, the
 * handler reads prompts meanwhile and the dispatcher (api-handler.ts) awaits it before answering; the
 * key and quota still decide first. A unit is given back if the request ends in 5xx (within the refund
 * budget of store-deadline.ts); every response from here on has rate-limit headers.
 *
 * The rollout sides a request answers are counted on its key (docs/rollouts.md "Served counts"): in the
 * admission's write when memory tells them beforehand, else (a cold read, or a change that made memory wrong)
 * by one write once the answer is known; a request that ends in 5xx gives them back with its unit, and a
 * refused one counts none.
 */
export const quota = (store: UsageStore, { upgradeUrl, now, keyAccounts, foresee }: QuotaOptions): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => {
  /** `counted`: the answer is admit's (a unit taken, or refused at the limit); else checkKey's, which counts nothing. */
  const decide = (request: ApiRequest, keyHash: string, at: Date, period: QuotaPeriod, admission: Admission, counted: boolean): void => {
    if (!admission.admitted && admission.reason === 'invalid-key') {
      keyAccounts.delete(keyHash);
      throw invalidApiKey();
    }
    const { key } = admission;
    const { month, day, resetsAt } = period;
    const limit = key.limit;
    const known: KnownAccount = {
      accountId: key.accountId,
      promptsRevision: key.promptsRevision,
      ...(key.scope ? { scope: key.scope } : {}),
    };
    keyAccounts.set(keyHash, known);
    request.context.principal = { keyHash, ...known };
    // The spec fixes used == limit when refusing, even if a lowered limit left the count above it.
    request.context.usage = { month, day, limit, resetsAt, used: Math.min(key.used, limit), charged: counted && admission.admitted };
    if (!admission.admitted) throw usageLimitExceeded(limit, upgradeUrl, secondsUntil(resetsAt, at));
  };

  /** A request that reads no prompt (docs/behaviour-rules.md, "MCP endpoint") has its key checked, and is never refused for the quota. */
  const checkOnly = async (keyHash: string, at: Date, period: QuotaPeriod, deadline: AbortSignal): Promise<Admission> => {
    const key = await store.checkKey({ keyHash, month: period.month, at }, deadline);
    return key ? { admitted: true, key } : { admitted: false, reason: 'invalid-key' };
  };

  /**
   * Gives back, on the terms each was counted on, sides counted for a request that did not serve them; a side whose
   * terms no longer hold stays counted (its rollout ended in the meantime, its counts frozen with it).
   */
  const giveBack = async (keyHash: string, given: readonly ServedCount[], deadline: AbortSignal): Promise<string | undefined> => {
    let failure: string | undefined;
    for (const served of given) {
      const outcome = await store.countServed(keyHash, served, deadline);
      if (!outcome.counted) failure = 'the rollout changed before the side was given back';
    }
    return failure;
  };

  const settle = async (request: ApiRequest): Promise<void> => {
    const { usage, principal, arrivedAt = Date.now(), servedRollouts } = request.context;
    const response = request.response;
    if (!usage || !principal || !response) return;
    const deadline = deadlineAfter(arrivedAt, REFUND_BUDGET_MS);
    if (usage.charged && response.statusCode >= 500) {
      try {
        const [withUnit, ...others] = servedRollouts?.countedByRevision() ?? [];
        await store.returnUsageUnit(principal.keyHash, usage, deadline, withUnit);
        usage.charged = false;
        usage.used -= 1;
        const negated = others.map(({ changes, revision }) => ({ changes: changes.map((change) => ({ ...change, by: -change.by })), revision }));
        if (negated.length > 0) usage.servedCountFailure = await giveBack(principal.keyHash, negated, deadline);
        if (servedRollouts) servedRollouts.counted = [];
      } catch (error) {
        // Never allowed to change the response; the request log line reports it.
        usage.returnFailure = error instanceof Error ? error.name : 'unknown error';
      }
    } else if (servedRollouts) {
      // What an answer serves is counted before it is sent (api-handler.ts): what is left are sides counted for a
      // request that then answered without them (refused for its arguments, a 4xx), given back here.
      const given = servedRollouts.givenBack(servedRollouts.corrections(response.statusCode < 400));
      if (given.length > 0) {
        try {
          usage.servedCountFailure = await giveBack(principal.keyHash, given, deadline);
          servedRollouts.counted = [];
        } catch (error) {
          usage.servedCountFailure = error instanceof Error ? error.name : 'unknown error';
        }
      }
    }
    response.headers = { ...response.headers, ...rateLimitHeaders(usage) };
  };

  return {
    before: async (request) => {
      const { keyHash, storeDeadline } = request.context;
      if (keyHash === undefined || storeDeadline === undefined) {
        throw new Error('quota middleware needs authenticate and storeDeadline before it');
      }
      const at = now();
      const period = quotaPeriodAt(at);
      const counted = request.context.readsPrompts !== false;
      const knownAccount = keyAccounts.get(keyHash);
      const foreseen = counted && knownAccount && foresee ? foresee(request.context, knownAccount) : [];
      // Decided under the revision this container knows, and counted only while the key carries it and no end of
      // the rollout holds its counters (api-store.ts ServedCount): otherwise the unit is taken alone.
      const served = knownAccount && foreseen.length > 0 ? { changes: foreseen, revision: knownAccount.promptsRevision, heldAt: Date.now() } : undefined;
      const answer = counted
        ? store.admit({ keyHash, month: period.month, day: period.day, at, ...(served ? { served } : {}) }, storeDeadline)
        : checkOnly(keyHash, at, period, storeDeadline);
      const admission = answer.then((result) => {
        decide(request, keyHash, at, period, result, counted);
        // Admitted: the sides went in with the unit if their terms held (a refusal's write changed nothing).
        if (served && result.admitted && result.servedCounted === true) {
          servedRolloutsOf(request.context).counted = served.changes.map((change) => ({ ...change, revision: served.revision }));
        }
      });
      if (knownAccount === undefined) {
        await admission;
        return;
      }
      request.context.principal = { keyHash, ...knownAccount };
      request.context.admission = admission;
      // Awaited by the dispatcher; until then a refusal must not surface as an unhandled rejection.
      admission.catch(() => undefined);
    },
    after: settle,
    onError: settle,
  };
};
