import { serviceUnavailable } from '../../http/api-error';
import type { ManagementContext, ManagementMiddleware, ManagementMiddyRequest } from '../management-context';

/** Whatever the store or the user pool does, the answer leaves by then (the read API's 5 s, docs/read-api.md "Store faults"). */
export const ANSWER_BUDGET_MS = 4_800;

/**
 * The answer's budget, from the request's arrival (after storeDeadline, which reads it): every step that
 * waits on the store or the user pool waits within it (withinBudget), and one still waiting when it runs
 * out ends the request with 503. Stopped once the request is answered: registered before the steps whose
 * `onError` waits within it (the refusal audit), so that Middy, running `onError` in reverse, stops it after them.
 */
export function answerBudget(): ManagementMiddleware {
  const timers = new WeakMap<object, NodeJS.Timeout>();
  const stop = (request: ManagementMiddyRequest) => {
    clearTimeout(timers.get(request));
  };
  return {
    before: (request) => {
      const arrivedAt = request.context.arrivedAt ?? Date.now();
      const due = new Promise<never>((_, reject) => {
        timers.set(
          request,
          setTimeout(() => reject(serviceUnavailable()), Math.max(0, arrivedAt + ANSWER_BUDGET_MS - Date.now())),
        );
      });
      // It may run out while no step waits (an answer on its way out): that is no unhandled rejection.
      due.catch(() => undefined);
      request.context.answerDue = due;
    },
    after: stop,
    onError: stop,
  };
}

/** `work`, or 503 once the answer's budget has run out. */
export function withinBudget<T>(context: ManagementContext, work: Promise<T>): Promise<T> {
  const due = context.answerDue;
  if (!due) throw new Error('answerBudget must run before the steps that wait on the store');
  return Promise.race([work, due]);
}
