import type { MiddlewareObj } from '@middy/core';
import type { ApiEvent, ApiResult } from './http-event';
import type { HttpContext } from './http-context';

/**
 * Every request is answered within 5 s of its arrival at the gateway, whatever the store does
 * (docs/read-api.md "Store faults"). The key check, the count and the prompt reads share the first budget;
 * giving back a unit taken for a request that then failed gets what is left of the second; the rest
 * is for the answer itself.
 */
export const STORE_BUDGET_MS = 3_500;
export const REFUND_BUDGET_MS = 4_500;

/** An arrival time further from this process's clock than this is not trusted (a replayed or hand-made event). */
const MAX_CLOCK_SKEW_MS = 10_000;

/** When the gateway received the request: its own timestamp when plausible, else now. */
export function arrivalOf(event: ApiEvent, now: number): number {
  // Typed as always present, but a hand-made event (sam local, npm run invoke) may leave it out.
  const stamp: unknown = event.requestContext?.requestTimeEpoch;
  if (typeof stamp !== 'number' || !Number.isFinite(stamp)) return now;
  return Math.abs(now - stamp) <= MAX_CLOCK_SKEW_MS ? Math.min(stamp, now) : now;
}

/** Aborts `budgetMs` after the request's arrival (at once if that has passed). */
export function deadlineAfter(arrivedAt: number, budgetMs: number, now: number = Date.now()): AbortSignal {
  return AbortSignal.timeout(Math.max(0, arrivedAt + budgetMs - now));
}

/** Sets the request's store deadline before anything can call the store. */
export const storeDeadline = (): MiddlewareObj<ApiEvent, ApiResult, Error, HttpContext> => ({
  before: (request) => {
    const now = Date.now();
    const arrivedAt = arrivalOf(request.event, now);
    request.context.arrivedAt = arrivedAt;
    request.context.storeDeadline = deadlineAfter(arrivedAt, STORE_BUDGET_MS, now);
  },
});
