import { randomBytes } from 'node:crypto';
import { belowKey, newestFirstPage } from './newest-first';
import type { Table } from './table';
import type { LabelHistoryItem, LabelHistoryRollout, WithKeys } from './item-types';
import { keys, LABEL_HISTORY_SORT_KEY_PATTERN, labelHistorySortKey, prefixes } from './schema';
import type { TransactionWrite } from './transaction';

/**
 * A label's history (docs/data-model.md): every move or removal of a label is one item in the account's
 * partition, written in the transaction of the move itself (planSetLabel, planRemoveLabel, planPromptRelease,
 * a change request applied), so a move and its entry land together or not at all. Nothing changes or
 * deletes an entry.
 */

/** Who moved a label and how: what its history entry says beside the versions. */
export interface MoveCause {
  /** A person's email, or `cli:<operator>` (domain/actor.ts actorName). */
  readonly by: string;
  /**
   * The mover's note, or the way it moved: `push`, `restore`, `request <id>`, `import`, `break-glass` (the operator
   * moved a label under approval without a request); null for a move without a note (features/labels/move-reasons.ts).
   */
  readonly reason: string | null;
}

export interface LabelHistoryEntry {
  readonly at: string;
  readonly by: string;
  readonly from: string | null;
  readonly to: string | null;
  readonly reason: string | null;
  /** On a rollout's entries only. */
  readonly rollout?: LabelHistoryRollout;
}

export const LABEL_HISTORY_PAGE_SIZE = 50;

/** The entry of one move, as one write of the move's transaction; its key is new (its time and a random tail). */
export function labelHistoryWrite(
  table: Table,
  accountId: string,
  move: {
    readonly promptId: string;
    readonly label: string;
    readonly from: string | null;
    readonly to: string | null;
    /** A rollout's event: the label moves only when one completes, and each event has its entry. */
    readonly rollout?: LabelHistoryRollout;
  },
  cause: MoveCause,
): TransactionWrite {
  const at = table.timestamp();
  const item: WithKeys<LabelHistoryItem> = {
    ...keys.labelHistory(accountId, labelHistorySortKey(move.promptId, move.label, at, randomBytes(4).toString('hex'))),
    type: 'labelHistory',
    accountId,
    promptId: move.promptId,
    label: move.label,
    at,
    by: cause.by,
    from: move.from,
    to: move.to,
    reason: cause.reason,
    ...(move.rollout ? { rollout: move.rollout } : {}),
  };
  return { Put: { Item: item, ConditionExpression: 'attribute_not_exists(pk)' } };
}

/**
 * One label's history, newest first, a page at a time (one Query, strongly consistent); `before` is the cursor
 * the previous page gave (`next`), which check with isHistoryCursor first.
 */
export async function listLabelHistory(
  table: Table,
  accountId: string,
  promptId: string,
  label: string,
  options: { before?: string; limit?: number } = {},
): Promise<{ entries: LabelHistoryEntry[]; next?: string }> {
  const limit = options.limit ?? LABEL_HISTORY_PAGE_SIZE;
  const prefix = prefixes.labelHistoryOf(promptId, label);
  const before = options.before === undefined ? undefined : cursorKey(options.before, promptId, label);
  if (options.before !== undefined && before === undefined) throw new RangeError('not a cursor of this label history');
  const { items, nextKey } = await newestFirstPage<WithKeys<LabelHistoryItem>>(table, 'listLabelHistory', {
    accountId,
    lower: prefix,
    upper: before === undefined ? `${prefix}~` : belowKey(before),
    limit,
  });
  return {
    entries: items.map(({ at, by, from, to, reason, rollout }) => ({
      at,
      by,
      from: from ?? null,
      to: to ?? null,
      reason: reason ?? null,
      ...(rollout ? { rollout: historyRollout(rollout) } : {}),
    })),
    ...(nextKey ? { next: encodeCursor(nextKey) } : {}),
  };
}

/** A rollout's event as the history answers it: its own fields only, counts as numbers. */
function historyRollout({ rolloutId, event, percent, to, served }: LabelHistoryRollout): LabelHistoryRollout {
  return { rolloutId, event, percent: Number(percent), to, ...(served ? { served: { from: Number(served.from), to: Number(served.to) } } : {}) };
}

const encodeCursor = (sortKey: string): string => Buffer.from(sortKey, 'utf8').toString('base64url');

/** The sort key a cursor names, when it is the key of an entry of this label's history; otherwise undefined. */
function cursorKey(cursor: string, promptId: string, label: string): string | undefined {
  const sortKey = Buffer.from(cursor, 'base64url').toString('utf8');
  const valid =
    LABEL_HISTORY_SORT_KEY_PATTERN.test(sortKey) && encodeCursor(sortKey) === cursor && sortKey.startsWith(prefixes.labelHistoryOf(promptId, label));
  return valid ? sortKey : undefined;
}

/** Whether `cursor` is one a page of this label's history gave. */
export const isHistoryCursor = (cursor: string, promptId: string, label: string): boolean => cursorKey(cursor, promptId, label) !== undefined;
