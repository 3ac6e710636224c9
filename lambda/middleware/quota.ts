import type { MiddlewareObj, Request } from '@middy/core';
import type { UsageStore } from '../data/store';
import { quotaPeriodAt, secondsUntil } from '../domain/quota-period';
import { usageLimitExceeded } from '../http/api-error';
import type { ApiEvent, ApiResult } from '../http/http-event';
import type { ApiContext, UsageState } from './api-context';

export interface QuotaOptions {
  readonly upgradeUrl: string;
  readonly now: () => Date;
}

export function rateLimitHeaders(usage: UsageState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(usage.limit),
    'X-RateLimit-Remaining': String(Math.max(0, usage.limit - usage.used)),
    'X-RateLimit-Reset': String(usage.resetsAt),
  };
}

/**
 * One unit of the key's monthly quota per request, taken before the handler runs, given back if the
 * request ends in 5xx. Every response after this point carries the rate-limit headers.
 */
export const quota = (
  store: UsageStore,
  { upgradeUrl, now }: QuotaOptions,
): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => {
  const settle = async (request: Request<ApiEvent, ApiResult, Error, ApiContext>): Promise<void> => {
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
      const principal = request.context.principal;
      if (!principal) throw new Error('quota middleware needs authenticate before it');
      const at = now();
      const { month, resetsAt } = quotaPeriodAt(at);
      const limit = principal.monthlyLimit;
      const grant = await store.takeUsageUnit(principal.keyHash, month, limit);
      request.context.usage = { month, limit, resetsAt, used: Math.min(grant.used, limit), charged: grant.granted };
      if (!grant.granted) throw usageLimitExceeded(limit, upgradeUrl, secondsUntil(resetsAt, at));
    },
    after: settle,
    onError: settle,
  };
};
