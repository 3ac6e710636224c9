import { EVENT_TYPES } from './events';

/**
 * What a webhook's settings may be (docs/events.md "Webhooks"), for both doors: the management API's schemas
 * (lambda/management-api/handlers/webhook-contracts.ts) and the operations that the CLI calls too. Where a URL may point is the
 * destination policy's (lambda/webhook-delivery/destination.ts), which needs DNS.
 */

/** A webhook's id: `wh_` and 16 hex digits. */
export const WEBHOOK_ID_PATTERN = /^wh_[0-9a-f]{16}$/;

export const MAX_WEBHOOK_URL_LENGTH = 2048;
export const MAX_WEBHOOK_DESCRIPTION_LENGTH = 500;

/** Every event type but `webhook.test`, which goes to the webhook tested, whatever it lists. */
export const SUBSCRIBABLE_EVENT_TYPES = EVENT_TYPES.filter((type) => type !== 'webhook.test');

/** `["*"]`: every event type, those added later too. */
export const ALL_EVENTS = '*';

const isSubscribable = (value: string): boolean => SUBSCRIBABLE_EVENT_TYPES.some((type) => type === value);

/** Why a webhook's `events` list is not one, or undefined when it is: non-empty, unique, known types or exactly `["*"]`. */
export function eventsProblem(events: readonly string[]): string | undefined {
  if (events.length === 0) return 'must list at least one event type, or be ["*"] for every one';
  if (events.includes(ALL_EVENTS)) return events.length === 1 ? undefined : 'must be exactly ["*"] when it takes every event';
  if (new Set(events).size !== events.length) return 'must not list an event type twice';
  const unknown = events.find((type) => !isSubscribable(type));
  if (unknown === 'webhook.test') return 'must not list webhook.test: a test is sent to the webhook tested, whatever it lists';
  if (unknown !== undefined) return `has ${JSON.stringify(unknown.slice(0, 64))}, which is no event type (docs/events.md lists them)`;
  return undefined;
}

/**
 * What the record (the audit log, log lines, the delivery log, events) says of a webhook's URL: its origin
 * (scheme://host[:port]) alone, never its user info, path or query. Receivers (Slack, Discord) often carry a token
 * in the path or query, and the audit log is readable by viewers, who may not manage webhooks. Anything that is no
 * absolute URL (a string that does not parse, a number, an object) is recorded as that, never as itself.
 */
export function recordedUrl(value: unknown): string {
  if (typeof value !== 'string') return 'not a URL';
  if (!URL.canParse(value)) return 'not an absolute URL';
  const url = new URL(value);
  return url.host === '' ? url.protocol : `${url.protocol}//${url.host}`;
}

/** Any absolute URL written out in a text: a scheme, `://`, and everything up to a space or a quote. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]*/gi;

/**
 * Free text for the record (an error's message, a path) with every absolute URL in it cut to its origin, as
 * recordedUrl cuts one: what a store, a DNS resolver or a library says may quote the URL it was given.
 */
export function urlsRecordedIn(text: string): string {
  return text.replace(URL_IN_TEXT, (url) => {
    const recorded = recordedUrl(url);
    return recorded === 'not an absolute URL' ? 'a URL' : recorded;
  });
}

/** Why a description is not one, or undefined. */
export const descriptionProblem = (description: string): string | undefined =>
  description.length > MAX_WEBHOOK_DESCRIPTION_LENGTH ? `must be at most ${MAX_WEBHOOK_DESCRIPTION_LENGTH} characters` : undefined;

/** Whether the webhook wants events of this type: it names it, or it takes every one (`*`). */
export function wantsEvent(webhook: { readonly events: readonly string[]; readonly enabled: boolean }, type: string): boolean {
  return webhook.enabled && (webhook.events.includes('*') || webhook.events.includes(type));
}
