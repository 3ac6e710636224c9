import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { EVENT_SOURCE, type EventBody } from '../domain/events';
import type { EventBus } from '../webhook-delivery/delivery-job';

/** PutEvents takes at most 10 entries a call. */
const ENTRIES_PER_CALL = 10;

/**
 * The stack's bus: `source` prompt-retrieval, `detail-type` the event's type, `detail` the body. An entry the bus
 * refused fails the whole publish, so the stream runs the batch again (at least once: a rule may see it twice).
 */
export class EventBridgeBus implements EventBus {
  constructor(
    private readonly client: EventBridgeClient,
    private readonly busName: string,
  ) {}

  async publish(events: readonly EventBody[]): Promise<void> {
    for (let start = 0; start < events.length; start += ENTRIES_PER_CALL) {
      const chunk = events.slice(start, start + ENTRIES_PER_CALL);
      const answer = await this.client.send(
        new PutEventsCommand({
          Entries: chunk.map((event) => ({
            EventBusName: this.busName,
            Source: EVENT_SOURCE,
            DetailType: event.type,
            Detail: JSON.stringify(event),
            Time: new Date(event.time),
          })),
        }),
      );
      if ((answer.FailedEntryCount ?? 0) > 0) {
        const codes = [...new Set((answer.Entries ?? []).flatMap((entry) => (entry.ErrorCode ? [entry.ErrorCode] : [])))];
        throw new Error(`EventBridge refused ${answer.FailedEntryCount} of ${chunk.length} event(s): ${codes.join(', ')}`);
      }
    }
  }
}
