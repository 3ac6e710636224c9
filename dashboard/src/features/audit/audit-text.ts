import type { AuditEntry } from '../../api/types';

/** An audit entry in a sentence: who did what to which thing, and how it ended. */

/** An entry as the audit log's route answers it (its contract). */
export type { AuditEntry };

/** Each action in words; a Map, since an entry's action is data. */
export const ACTIONS: ReadonlyMap<string, string> = new Map(
  Object.entries({
    'account.update': 'changed the account settings',
    'prompt.create': 'created prompt',
    'prompt.update': 'changed the details of',
    'prompt.delete': 'deleted prompt',
    'prompt.restore': 'restored prompt',
    'draft.create': 'created draft',
    'draft.save': 'saved draft',
    'draft.delete': 'deleted draft',
    'version.publish': 'published',
    'label.set': 'moved label',
    'label.remove': 'removed label',
    'request.open': 'asked for approval to move',
    'request.approve': 'approved the change request for',
    'request.reject': 'rejected the change request for',
    'request.withdraw': 'withdrew the change request for',
    'request.apply': 'applied the change request for',
    'request.stale': 'found stale the change request for',
    'rollout.start': 'started rolling out',
    'rollout.change': 'changed the share of the rollout of',
    'rollout.complete': 'completed the rollout of',
    'rollout.abort': 'aborted the rollout of',
    'key.create': 'created key',
    'key.update': 'changed key',
    'key.rotate': 'rotated key',
    'key.revoke': 'revoked key',
    'member.add': 'added member',
    'member.set-role': 'changed the role of',
    'member.remove': 'removed member',
  }),
);

/** The deployed automation of rollouts, by what it does (docs/rollouts.md "Steps and a guard alarm (deployed)"). */
const SYSTEM_ACTORS: ReadonlyMap<string, string> = new Map([
  ['rollout-steps', 'the rollout schedule'],
  ['guard-alarm', 'the guard alarm'],
]);

export function actorName(entry: Pick<AuditEntry, 'actor'>): string {
  const { actor } = entry;
  switch (actor.type) {
    case 'user':
      return actor.email;
    case 'cli':
      return `operator ${actor.operator} (CLI)`;
    case 'system':
      return SYSTEM_ACTORS.get(actor.name) ?? `automation ${actor.name}`;
  }
}

/** What was acted on, e.g. `welcome-email 1.0.1`, `production of welcome-email`; people by email where known. */
export function targetText(entry: Pick<AuditEntry, 'target' | 'after' | 'before'>, emails: ReadonlyMap<string, string> = new Map()): string {
  const { promptId, version, label, keyId, userId, email } = entry.target;
  // A label move says `version` and `was`; a change request's steps say `from` and `to`.
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const afterVersion = text(entry.after?.version) ?? text(entry.after?.to);
  const wasVersion = text(entry.after?.was) ?? text(entry.after?.from);
  if (label && promptId) return `${label} of ${promptId}${wasVersion ? ` from ${wasVersion}` : ''}${afterVersion ? ` to ${afterVersion}` : ''}`;
  if (promptId && version) return `${promptId} ${version}`;
  if (promptId) return promptId;
  if (keyId) return keyId;
  const targetEmail =
    email ??
    (typeof entry.after?.email === 'string' ? entry.after.email : undefined) ??
    (typeof entry.before?.email === 'string' ? entry.before.email : undefined) ??
    (userId ? emails.get(userId) : undefined);
  if (targetEmail) return targetEmail;
  if (userId) return userId;
  return '';
}

/** The entry as a sentence: `ana@example.com moved production of welcome-email from 1.2.0 to 1.3.0`. */
export function auditSentence(entry: AuditEntry, emails?: ReadonlyMap<string, string>): string {
  const did = entry.action === 'label.set' ? 'moved' : (ACTIONS.get(entry.action) ?? entry.action);
  const what = targetText(entry, emails);
  return `${actorName(entry)} ${did}${what ? ` ${what}` : ''}`;
}

export const OUTCOME_WORDS: Readonly<Record<AuditEntry['outcome'], string>> = {
  succeeded: 'done',
  failed: 'failed',
  refused: 'refused',
  // Only entries written before every change was one transaction: none is written so now.
  pending: 'unsettled (older entry)',
};

/** The outcomes the log can be narrowed to (the API takes no `pending`: no entry is written so now). */
export const FILTER_OUTCOMES = ['succeeded', 'failed', 'refused'] as const;

/** The outcome in words, with the reason when it did not happen. */
export function outcomeText(entry: AuditEntry): string {
  const words = Object.hasOwn(OUTCOME_WORDS, entry.outcome) ? OUTCOME_WORDS[entry.outcome] : entry.outcome;
  return entry.reason && entry.outcome !== 'succeeded' ? `${words}: ${entry.reason.message}` : words;
}

/** A change's before and after, compact: `was {"version":"1.0.0"}; now {"version":"1.0.1"}`; never a key's secret, which the log never holds. */
export function changeText(entry: Pick<AuditEntry, 'before' | 'after'>): string {
  // A content hash says nothing to a person; what changed around it does.
  const show = (value: Readonly<Record<string, unknown>> | undefined) => {
    const shown = Object.entries(value ?? {}).filter(([name]) => name !== 'etag');
    return shown.length === 0 ? '' : JSON.stringify(Object.fromEntries(shown));
  };
  const before = show(entry.before);
  const after = show(entry.after);
  if (!before && !after) return '';
  if (!before) return after;
  if (!after) return `was ${before}; now none`;
  return `was ${before}; now ${after}`;
}
