/**
 * Events (docs/events.md): every change that happened, announced once it committed, to the stack's EventBridge
 * bus and to the account's webhooks. One list of types, one body, shared by the outbox that writes them
 * (lambda/table/outbox.ts), the dispatcher and the deliveries (lambda/event-dispatch/, lambda/webhook-delivery/), the
 * management API's schemas and the dashboard.
 */

export const EVENT_TYPES = [
  'prompt.created',
  'prompt.updated',
  'prompt.deleted',
  'prompt.restored',
  'prompt.version.published',
  'prompt.label.moved',
  'prompt.label.removed',
  'request.opened',
  'request.approved',
  'request.applied',
  'request.rejected',
  'request.withdrawn',
  'request.stale',
  'rollout.started',
  'rollout.changed',
  'rollout.completed',
  'rollout.aborted',
  'key.created',
  'key.revoked',
  'member.added',
  'member.removed',
  'webhook.test',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);
}

/** `evt_`, the instant it happened (UTC, digits only: sorts by time), `_` and 8 hex digits. */
export const EVENT_ID_PATTERN = /^evt_\d{17}_[0-9a-f]{8}$/;

/** Who made the change, as an event names them: a person by email, an operator, or the deployed automation. */
export type EventActor = { type: 'user'; email: string } | { type: 'cli'; operator: string } | { type: 'system'; name: string };

/**
 * What every event says, as EventBridge's `detail` and a webhook's JSON body: `data` holds the before and
 * after of what changed (a label move: promptId, label, from, to), never a key's secret nor a webhook's.
 */
export interface EventBody {
  readonly id: string;
  readonly type: EventType;
  /** ISO 8601, UTC, milliseconds: when the change committed (its transaction's time). */
  readonly time: string;
  readonly accountId: string;
  readonly actor: EventActor;
  readonly data: Record<string, unknown>;
}

/** EventBridge's `source` for every event of the service; `detail-type` is the event's type. */
export const EVENT_SOURCE = 'prompt-retrieval';
