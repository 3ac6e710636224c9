import type { EventType } from '../domain/events';
import type { AuditEntryItem } from '../table/item-types';

/**
 * What each change announces (docs/events.md "Event types"): the one map from the audit log's actions to event
 * types, and each event's `data`, built from the entry the change writes (its target, before and after). An
 * action not here announces nothing: drafts, account settings, a key's settings, a member's role, webhooks.
 */
export const EVENT_OF_ACTION: ReadonlyMap<string, EventType> = new Map<string, EventType>(
  Object.entries({
    'prompt.create': 'prompt.created',
    'prompt.update': 'prompt.updated',
    'prompt.delete': 'prompt.deleted',
    'prompt.restore': 'prompt.restored',
    'version.publish': 'prompt.version.published',
    'label.set': 'prompt.label.moved',
    'label.remove': 'prompt.label.removed',
    'request.open': 'request.opened',
    'request.approve': 'request.approved',
    'request.apply': 'request.applied',
    'request.reject': 'request.rejected',
    'request.withdraw': 'request.withdrawn',
    'request.stale': 'request.stale',
    'rollout.start': 'rollout.started',
    'rollout.change': 'rollout.changed',
    'rollout.complete': 'rollout.completed',
    'rollout.abort': 'rollout.aborted',
    'key.create': 'key.created',
    // A rotation creates a key: the new one is announced (with the key it replaces), as a creation is.
    'key.rotate': 'key.created',
    'key.revoke': 'key.revoked',
    'member.add': 'member.added',
    'member.remove': 'member.removed',
  } satisfies Record<string, EventType>),
);

export interface Announcement {
  readonly type: EventType;
  readonly data: Record<string, unknown>;
}

type Entry = Pick<AuditEntryItem, 'action' | 'target' | 'before' | 'after'>;

/** The event an entry announces, if its action announces one. */
export function announcementOf(entry: Entry): Announcement | undefined {
  const type = EVENT_OF_ACTION.get(entry.action);
  if (type === undefined) return undefined;
  return { type, data: dataOf(type, entry) };
}

/** Only what the table of docs/events.md promises, picked by name: nothing else of an entry (never a key). */
function dataOf(type: EventType, { action, target, before = {}, after = {} }: Entry): Record<string, unknown> {
  const { promptId, label } = target;
  switch (type) {
    case 'prompt.created':
      return { promptId, promptName: after.promptName };
    case 'prompt.updated':
      return { promptId, before: details(before), after: details(after) };
    case 'prompt.deleted':
    case 'prompt.restored':
      return { promptId };
    case 'prompt.version.published':
      return { promptId, version: target.version, note: after.note ?? null };
    case 'prompt.label.moved':
      return { promptId, label, from: after.was ?? null, to: after.version, reason: after.reason ?? null };
    case 'prompt.label.removed':
      return { promptId, label, from: after.was ?? null, reason: after.reason ?? null };
    case 'request.opened':
    case 'request.approved':
    case 'request.applied':
    case 'request.rejected':
    case 'request.withdrawn':
    case 'request.stale':
      return { requestId: target.requestId ?? after.requestId, promptId, label, from: after.from ?? null, to: after.to ?? null, state: after.state };
    case 'rollout.started':
      return { rolloutId: after.rolloutId, promptId, label, from: after.from, to: after.to, percent: after.percent, ...requestOf(after) };
    case 'rollout.changed':
      return { rolloutId: after.rolloutId, promptId, label, from: after.from, to: after.to, percent: after.percent, previousPercent: after.was };
    case 'rollout.completed':
    case 'rollout.aborted':
      return {
        rolloutId: after.rolloutId,
        promptId,
        label,
        from: after.from,
        to: after.to,
        percent: after.percent,
        served: after.served,
        ...(typeof after.reason === 'string' ? { reason: after.reason } : {}),
      };
    case 'key.created':
      return action === 'key.rotate'
        ? { keyId: after.newKeyId, name: after.name ?? null, rotatedFrom: target.keyId }
        : { keyId: after.keyId, name: after.name ?? null };
    case 'key.revoked':
      return { keyId: target.keyId, name: after.name ?? null };
    case 'member.added':
      return { userId: after.userId, email: target.email, role: after.role };
    case 'member.removed':
      return { userId: target.userId, email: before.email, role: before.role };
    case 'webhook.test':
      return {};
  }
}

const details = (side: Record<string, unknown>) => ({ promptName: side.promptName, description: side.description ?? null, tags: side.tags ?? [] });

const requestOf = (after: Record<string, unknown>) => (typeof after.requestId === 'string' ? { requestId: after.requestId } : {});
