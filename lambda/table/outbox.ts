import type { EventBody } from '../domain/events';
import type { EventItem } from './item-types';
import { prefixes } from './schema';
import type { Table } from './table';

/*
 * A stand-in with the outbox's names (branch ev-outbox), so the dispatcher builds before that branch is merged;
 * the merge takes ev-outbox's file.
 */

export function readEventBody(item: Pick<EventItem, 'body'>): EventBody {
  return JSON.parse(item.body) as EventBody;
}

export async function eventsAfter(table: Table, accountId: string, afterEventId: string | undefined, limit: number): Promise<EventItem[]> {
  const items = await table.queryPartition<EventItem>('eventsAfter', accountId, prefixes.events, { ConsistentRead: true });
  return items.filter((item) => afterEventId === undefined || item.eventId > afterEventId).slice(0, limit);
}
