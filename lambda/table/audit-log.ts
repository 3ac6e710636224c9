import { randomBytes } from 'node:crypto';
import type { AuditEntryItem, AuditOutcome, WithKeys } from './item-types';
import { AUDIT_SORT_KEY_PATTERN, auditSortKey, keys, prefixes } from './schema';
import type { AdminTable } from './admin-table';

/**
 * The audit log (README "Data model"): each change writes its entry first (`pending`), then is made,
 * then the entry gets its outcome; a refused attempt is one entry. Nothing here changes an entry
 * that has an outcome, and nothing deletes one.
 */

export type AuditAttempt = Pick<AuditEntryItem, 'accountId' | 'actor' | 'action' | 'target' | 'before'> & {
  /** The change asked for, as JSON (a request's body); the entry keeps a bounded copy of it. */
  readonly requested?: unknown;
};

export type AuditEntry = Omit<AuditEntryItem, 'accountId' | 'requested'> & { entryId: string; requested?: unknown };

/** An entry written ahead of its change: settle it with the change's outcome. */
export interface PendingAudit {
  readonly accountId: string;
  readonly sortKey: string;
}

export const AUDIT_PAGE_SIZE = 50;

/** How much of what a request names and asks for an entry keeps: enough to say what it was, never enough to make an entry big or deep. */
const KEPT = { characters: 200, entries: 20, depth: 4, values: 100 } as const;

const cut = (text: string): string =>
  text.length <= KEPT.characters ? text : `${text.slice(0, KEPT.characters)}… (${text.length} characters)`;

/**
 * A copy of JSON small enough for any entry: strings cut at 200 characters, at most 20 entries an array
 * or object, 4 levels and 100 values in all, `…` for the rest. Walks at most 4 levels, however deep the value.
 */
export function keptOfRequest(value: unknown): unknown {
  let budget = KEPT.values;
  const keep = (current: unknown, depth: number): unknown => {
    budget -= 1;
    if (budget < 0) return '…';
    if (typeof current === 'string') return cut(current);
    if (current === null || typeof current !== 'object') return current;
    if (depth >= KEPT.depth) return '…';
    const entries = Array.isArray(current) ? [...current.entries()] : Object.entries(current);
    const kept = entries.slice(0, KEPT.entries).map(([name, inner]) => [cut(String(name)), keep(inner, depth + 1)] as const);
    const more = entries.length - KEPT.entries;
    if (Array.isArray(current)) return [...kept.map(([, inner]) => inner), ...(more > 0 ? [`… ${more} more`] : [])];
    // Names from a request are data: a table that inherits nothing keeps `__proto__` as one more name.
    const table: Record<string, unknown> = Object.create(null);
    for (const [name, inner] of kept) table[name] = inner;
    if (more > 0) table['…'] = `${more} more`;
    return table;
  };
  return keep(value, 0);
}

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
    target: Object.fromEntries(Object.entries(attempt.target).map(([name, value]) => [name, cut(value)])),
    ...(attempt.requested === undefined ? {} : { requested: JSON.stringify(keptOfRequest(attempt.requested)) }),
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
    entries: page.map(({ pk: _pk, sk, type: _type, accountId: _accountId, gsi1pk: _g1, gsi1sk: _g2, requested, ...entry }) => ({
      entryId: encodeCursor(sk),
      ...entry,
      ...(typeof requested === 'string' ? { requested: JSON.parse(requested) as unknown } : {}),
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
