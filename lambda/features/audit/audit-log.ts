import { type AuditEntry, type AuditFilter, decodeCursor, listAudit } from '../../table/audit-log';
import type { Table } from '../../table/table';
import { InvalidCursorError } from '../errors';

/**
 * The audit log as people read it (docs/management-api.md, "The management API": Audit log). Its entries are
 * written by the operations alone, each in its change's own transaction (lambda/operations/commit.ts), and never
 * changed or deleted: this is the log's one way out, read through lambda/table/audit-log.ts.
 */

export type { AuditEntry, AuditFilter };

/**
 * A page of the account's log, newest first, narrowed by `filter`; `before` is the cursor (`next`) an earlier page
 * gave, and anything else is refused before the store is asked. `next` is null on the last page.
 */
export async function readAuditLog(
  table: Table,
  accountId: string,
  options: { readonly before?: string; readonly filter: AuditFilter },
): Promise<{ entries: AuditEntry[]; next: string | null }> {
  const { before, filter } = options;
  if (before !== undefined && decodeCursor(before) === undefined) {
    throw new InvalidCursorError('must be a cursor from a previous page of the audit log', 'before');
  }
  const page = await listAudit(table, accountId, { ...(before === undefined ? {} : { before }), filter });
  return { entries: page.entries, next: page.next ?? null };
}
