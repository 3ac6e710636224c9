import { actorIdentity } from '../../domain/actor';
import type { ChangeRequestItem } from '../../table/item-types';
import { keys } from '../../table/schema';
import type { Table } from '../../table/table';
import type { TransactionWrite } from '../../table/transaction';
import { buildUpdate } from '../../table/update-expression';
import type { PlannedChange } from '../planned-change';
import { type ChangeRequest, standingAt, standingsOf, toChangeRequest } from './answers';
import { ChangeRequestNotOpenError, requireChangeRequest } from './change-requests';

/**
 * Deciding a change request: who decides, what a decision did, the writes every decision makes (the request's
 * item under the revision read, its label's open pointer gone), and closing it without moving anything (a
 * rejection, a withdrawal). The approval that may apply it is approving.ts.
 */

/** Who decides: an identity (one approval each), the name the request shows, and what they said. */
export interface Decider {
  /** A user id, or `cli:<operator>`. */
  readonly who: string;
  /** An email, or `cli:<operator>`. */
  readonly by: string;
  readonly comment?: string | undefined;
}

/** Four eyes: the requester never approves or rejects their own request, and nobody else withdraws it (403). */
export class NotTheDeciderError extends Error {
  override readonly name = 'NotTheDeciderError';
}

/**
 * The open request `decider` may take to `decision`: an approval or a rejection by anyone but the requester, a
 * withdrawal by the requester alone, whichever door it came through (who may move the label is the door's to say).
 */
export async function requireDecidableChangeRequest(
  table: Table,
  accountId: string,
  requestId: string,
  decider: Decider,
  decision: 'approved' | 'rejected' | 'withdrawn',
): Promise<ChangeRequestItem> {
  const item = await requireChangeRequest(table, accountId, requestId);
  const own = actorIdentity(item.requester) === decider.who;
  if (decision === 'withdrawn' && !own) throw new NotTheDeciderError('only the member who asked for a change request may withdraw it');
  if (decision !== 'withdrawn' && own) {
    throw new NotTheDeciderError('you asked for this change: another member must approve or reject it (you may withdraw it)');
  }
  if (item.state !== 'open') throw new ChangeRequestNotOpenError(item);
  return item;
}

/** What deciding a request did: the request as it now stands, and whether the approval found it stale. */
export interface ChangeRequestDecision {
  readonly changeRequest: ChangeRequest;
  readonly stale: boolean;
}

/** The request's item changed, if nothing changed it since it was read (and it is still open). */
export function changeRequestUpdate(accountId: string, item: ChangeRequestItem, set: Partial<ChangeRequestItem>): TransactionWrite {
  return {
    Update: {
      Key: keys.changeRequest(accountId, item.requestId),
      ...buildUpdate({
        set: { ...set, revision: item.revision + 1 },
        condition: (e) => `${e.name('state')} = ${e.value('open')} AND ${e.name('revision')} = ${e.value(item.revision)}`,
      }),
    },
  };
}

/** The label's open pointer goes with the request's state: the request is open, so the pointer is its own. */
export const pointerDelete = (accountId: string, item: ChangeRequestItem): TransactionWrite => ({
  Delete: { Key: keys.openChangeRequest(accountId, item.promptId, item.label) },
});

/**
 * A rejection (by a member who may move the label, not the requester) or a withdrawal (by the requester): the request closed, nothing
 * moved, its approvals' standings kept as they were read at that moment.
 */
export async function planCloseChangeRequest(
  table: Table,
  accountId: string,
  requestId: string,
  state: 'rejected' | 'withdrawn',
  decider: Decider,
): Promise<PlannedChange<ChangeRequestDecision>> {
  const item = await requireDecidableChangeRequest(table, accountId, requestId, decider, state);
  const standings = (await standingsOf(table, accountId, [item])).get(item) ?? [];
  const approvals = item.approvals.map((approval, index) => ({ ...approval, standing: standingAt(standings, index) }));
  const decision = { by: decider.by, at: table.timestamp(), comment: decider.comment ?? null };
  return {
    writes: [changeRequestUpdate(accountId, item, { approvals, state, decision }), pointerDelete(accountId, item)],
    result: { changeRequest: toChangeRequest({ ...item, approvals, state, decision }, standings), stale: false },
    after: { state, from: item.from, to: item.to },
  };
}
