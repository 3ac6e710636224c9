import { randomBytes } from 'node:crypto';
import type { AuditEntryItem, AuditOutcome, WithKeys } from '../data/table-items';
import { AUDIT_SORT_KEY_PATTERN, auditSortKey, keys, prefixes } from '../data/table-schema';
import type { AdminTable } from './table';

/**
 * The audit log (README "Data model"): each change writes its entry first (`pending`), then is made,
 * then the entry gets its outcome; a refused attempt is one entry. Nothing here changes an entry
 * that has an outcome, and nothing deletes one.
 */

export type AuditAttempt = Pick<AuditEntryItem, 'accountId' | 'actor' | 'action' | 'target' | 'before'>;

export type AuditEntry = Omit<AuditEntryItem, 'accountId'> & { entryId: string };

/** An entry written ahead of its change: settle it with the change's outcome. */
export interface PendingAudit {
  readonly accountId: string;
  readonly sortKey: string;
}

export const AUDIT_PAGE_SIZE = 50;

function newEntry(table: AdminTable, attempt: AuditAttempt, outcome: AuditOutcome, extra: Partial<AuditEntryItem> = {}) {
  const at = table.timestamp();
  const sortKey = auditSortKey(at, randomBytes(4).toString('hex'));
  const item: WithKeys<AuditEntryItem> = {
    ...keys.auditEntry(attempt.accountId, sortKey),
    type: 'audit',
    accountId: attempt.accountId,
    at,
    actor: attempt.actor,
    action: attempt.action,
    target: attempt.target,
    ...(attempt.before === undefined ? {} : { before: attempt.before }),
    outcome,
    ...extra,
  };
  return { sortKey, item };
}

/** Written before the change; a change whose entry could not be written is not made. */
export async function beginAudit(table: AdminTable, attempt: AuditAttempt): Promise<PendingAudit> {
  const { sortKey, item } = newEntry(table, attempt, 'pending');
  await table.put('beginAudit', { Item: item, ConditionExpression: 'attribute_not_exists(pk)' });
  return { accountId: attempt.accountId, sortKey };
}

/** The change's outcome, once: an entry already settled stays as it is. */
export async function settleAudit(
  table: AdminTable,
  pending: PendingAudit,
  outcome: Exclude<AuditOutcome, 'pending' | 'refused'>,
  details: Pick<AuditEntryItem, 'after' | 'reason'> = {},
): Promise<void> {
  const names: Record<string, string> = { '#outcome': 'outcome', '#settledAt': 'settledAt' };
  const values: Record<string, unknown> = { ':outcome': outcome, ':pending': 'pending', ':at': table.timestamp() };
  const sets = ['#outcome = :outcome', '#settledAt = :at'];
  for (const field of ['after', 'reason'] as const) {
    if (details[field] === undefined) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = details[field];
    sets.push(`#${field} = :${field}`);
  }
  await table.update(
    'settleAudit',
    {
      Key: keys.auditEntry(pending.accountId, pending.sortKey),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: '#outcome = :pending',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
    () => undefined,
  );
}

/** Why a change failed, as the audit log says it: a code and a message, never an error's internals. */
export type FailureReason = (error: unknown) => NonNullable<AuditEntryItem['reason']>;

/**
 * A change and its record: the entry is written first (no entry, no change), the change made, then the
 * entry settled with its outcome; a settle the store refuses leaves it `pending`, never the change undone.
 */
export async function auditedChange<T>(
  table: AdminTable,
  attempt: AuditAttempt,
  change: () => Promise<{ result: T; after?: Record<string, unknown> }>,
  options: { settleTable?: AdminTable; reasonOf: FailureReason },
): Promise<T> {
  const settleTable = options.settleTable ?? table;
  const pending = await beginAudit(table, attempt);
  let outcome: { result: T; after?: Record<string, unknown> };
  try {
    outcome = await change();
  } catch (error) {
    await settleAudit(settleTable, pending, 'failed', { reason: options.reasonOf(error) }).catch(() => undefined);
    throw error;
  }
  await settleAudit(settleTable, pending, 'succeeded', outcome.after ? { after: outcome.after } : {}).catch(() => undefined);
  return outcome.result;
}

/** An attempt refused before any change (a role that does not allow it, a request that is not valid). */
export async function recordRefusal(
  table: AdminTable,
  attempt: AuditAttempt,
  reason: NonNullable<AuditEntryItem['reason']>,
): Promise<void> {
  const { item } = newEntry(table, attempt, 'refused', { reason, settledAt: table.timestamp() });
  await table.put('recordRefusal', { Item: item, ConditionExpression: 'attribute_not_exists(pk)' });
}

/** Newest first, a page at a time; `before` is the cursor the previous page gave. */
export async function listAudit(
  table: AdminTable,
  accountId: string,
  options: { before?: string; limit?: number } = {},
): Promise<{ entries: AuditEntry[]; next?: string }> {
  const limit = options.limit ?? AUDIT_PAGE_SIZE;
  const { items, more } = await table.queryPage<WithKeys<AuditEntryItem>>('listAudit', {
    KeyConditionExpression:
      options.before === undefined ? 'pk = :pk AND begins_with(sk, :prefix)' : 'pk = :pk AND sk BETWEEN :prefix AND :before',
    ExpressionAttributeValues: {
      ':pk': keys.account(accountId).pk,
      ':prefix': prefixes.auditEntries,
      ...(options.before === undefined ? {} : { ':before': beforeKey(options.before) }),
    },
    ScanIndexForward: false,
    ConsistentRead: true,
    // One more than a page says whether there is a next one.
    Limit: limit + 1,
  });
  const page = items.slice(0, limit);
  const last = page.at(-1);
  return {
    entries: page.map(({ pk: _pk, sk, type: _type, accountId: _accountId, gsi1pk: _g1, gsi1sk: _g2, ...entry }) => ({
      entryId: encodeCursor(sk),
      ...entry,
    })),
    ...((items.length > limit || more) && last ? { next: encodeCursor(last.sk) } : {}),
  };
}

const encodeCursor = (sortKey: string): string => Buffer.from(sortKey, 'utf8').toString('base64url');

/**
 * A cursor names an entry; the page before it starts just below it. Anything but the key of an entry
 * (`AUDIT#` alone, a key cut short) is no cursor: the range below it could end before it begins.
 */
export function decodeCursor(cursor: string): string | undefined {
  const sortKey = Buffer.from(cursor, 'base64url').toString('utf8');
  return AUDIT_SORT_KEY_PATTERN.test(sortKey) && encodeCursor(sortKey) === cursor ? sortKey : undefined;
}

/** BETWEEN is inclusive: the largest key below the cursor's entry. */
function beforeKey(cursor: string): string {
  const sortKey = decodeCursor(cursor);
  if (sortKey === undefined) throw new RangeError('not an audit cursor');
  return `${sortKey.slice(0, -1)}${String.fromCharCode(sortKey.charCodeAt(sortKey.length - 1) - 1)}\uffff`;
}
