import { orderedTails } from './ordered-tails';
import { EVENT_ID_PATTERN, type EventActor, type EventBody, type EventType, isEventType } from '../domain/events';
import type { EventItem, WithKeys } from './item-types';
import { keys, prefixes } from './schema';
import type { Table } from './table';
import type { TransactionWrite } from './transaction';

/**
 * The outbox (docs/events.md "Never lost, never phantom"): an event is an item in its account's partition
 * (`EVENT#<eventId>`), put in the same transaction as the change it announces (operations/commit.ts), so it exists exactly
 * when the change does. The dispatcher reads them back: deployed from the table's stream, locally with
 * eventsAfter. Everything DynamoDB knows of event items is here.
 */

/** How long an event stays for the dispatcher to read (DynamoDB's TTL removes it after). */
export const EVENT_KEPT_SECONDS = 30 * 24 * 3600;

/** The tails of one transaction's events, in the order the change made them (ordered-tails.ts). */
export const eventTails = orderedTails;

/** `evt_`, the instant's digits (17: it sorts by time) and the tail. */
export const newEventId = (time: string, tail: string): string => `evt_${time.replace(/\D/g, '')}_${tail}`;

export interface NewEvent {
  readonly accountId: string;
  readonly type: EventType;
  /** The change's time: its audit entry's. */
  readonly time: string;
  readonly actor: EventActor;
  readonly data: Record<string, unknown>;
}

/** The event's item, as a put of its change's transaction; its id is new, so it never overwrites another. */
export function eventWrite(event: NewEvent, tail: string): { write: TransactionWrite; body: EventBody } {
  const eventId = newEventId(event.time, tail);
  const body: EventBody = { id: eventId, type: event.type, time: event.time, accountId: event.accountId, actor: event.actor, data: event.data };
  const item: WithKeys<EventItem> = {
    ...keys.event(event.accountId, eventId),
    type: 'event',
    accountId: event.accountId,
    eventId,
    eventType: event.type,
    time: event.time,
    body: JSON.stringify(body),
    ttl: Math.floor(Date.parse(event.time) / 1000) + EVENT_KEPT_SECONDS,
  };
  return { write: { Put: { Item: item, ConditionExpression: 'attribute_not_exists(pk)' } }, body };
}

/**
 * The account's events after `afterEventId` (all of them without it), oldest first, at most `limit`, strongly
 * consistent: an event whose change just committed is among them (the local dispatcher's read).
 */
export async function eventsAfter(table: Table, accountId: string, afterEventId: string | undefined, limit: number): Promise<EventItem[]> {
  if (afterEventId !== undefined && !EVENT_ID_PATTERN.test(afterEventId)) throw new RangeError('not an event id');
  const lower = afterEventId === undefined ? prefixes.events : keys.event(accountId, afterEventId).sk;
  const { items } = await table.queryPage<WithKeys<EventItem>>('eventsAfter', {
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lower AND :upper',
    ExpressionAttributeValues: { ':pk': prefixes.accountPartition(accountId), ':lower': lower, ':upper': `${prefixes.events}~` },
    ConsistentRead: true,
    Limit: afterEventId === undefined ? limit : limit + 1,
  });
  return items
    .filter((item) => item.eventId !== afterEventId)
    .slice(0, limit)
    .map(({ pk: _pk, sk: _sk, type: _type, gsi1pk: _g1, gsi1sk: _g2, ...event }) => event);
}

/** An event item whose body is not an event's (written by something other than eventWrite). */
export class MalformedEventError extends Error {
  override readonly name = 'MalformedEventError';
}

/**
 * The body an event item holds, parsed back. `data`'s names are the requester's (`constructor`, `__proto__`):
 * every object is parsed into one that inherits nothing, so such a name stays a name.
 */
export function readEventBody(item: { readonly body?: unknown }): EventBody {
  if (typeof item.body !== 'string') throw new MalformedEventError('an event item without a body');
  let parsed: unknown;
  try {
    parsed = JSON.parse(item.body, asData);
  } catch {
    throw new MalformedEventError('an event item whose body is not JSON');
  }
  if (!isRecord(parsed)) throw new MalformedEventError('an event body that is not an object');
  const { id, type, time, accountId, actor, data } = parsed;
  if (typeof id !== 'string' || !EVENT_ID_PATTERN.test(id)) throw new MalformedEventError('an event body without an event id');
  if (!isEventType(type)) throw new MalformedEventError(`event ${id}: not an event type`);
  if (typeof time !== 'string' || typeof accountId !== 'string') throw new MalformedEventError(`event ${id}: no time or account`);
  const who = eventActorOf(actor);
  if (!who) throw new MalformedEventError(`event ${id}: no actor`);
  if (!isRecord(data)) throw new MalformedEventError(`event ${id}: no data`);
  return { id, type, time, accountId, actor: who, data };
}

/** JSON.parse's reviver: each object becomes one that inherits nothing, holding the same names. */
function asData(_name: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const table: Record<string, unknown> = Object.create(null);
  for (const [name, inner] of Object.entries(value)) table[name] = inner;
  return table;
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function eventActorOf(value: unknown): EventActor | undefined {
  if (!isRecord(value)) return undefined;
  if (value.type === 'user' && typeof value.email === 'string') return { type: 'user', email: value.email };
  if (value.type === 'cli' && typeof value.operator === 'string') return { type: 'cli', operator: value.operator };
  if (value.type === 'system' && typeof value.name === 'string') return { type: 'system', name: value.name };
  return undefined;
}
