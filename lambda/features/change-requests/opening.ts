import { randomBytes } from 'node:crypto';
import type { Actor } from '../../domain/actor';
import { labelledVersion } from '../../domain/label';
import { ConflictError, NotFoundError } from '../../table/errors';
import type {
  ChangeRequestItem,
  ChangeRequestRollout,
  OpenChangeRequestItem,
  PromptHeadItem,
  PromptLabelItem,
  PromptVersionItem,
  WithKeys,
} from '../../table/item-types';
import { keys } from '../../table/schema';
import type { Table } from '../../table/table';
import type { TransactionWrite } from '../../table/transaction';
import { PromptDeletedError, PromptMissingError, RolloutActiveError, VersionNotPublishedError } from '../errors';
import type { PlannedChange } from '../planned-change';
import { checkRolloutStart } from '../rollouts/start';
import { type ChangeRequest, toChangeRequest } from './answers';
import { requireNoOpenChangeRequest } from './open-change-requests';

/**
 * Opening a change request (docs/management-api.md "Change requests"): the request and its label's open pointer,
 * written new in one transaction, after the checks the move (or the rollout's start) itself would make.
 */

/** A move as someone asks for it: made at once, or, on a label under approval, what the change request opened for it asks. */
export interface AskedMove {
  readonly promptId: string;
  readonly label: string;
  /** `null`: take the label off. */
  readonly to: string | null;
  readonly note?: string | undefined;
  readonly restore?: boolean | undefined;
  /** Start a rollout to `to` when applied, rather than move the label (docs/rollouts.md). */
  readonly rollout?: ChangeRequestRollout | undefined;
}

export function newChangeRequestId(at: string): string {
  return `req_${at.replace(/\D/g, '')}_${randomBytes(4).toString('hex')}`;
}

/** The writes that open a request for `move` (the label now at `from`): the request and its label's open pointer, both new. */
export function openChangeRequestWrites(
  table: Table,
  accountId: string,
  move: AskedMove & { readonly from: string | null },
  requester: { readonly actor: Actor; readonly by: string },
  required: number,
): { writes: TransactionWrite[]; item: ChangeRequestItem } {
  const requestedAt = table.timestamp();
  const requestId = newChangeRequestId(requestedAt);
  const item: ChangeRequestItem = {
    accountId,
    requestId,
    promptId: move.promptId,
    label: move.label,
    from: move.from,
    to: move.to,
    note: move.note ?? null,
    restore: move.restore === true,
    requestedBy: requester.by,
    requester: requester.actor,
    requestedAt,
    required,
    approvals: [],
    state: 'open',
    revision: 1,
    ...(move.rollout ? { rollout: move.rollout } : {}),
  };
  const pointer: WithKeys<OpenChangeRequestItem> = {
    ...keys.openChangeRequest(accountId, move.promptId, move.label),
    type: 'openRequest',
    accountId,
    promptId: move.promptId,
    label: move.label,
    requestId,
    to: move.to,
  };
  return {
    item,
    writes: [
      { Put: { Item: { ...keys.changeRequest(accountId, requestId), type: 'changeRequest', ...item }, ConditionExpression: 'attribute_not_exists(pk)' } },
      { Put: { Item: pointer, ConditionExpression: 'attribute_not_exists(pk)' } },
    ],
  };
}

/**
 * A request to move (or remove) a label, checked as the move itself would be: the prompt is there (and not
 * deleted, for a move), the version published, the label elsewhere (there, for a removal), not rolling out; and
 * no other request of the label open. A request to start a rollout is checked as the start would be. `from` is
 * where the label points as it is read: if it moves before the request is approved, the approval finds the
 * request stale.
 */
export async function planOpenChangeRequest(
  table: Table,
  accountId: string,
  move: AskedMove,
  requester: { readonly actor: Actor; readonly by: string },
  required: number,
): Promise<PlannedChange<ChangeRequest>> {
  const from = move.rollout ? await rolloutAskedFrom(table, accountId, move, move.rollout) : await moveAskedFrom(table, accountId, move);
  const { writes, item } = openChangeRequestWrites(table, accountId, { ...move, from }, requester, required);
  return {
    writes,
    result: toChangeRequest(item, []),
    after: { requestId: item.requestId, from, to: move.to, state: 'open', required, ...(move.rollout ? { rollout: move.rollout } : {}) },
    // The pointer was written meanwhile (another request of the label): read again, which names it.
    refused: () => 'again',
  };
}

/** Where the label points, for a request to move (or remove) it: checked as the move itself would be. */
async function moveAskedFrom(table: Table, accountId: string, move: AskedMove): Promise<string | null> {
  const { promptId, label, to } = move;
  const [head, stored, item] = await Promise.all([
    table.get<PromptHeadItem>('openChangeRequest', keys.promptHead(accountId, promptId)),
    to === null ? undefined : table.get<PromptVersionItem>('openChangeRequest', keys.promptVersion(accountId, promptId, to)),
    table.get<PromptLabelItem>('openChangeRequest', keys.promptLabel(accountId, label, promptId)),
  ]);
  if (!head) throw new PromptMissingError(accountId, promptId);
  const from = labelledVersion(head.labels, label) ?? null;
  if (to !== null) {
    if (head.deleted === true) throw new PromptDeletedError(accountId, promptId);
    if (stored?.published !== true) throw new VersionNotPublishedError(accountId, promptId, to, stored !== undefined);
    if (from === to) throw new ConflictError(`label ${label} of prompt ${promptId} points at ${to} already`);
  } else if (from === null) {
    throw new NotFoundError(`prompt ${promptId} has no label ${label}`);
  }
  // A request it could never apply: the label moves only through its rollout until that ends.
  if (item?.rollout) throw new RolloutActiveError(promptId, label, item.rollout.rolloutId);
  await requireNoOpenChangeRequest(table, accountId, promptId, label);
  return from;
}

/** Where the label points, for a request to start a rollout: checked as the start itself would be. */
async function rolloutAskedFrom(table: Table, accountId: string, move: AskedMove, rollout: ChangeRequestRollout): Promise<string> {
  if (move.to === null) throw new RangeError('a rollout moves a label to a version');
  const point = await checkRolloutStart(table, accountId, { promptId: move.promptId, label: move.label, to: move.to, ...rollout });
  return point.from;
}
