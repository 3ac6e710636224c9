import { randomBytes } from 'node:crypto';
import type { AuditEntryItem, AuditOutcome, WithKeys } from './item-types';
import { AUDIT_SORT_KEY_PATTERN, auditSortKey, keys, prefixes } from './schema';
import { belowKey, newestFirstPage } from './newest-first';
import type { Table } from './table';
import type { TransactionWrite } from './transaction';
import { ExpressionNames } from './update-expression';

/**
 * The audit log (docs/data-model.md): a change's entry is written in the change's own transaction, so it
 * exists exactly when the change happened; a refused attempt is one entry of its own. Nothing here changes
 * an entry, and nothing deletes one.
 */

export type AuditAttempt = Pick<AuditEntryItem, 'accountId' | 'actor' | 'action' | 'target' | 'before'> & {
  /** The change asked for, as JSON (a request's body); the entry keeps a bounded copy of it. */
  readonly requested?: unknown;
};

export type AuditEntry = Omit<AuditEntryItem, 'accountId' | 'requested'> & { entryId: string; requested?: unknown };

export const AUDIT_PAGE_SIZE = 50;

/** How much of what a request names and asks for an entry keeps: enough to say what it was, never enough to make an entry big or deep. */
const KEPT = { characters: 200, entries: 20, depth: 4, values: 100 } as const;

const cut = (text: string): string => (text.length <= KEPT.characters ? text : `${text.slice(0, KEPT.characters)}… (${text.length} characters)`);

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

function newEntry(table: Table, attempt: AuditAttempt, outcome: AuditOutcome, extra: Partial<AuditEntryItem> = {}, tail = randomBytes(4).toString('hex')) {
  const at = table.timestamp();
  const sortKey = auditSortKey(at, tail);
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

/**
 * The entry of a change, as one write of the change's own transaction (operations/commit.ts): it exists exactly when
 * the change happened. Its key is new, so it is also the proof that the transaction committed.
 */
export function auditEntryWrite(
  table: Table,
  attempt: AuditAttempt,
  outcome: Extract<AuditOutcome, 'succeeded'>,
  after?: Record<string, unknown>,
  /** Its place among the entries of its transaction (ordered-tails.ts); random when it is the only one. */
  tail?: string,
): { write: TransactionWrite; key: Record<string, string>; entry: AuditEntryItem } {
  const { sortKey, item } = newEntry(table, attempt, outcome, after ? { after } : {}, tail);
  return {
    write: { Put: { Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
    key: keys.auditEntry(attempt.accountId, sortKey),
    entry: item,
  };
}

/** Why a change failed, as the audit log says it: a code and a message, never an error's internals. */
export type FailureReason = (error: unknown) => NonNullable<AuditEntryItem['reason']>;

/**
 * An attempt refused (a role that does not allow it, a request that is not valid, a condition the store
 * holds), or one that failed where the transaction could not reach: one entry, and no change.
 */
export async function recordRefusal(
  table: Table,
  attempt: AuditAttempt,
  reason: NonNullable<AuditEntryItem['reason']>,
  outcome: Extract<AuditOutcome, 'refused' | 'failed'> = 'refused',
): Promise<void> {
  const { item } = newEntry(table, attempt, outcome, { reason, settledAt: table.timestamp() });
  await table.put('recordRefusal', { Item: item, ConditionExpression: 'attribute_not_exists(pk)' });
}

/** What narrows the log (docs/management-api.md, "The management API": Audit log); `from` and `to` are ISO instants, both included. */
export interface AuditFilter {
  /** A person's email, a CLI operator's identity, or the name of the automation (`rollout-steps`, `guard-alarm`). */
  readonly actor?: string;
  readonly promptId?: string;
  readonly action?: string;
  readonly outcome?: AuditOutcome;
  readonly from?: string;
  readonly to?: string;
}

/**
 * Newest first, a page at a time; `before` is the cursor the previous page gave. A filter's time range narrows
 * the key range itself; the other filters are applied by the store as it reads, so a page looks through at most
 * 2,000 entries: when that finds fewer than a page of matches, the page says where to go on (`next`).
 */
export async function listAudit(
  table: Table,
  accountId: string,
  options: { before?: string; limit?: number; filter?: AuditFilter } = {},
): Promise<{ entries: AuditEntry[]; next?: string }> {
  const limit = options.limit ?? AUDIT_PAGE_SIZE;
  const filter = options.filter ?? {};
  const lower = filter.from === undefined ? prefixes.auditEntries : `${prefixes.auditEntries}${filter.from}#`;
  const uppers = [
    ...(options.before === undefined ? [] : [beforeKey(options.before)]),
    // After any tail of that instant: a tail is hex digits, and `~` sorts after them.
    ...(filter.to === undefined ? [] : [`${prefixes.auditEntries}${filter.to}#~`]),
  ];
  const upper = uppers.sort()[0] ?? `${prefixes.auditEntries}~`;
  if (upper < lower) return { entries: [] };
  const filtered = filterOf(filter);
  const { items: entries, nextKey } = await newestFirstPage<WithKeys<AuditEntryItem>>(table, 'listAudit', {
    accountId,
    lower,
    upper,
    limit,
    ...(filtered ? { filter: filtered } : {}),
  });
  return {
    entries: entries.map(({ pk: _pk, sk, type: _type, accountId: _accountId, gsi1pk: _g1, gsi1sk: _g2, requested, ...entry }) => ({
      entryId: encodeCursor(sk),
      ...entry,
      ...(typeof requested === 'string' ? { requested: JSON.parse(requested) as unknown } : {}),
    })),
    ...(nextKey ? { next: encodeCursor(nextKey) } : {}),
  };
}

/**
 * What the store leaves out as it reads (all but the time range, which narrows the key range itself); none
 * when nothing is filtered on. Its placeholders are the builder's own (`#n0`, `:v0`), apart from the key's.
 */
function filterOf(
  filter: AuditFilter,
): { FilterExpression: string; ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> } | undefined {
  const e = new ExpressionNames();
  const parts: string[] = [];
  if (filter.actor !== undefined) {
    const actor = e.value(filter.actor);
    parts.push(`(${e.name('actor.email')} = ${actor} OR ${e.name('actor.operator')} = ${actor} OR ${e.name('actor.name')} = ${actor})`);
  }
  if (filter.promptId !== undefined) parts.push(`${e.name('target.promptId')} = ${e.value(filter.promptId)}`);
  if (filter.action !== undefined) parts.push(`${e.name('action')} = ${e.value(filter.action)}`);
  if (filter.outcome !== undefined) parts.push(`${e.name('outcome')} = ${e.value(filter.outcome)}`);
  return parts.length === 0 ? undefined : { FilterExpression: parts.join(' AND '), ...e.attributes };
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
  return belowKey(sortKey);
}
