import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as z from 'zod';
import type { EventBody } from '../domain/events';
import { readEventBody } from '../table/outbox';

const attributes = z.record(
  z.string(),
  z.custom<AttributeValue>((value) => typeof value === 'object' && value !== null, 'an attribute value'),
);
const streamEvent = z.object({
  Records: z.array(
    z.object({
      eventName: z.string().optional(),
      dynamodb: z.object({ NewImage: attributes.optional() }).optional(),
    }),
  ),
});

/** The kind of item the outbox writes (its `type` tag): the event source mapping's filter lets only these through. */
export const EVENT_ITEM_TYPE = 'event';

export interface StreamEvents {
  readonly events: EventBody[];
  /** Records that are not an event item's insert (the filter keeps them out; a sample event may not). */
  readonly ignored: number;
}

/**
 * The committed events of a DynamoDB stream batch: the new image of each INSERT of an event item, read as the outbox
 * wrote it. A record of anything else is counted and ignored; an event item that cannot be read throws, so the stream
 * retries the batch and, bisecting, ends with that record alone in the on-failure queue.
 */
export function eventsOfStream(event: unknown): StreamEvents {
  const parsed = streamEvent.safeParse(event);
  if (!parsed.success) throw new Error(`not a DynamoDB stream event: ${parsed.error.issues.map((issue) => issue.path.join('.')).join(', ')}`);
  const events: EventBody[] = [];
  let ignored = 0;
  for (const record of parsed.data.Records) {
    const image = record.dynamodb?.NewImage;
    const item = record.eventName === 'INSERT' && image ? unmarshall(image) : undefined;
    if (item?.type !== EVENT_ITEM_TYPE) {
      ignored++;
      continue;
    }
    events.push(readEventBody(item));
  }
  return { events, ignored };
}
