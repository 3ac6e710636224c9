import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { type DispatchDependencies, type DispatchSummary, dispatchEvents } from './dispatcher';
import { eventsOfStream } from './stream-records';

export interface DispatchHandlerDependencies extends DispatchDependencies {
  readonly logger: Logger;
}

/** What one batch came to: the function's answer, as `sam local invoke` prints it. */
export type DispatchResult = DispatchSummary & { readonly ignored: number };

/**
 * The dispatcher function on the table's stream (lib/event-delivery.ts): the batch's event items, dispatched.
 * A failure throws; the event source mapping retries the batch, bisecting it, and sends what still fails to the
 * on-failure queue, whose alarm tells the operator.
 */
export function createDispatchHandler(deps: DispatchHandlerDependencies) {
  const run = async (event: unknown): Promise<DispatchResult> => {
    const { events, ignored } = eventsOfStream(event);
    const summary = await dispatchEvents(events, deps);
    deps.logger.info({ message: 'events dispatched', events: events.length, ...summary, ignored, eventIds: events.map((each) => each.id) });
    return { ...summary, ignored };
  };
  return middy(run).use(injectLambdaContext(deps.logger, { logEvent: false, resetKeys: true }));
}
