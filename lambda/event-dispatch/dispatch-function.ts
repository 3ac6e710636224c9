import { createDispatchHandler } from './dispatch-handler';
import { dispatcherDependencies } from './runtime';

/** Lambda entry point: EventDispatcher (lib/event-delivery.ts), invoked by the table's stream with new event items. */
export const handler = createDispatchHandler(dispatcherDependencies());
