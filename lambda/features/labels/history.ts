import { isHistoryCursor, type LabelHistoryEntry, listLabelHistory } from '../../table/label-history';
import type { Table } from '../../table/table';
import { InvalidCursorError } from '../errors';
import { requireHead } from '../prompts/authoring';

/**
 * A label's history as people read it (docs/management-api.md): each entry is written by the move itself, in the
 * move's transaction, through the one label-move builder (label-move.ts); this is how the entries are read back,
 * through lambda/table/label-history.ts.
 */

export type { LabelHistoryEntry };

/**
 * A page of one label's history, newest first; `before` is the cursor (`next`) an earlier page of this same label's
 * history gave, and anything else is refused before the store is asked. A prompt the account does not have: 404,
 * whether or not the label ever had an entry.
 */
export async function readLabelHistory(
  table: Table,
  accountId: string,
  promptId: string,
  label: string,
  options: { readonly before?: string; readonly limit?: number } = {},
): Promise<{ entries: LabelHistoryEntry[]; next?: string }> {
  const { before, limit } = options;
  if (before !== undefined && !isHistoryCursor(before, promptId, label)) {
    throw new InvalidCursorError('must be a cursor from a previous page of this label history', 'before');
  }
  await requireHead(table, accountId, promptId);
  return listLabelHistory(table, accountId, promptId, label, { ...(before === undefined ? {} : { before }), ...(limit === undefined ? {} : { limit }) });
}
