import type { MiddlewareObj, Request } from '@middy/core';
import type { LruCache } from '../cache/lru-cache';
import type { Admission, UsageStore } from '../data/store';
import { type QuotaPeriod, quotaPeriodAt, secondsUntil } from '../domain/quota-period';
import { invalidApiKey, usageLimitExceeded } from '../http/api-error';
import type { ApiEvent, ApiResult } from '../http/http-event';
import type { ApiContext, UsageState } from './api-context';

export interface QuotaOptions {
  readonly upgradeUrl: string;
  readonly now: () => Date;
  /** Which account each verified key belongs to (a key never changes account). */
  readonly keyAccounts: LruCache<string>;
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
 * monthly quota, so a revoked key or a changed plan applies on the very next request. When the key's
 * account is already known, the handler reads prompts meanwhile; the key and quota still decide first.
 * A unit is given back if the request ends in 5xx; every response from here on has rate-limit headers.
 */
export const quota = (
  store: UsageStore,
  { upgradeUrl, now, keyAccounts }: QuotaOptions,
): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => {
  const decide = (request: ApiRequest, keyHash: string, at: Date, period: QuotaPeriod, admission: Admission): void => {
    if (!admission.admitted && admission.reason === 'invalid-key') {
      keyAccounts.delete(keyHash);
      throw invalidApiKey();
    }
    const { key } = admission;
    const { month, resetsAt } = period;
    const limit = key.limit;
    keyAccounts.set(keyHash, key.accountId);
    request.context.principal = { keyHash, accountId: key.accountId };
    // The spec fixes used == limit when refusing, even if a lowered limit left the count above it.
    request.context.usage = { month, limit, resetsAt, used: Math.min(key.used, limit), charged: admission.admitted };
    if (!admission.admitted) throw usageLimitExceeded(limit, upgradeUrl, secondsUntil(resetsAt, at));
  };

  const settle = async (request: ApiRequest): Promise<void> => {
    const { usage, principal } = request.context;
    const response = request.response;
    if (!usage || !principal || !response) return;
    if (usage.charged && response.statusCode >= 500) {
      try {
        await store.returnUsageUnit(principal.keyHash, usage.month);
        usage.charged = false;
        usage.used -= 1;
      } catch (error) {
        // Never allowed to change the response; the request log line reports it.
        usage.returnFailure = error instanceof Error ? error.name : 'unknown error';
      }
    }
    response.headers = { ...response.headers, ...rateLimitHeaders(usage) };
  };

  return {
    before: async (request) => {
      const keyHash = request.context.keyHash;
      if (keyHash === undefined) throw new Error('quota middleware needs authenticate before it');
      const at = now();
      const period = quotaPeriodAt(at);
      const admission = store
        .admit(keyHash, period.month)
        .then((answer) => decide(request, keyHash, at, period, answer));
      const knownAccount = keyAccounts.get(keyHash);
      if (knownAccount === undefined) {
        await admission;
        return;
      }
      request.context.principal = { keyHash, accountId: knownAccount };
      request.context.admission = admission;
      // Awaited by the dispatcher; until then a refusal must not surface as an unhandled rejection.
      admission.catch(() => undefined);
    },
    after: settle,
    onError: settle,
  };
};
