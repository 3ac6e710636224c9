import { ConflictError } from '../../table/errors';
import type { OpenRequestItem } from '../../table/item-types';
import { keys } from '../../table/schema';
import type { Table } from '../../table/table';

/**
 * The open request of a label (change-requests.ts): what a second request, a push and a rollout's start check
 * before they go on, without the rest of change requests (which starts rollouts when it applies one).
 */

/** A label with an open request takes no second one (nor a rollout): decide or withdraw the first. */
export class OpenRequestExistsError extends ConflictError {
  override readonly name: string = 'OpenRequestExistsError';
  constructor(readonly open: OpenRequestItem) {
    super(
      `label ${open.label} of prompt ${open.promptId} has an open change request, ${open.requestId} (to ${open.to ?? 'no version: removed'}): approve, reject or withdraw it first`,
    );
  }
}

/** The label's open request, when there is one. */
export function findOpenRequest(table: Table, accountId: string, promptId: string, label: string): Promise<OpenRequestItem | undefined> {
  return table.get<OpenRequestItem>('openRequest', keys.openRequest(accountId, promptId, label));
}

/** Refuses a second open request of a label, naming the first. */
export async function requireNoOpenRequest(table: Table, accountId: string, promptId: string, label: string): Promise<void> {
  const open = await findOpenRequest(table, accountId, promptId, label);
  if (open) throw new OpenRequestExistsError(open);
}
