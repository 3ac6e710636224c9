import { ConflictError } from '../../table/errors';
import type { OpenChangeRequestItem } from '../../table/item-types';
import { keys, prefixes } from '../../table/schema';
import type { Table } from '../../table/table';

/**
 * The open request of a label, by its pointer (`OPENREQ#<promptId>#<label>`): what a second request, a push and a
 * rollout's start check before they go on, without the rest of change requests (which starts rollouts when it
 * applies one); and every open one of the account, one Query away.
 */

/** A label with an open request takes no second one (nor a rollout): decide or withdraw the first. */
export class OpenChangeRequestExistsError extends ConflictError {
  override readonly name: string = 'OpenChangeRequestExistsError';
  constructor(readonly open: OpenChangeRequestItem) {
    super(
      `label ${open.label} of prompt ${open.promptId} has an open change request, ${open.requestId} (to ${open.to ?? 'no version: removed'}): approve, reject or withdraw it first`,
    );
  }
}

/** The label's open request, when there is one. */
export function findOpenChangeRequest(table: Table, accountId: string, promptId: string, label: string): Promise<OpenChangeRequestItem | undefined> {
  return table.get<OpenChangeRequestItem>('openChangeRequest', keys.openChangeRequest(accountId, promptId, label));
}

/** Refuses a second open request of a label, naming the first. */
export async function requireNoOpenChangeRequest(table: Table, accountId: string, promptId: string, label: string): Promise<void> {
  const open = await findOpenChangeRequest(table, accountId, promptId, label);
  if (open) throw new OpenChangeRequestExistsError(open);
}

/** Every open request's pointer of the account (one Query): by prompt and label, where each would move it. */
export function listOpenChangeRequestPointers(table: Table, accountId: string): Promise<OpenChangeRequestItem[]> {
  return table.queryPartition<OpenChangeRequestItem>('listOpenChangeRequests', accountId, prefixes.openChangeRequests, { ConsistentRead: true });
}
