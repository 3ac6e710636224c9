import { deadlineAfter, REFUND_BUDGET_MS } from '../../http/store-deadline';
import { Operations } from '../../operations';
import type { Table } from '../../table/table';
import type { UserDirectory } from '../../users/user-directory';
import type { ManagementMiddleware } from '../management-context';
import type { WebhookTools } from '../../webhook-delivery/sealer-from-config';

/**
 * The request's way to the store: the table bound to its store deadline, and the shared operations acting
 * as the caller, recording refusals and copying a committed change to the keys within the refund budget
 * (http/store-deadline.ts).
 */
export const operations = (table: Table, directory: UserDirectory, webhooks?: WebhookTools): ManagementMiddleware => ({
  before: ({ context }) => {
    const { caller, storeDeadline: deadline } = context;
    if (!deadline) throw new Error('storeDeadline must run before the store is used');
    if (!caller) throw new Error('the caller must be known before the store is used');
    const bound = table.withDeadline(deadline);
    context.table = bound;
    context.ops = new Operations({
      table: bound,
      auditTable: table.withDeadline(deadlineAfter(context.arrivedAt ?? Date.now(), REFUND_BUDGET_MS)),
      actor: { type: 'user', userId: caller.userId, email: caller.email },
      directory,
      ...(webhooks ? { webhooks } : {}),
      // The change stands; its keys keep the old revision until the account's next change: the request's line says so.
      onCopyFailed: (_accountId, error) => {
        context.keysCopyFailure = error instanceof Error ? error.name : 'unknown';
      },
    });
  },
});
