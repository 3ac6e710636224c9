import { type ApprovalGate, type Mover, readApprovalGate } from './approval-gate';
import { type ChangeRequest, planOpenRequest, type RequestedMove } from './change-requests';
import { NotFoundError } from '../../table/errors';
import { type LabelChange, planRemoveLabel, planSetLabel } from '../labels/labels';
import { planStartRollout, type Rollout, type RolloutStart, requestedRollout } from '../rollouts/rollouts';
import type { Table } from '../../table/table';
import type { PlannedChange } from '../planned-change';
import { plannedAs } from '../planned-change';
import { moveReason } from '../labels/move-reasons';

/**
 * A label moved from any door (the management API, the admin CLI): moved, or, where the account puts the label
 * under approval, asked for. The approval gate (approval-gate.ts) decides which, inside the change, and the
 * change's transaction holds what it decided on: the account's settings, and for a label found where it is asked
 * to point, the prompt's labels. So a label under approval moves only through its request, however the doors'
 * requests interleave with the request's approval or the owners' settings.
 */

/**
 * A move's outcome: the label moved (or found where it was asked to point: `changed: false`), `breakGlass` when it
 * was the operator's break-glass past its approvals; or a request opened for it.
 */
export type LabelMove = { readonly moved: LabelChange; readonly breakGlass?: true } | { readonly request: ChangeRequest };

/** A rollout start's outcome: the rollout started, or a request opened that carries it (its approval starts it). */
export type RolloutStartOutcome = { readonly rollout: Rollout } | { readonly request: ChangeRequest };

/** A request opened in place of the move: its entry says `request.open`, and so does a refusal of it. */
const ASKED = { action: 'request.open' } as const;

/**
 * Points the label at `to`, or takes it off (`to: null`): at once where the gate lets it, its history saying how
 * (the note, `restore`, `break-glass`); otherwise a change request for it, unless there is nothing to ask (the
 * label points at `to` already: 200, nothing moved). A removal of a label the prompt does not carry is refused
 * (404), asked for or not.
 */
export async function planLabelMove(table: Table, accountId: string, move: RequestedMove, mover: Mover): Promise<PlannedChange<LabelMove>> {
  const gate = await readApprovalGate(table, accountId, mover);
  const { promptId, label, to } = move;
  const breakGlass = gate.breaks(label);
  const cause = { by: mover.by, reason: moveReason({ note: move.note, restore: move.restore, breakGlass }) };
  if (gate.asks(label)) {
    // Nothing to ask where the label points at `to` already (its item brought in step if it was not): a move planned
    // from the same reads is discarded, and asked for instead.
    const stays = to === null ? undefined : await planSetLabel(table, accountId, promptId, label, to, cause);
    if (stays && !stays.result.changed) return held(gate, stays, (moved) => ({ moved }));
    const requested = await plannedAs(ASKED, () => planOpenRequest(table, accountId, move, mover, gate.required));
    return held(gate, requested, (request) => ({ request }));
  }
  const planned =
    to === null ? await planRemoveLabel(table, accountId, promptId, label, cause) : await planSetLabel(table, accountId, promptId, label, to, cause);
  // The CLI's unlabel is a no-op on a missing label; a person removing one that is not there is told so.
  if (to === null && !planned.result.changed) throw new NotFoundError(`prompt ${promptId} has no label ${label}`);
  if (!(breakGlass && planned.result.changed)) return held(gate, planned, (moved) => ({ moved }));
  return held(gate, { ...planned, after: { ...planned.after, breakGlass: true } }, (moved) => ({ moved, breakGlass: true as const }));
}

/** Starts a rollout of the label, or, where the gate says the label moves through a request, asks for one that carries it. */
export async function planRolloutStartOrRequest(
  table: Table,
  accountId: string,
  start: RolloutStart,
  mover: Mover,
): Promise<PlannedChange<RolloutStartOutcome>> {
  const gate = await readApprovalGate(table, accountId, mover);
  const { promptId, label, to, note } = start;
  if (gate.asks(label)) {
    const move = { promptId, label, to, rollout: requestedRollout(start), ...(note === undefined ? {} : { note }) };
    const requested = await plannedAs(ASKED, () => planOpenRequest(table, accountId, move, mover, gate.required));
    return held(gate, requested, (request) => ({ request }));
  }
  return held(gate, await planStartRollout(table, accountId, start, { by: mover.by }), (rollout) => ({ rollout }));
}

/** The plan with its result as the door answers it, the account's settings it was decided on held by its transaction. */
function held<T, R>(gate: ApprovalGate, planned: PlannedChange<T>, answer: (result: T) => R): PlannedChange<R> {
  return { ...planned, result: answer(planned.result), accountHolds: gate.holds };
}
