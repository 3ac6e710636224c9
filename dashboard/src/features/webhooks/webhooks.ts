import { EVENT_TYPES, type EventType, isEventType } from '../../../../lambda/domain/events';

/**
 * The Webhooks page's choices and words (docs/events.md "Webhooks"). The event types are the service's own list
 * (lambda/domain/events.ts), so a type added there shows on the page without a change here.
 */

/** Every type, those added later too: what the API takes as `["*"]`. */
export const EVERY_EVENT = '*' as const;

/** `webhook.test` goes to the webhook tested whatever it lists: it is not something to subscribe to. */
export const SUBSCRIBABLE_EVENTS: readonly string[] = EVENT_TYPES.filter((type) => type !== 'webhook.test');

export interface EventGroup {
  /** The types' first word: `prompt`, `request`, `rollout`, `key`, `member`. */
  readonly prefix: string;
  readonly types: readonly string[];
}

/** The types grouped by their first word, in the order the list has them. */
export function eventGroups(types: readonly string[] = SUBSCRIBABLE_EVENTS): EventGroup[] {
  const groups: { prefix: string; types: string[] }[] = [];
  for (const type of types) {
    const prefix = type.split('.')[0] ?? type;
    const group = groups.find((candidate) => candidate.prefix === prefix);
    if (group) group.types.push(type);
    else groups.push({ prefix, types: [type] });
  }
  return groups;
}

/** The events picked on the form: every event, or some types. */
export interface EventChoice {
  readonly every: boolean;
  readonly types: readonly string[];
}

export const choiceOf = (events: readonly string[]): EventChoice =>
  events.includes(EVERY_EVENT) ? { every: true, types: [] } : { every: false, types: events.filter((type) => type !== EVERY_EVENT) };

/** One type ticked or unticked; the order stays the list's. */
export function withType(choice: EventChoice, type: string, on: boolean, all: readonly string[] = SUBSCRIBABLE_EVENTS): EventChoice {
  const picked = new Set(choice.types);
  if (on) picked.add(type);
  else picked.delete(type);
  return { every: choice.every, types: all.filter((candidate) => picked.has(candidate)) };
}

/** A whole group ticked or unticked. */
export function withGroup(choice: EventChoice, group: EventGroup, on: boolean, all: readonly string[] = SUBSCRIBABLE_EVENTS): EventChoice {
  return group.types.reduce((next, type) => withType(next, type, on, all), choice);
}

/** Whether a group's box is ticked, unticked, or partly (some of its types). */
export function groupState(choice: EventChoice, group: EventGroup): 'all' | 'some' | 'none' {
  const count = group.types.filter((type) => choice.types.includes(type)).length;
  return count === 0 ? 'none' : count === group.types.length ? 'all' : 'some';
}

/**
 * What the API is sent as `events`, or why nothing can be: the API refuses an empty list, and a type it does not
 * know (one a webhook listed before the service stopped sending it).
 */
export function eventsToSend(choice: EventChoice): { events: (EventType | typeof EVERY_EVENT)[] } | { problem: string } {
  if (choice.every) return { events: [EVERY_EVENT] };
  if (choice.types.length === 0) return { problem: 'Pick at least one event, or every event (*).' };
  const unknown = choice.types.filter((type) => !isEventType(type));
  if (unknown.length > 0) return { problem: `Untick ${unknown.join(', ')}: the service no longer sends ${unknown.length === 1 ? 'it' : 'them'}.` };
  return { events: choice.types.filter(isEventType) };
}

/** A webhook's events in a few words, for the list. */
export const eventsInWords = (events: readonly string[]): string => (events.includes(EVERY_EVENT) ? 'every event (*)' : events.join(', '));

/** An attempt's outcome: the receiver's status, or that no answer came in time. */
export const deliveryStatusInWords = (status: number | null): string => (status === null ? 'no answer' : String(status));

/** Whether the attempt delivered: a 2xx, as docs/events.md "Delivery" says. */
export const delivered = (status: number | null): boolean => status !== null && status >= 200 && status < 300;

/** An attempt's duration, in ms under a second, else in seconds with one decimal. */
export const durationInWords = (ms: number): string => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);

/** How long the retired secret still signs after a rotation (docs/events.md "Webhooks"). */
export const ROTATION_OVERLAP_HOURS = 24;
