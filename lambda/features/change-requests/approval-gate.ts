import type { Actor } from '../../domain/actor';
import { ConflictError, NotFoundError } from '../../table/errors';
import type { RolloutItem } from '../../table/item-types';
import type { Table } from '../../table/table';
import type { ExpressionNames } from '../../table/update-expression';
import { type AccountSettings, readHeldSettings } from '../accounts/accounts';
import { type LabelChange, planRemoveLabel, planSetLabel } from '../labels/labels';
import { moveReason } from '../labels/move-reasons';
import { type PlannedChange, plannedAs } from '../planned-change';
import { type Rollout, type RolloutStart, changeRequestRollout } from '../rollouts/rollouts';
import { planStartRollout } from '../rollouts/start';
import type { ChangeRequest } from './answers';
import { type AskedMove, planOpenChangeRequest } from './opening';

/**
 * Does this label move only through a change request? The one place that says so
 * (docs/management-api.md "Change requests"), asked inside every change that may move a label, whichever door it came through: a move, a removal or a
 * restore from the management API or the CLI (planLabelMoveOrChangeRequest below), a rollout's start
 * (planRolloutStartOrChangeRequest below) and its completion (rollouts/ending.ts: only a rollout a change request started
 * completes on such a label), one prompt of a push (prompts/release.ts). A door decides nothing of it. The answer comes
 * from the account's approvals as the change reads them, and the change's transaction holds them (`accountHolds`,
 * operations/commit.ts): approvals turned on or off meanwhile refuse the transaction, and the change is planned, and
 * decided, again. So a label under approval moves only through its request, however the doors' requests interleave
 * with the request's approval or the owners' settings.
 */

/** Who moves a label: their actor (a request's requester) and name, and whether they break the glass. */
export interface Mover {
  readonly actor: Actor;
  readonly by: string;
  /**
   * The operator's break-glass (the CLI's `--break-glass`): a label under approval moves without its request, and
   * its history and audit entry say so. Only an operator (`cli`) may: nobody else's door offers it.
   */
  readonly breakGlass?: boolean;
}

export interface ApprovalGate {
  /** Whether a move of `label` is asked for (a change request) rather than made. */
  asks(label: string): boolean;
  /** Whether a move of `label` is the operator's break-glass: a label under approval, moved without its request. */
  breaks(label: string): boolean;
  /** The approvals a request opened now needs. */
  readonly required: number;
  readonly settings: AccountSettings;
  /** The settings as read, held by the change's transaction (its `accountHolds`). */
  readonly holds: (e: ExpressionNames) => string;
}

/** Break-glass asked by anyone but an operator: no door offers it to anyone else, so it is a caller's mistake. */
export class BreakGlassNotAllowedError extends Error {
  override readonly name = 'BreakGlassNotAllowedError';
  constructor() {
    super("break-glass is the operator's alone (the admin CLI): a member asks for a move of a label under approval");
  }
}

export async function readApprovalGate(table: Table, accountId: string, mover: Mover): Promise<ApprovalGate> {
  if (mover.breakGlass === true && mover.actor.type !== 'cli') throw new BreakGlassNotAllowedError();
  const { settings, holds } = await readHeldSettings(table, accountId);
  const underApproval = (label: string) => settings.approvals.labels.includes(label);
  return {
    asks: (label) => underApproval(label) && mover.breakGlass !== true,
    breaks: (label) => underApproval(label) && mover.breakGlass === true,
    required: settings.approvals.required,
    settings,
    holds,
  };
}

/** A rollout no change request started, on a label under approval: it completes only once started through one (409). */
export class UnapprovedRolloutError extends ConflictError {
  override readonly name: string = 'UnapprovedRolloutError';
  constructor(rollout: Pick<RolloutItem, 'promptId' | 'label' | 'rolloutId'>) {
    super(
      `label ${rollout.label} of prompt ${rollout.promptId} is under approval, and rollout ${rollout.rolloutId} was not started through a change request: abort it, then start it again (which asks for one)`,
    );
  }
}

/**
 * Completing a rollout moves its label: on a label under approval, only a rollout whose start a change request's
 * approval made (`requestId`) may; one started before the label was put under approval is refused.
 */
export function requireApprovedRollout(gate: ApprovalGate, rollout: Pick<RolloutItem, 'promptId' | 'label' | 'rolloutId' | 'requestId'>): void {
  if (gate.asks(rollout.label) && rollout.requestId === undefined) throw new UnapprovedRolloutError(rollout);
}

/**
 * A move's outcome: the label moved (or found where it was asked to point: `changed: false`), `breakGlass` when it
 * was the operator's break-glass past its approvals; or a request opened for it.
 */
export type LabelMoveOutcome = { readonly moved: LabelChange; readonly breakGlass?: true } | { readonly changeRequest: ChangeRequest };

/** A rollout start's outcome: the rollout started, or a request opened that carries it (its approval starts it). */
export type RolloutStartOutcome = { readonly rollout: Rollout } | { readonly changeRequest: ChangeRequest };

/** A request opened in place of the move: its entry says `request.open`, and so does a refusal of it. */
const ASKED = { action: 'request.open' } as const;

/**
 * Points the label at `to`, or takes it off (`to: null`): at once where the gate lets it, its history saying how
 * (the note, `restore`, `break-glass`); otherwise a change request for it, unless there is nothing to ask (the
 * label points at `to` already: 200, nothing moved). A removal of a label the prompt does not carry is refused
 * (404), asked for or not.
 */
export async function planLabelMoveOrChangeRequest(table: Table, accountId: string, move: AskedMove, mover: Mover): Promise<PlannedChange<LabelMoveOutcome>> {
  const gate = await readApprovalGate(table, accountId, mover);
  const { promptId, label, to } = move;
  const breakGlass = gate.breaks(label);
  const cause = { by: mover.by, reason: moveReason({ note: move.note, restore: move.restore, breakGlass }) };
  if (gate.asks(label)) {
    // Nothing to ask where the label points at `to` already (its item brought in step if it was not): a move planned
    // from the same reads is discarded, and asked for instead. A move refused here is a request refused.
    const stays = to === null ? undefined : await plannedAs(ASKED, () => planSetLabel(table, accountId, promptId, label, to, cause));
    if (stays && !stays.result.changed) {
      const { recordedAs: _asked, ...nothingMoved } = stays;
      return held(gate, nothingMoved, (moved) => ({ moved }));
    }
    const opened = await plannedAs(ASKED, () => planOpenChangeRequest(table, accountId, move, mover, gate.required));
    return held(gate, opened, (changeRequest) => ({ changeRequest }));
  }
  const planned =
    to === null ? await planRemoveLabel(table, accountId, promptId, label, cause) : await planSetLabel(table, accountId, promptId, label, to, cause);
  // The CLI's unlabel is a no-op on a missing label; a person removing one that is not there is told so.
  if (to === null && !planned.result.changed) throw new NotFoundError(`prompt ${promptId} has no label ${label}`);
  if (!(breakGlass && planned.result.changed)) return held(gate, planned, (moved) => ({ moved }));
  return held(gate, { ...planned, after: { ...planned.after, breakGlass: true } }, (moved) => ({ moved, breakGlass: true as const }));
}

/** Starts a rollout of the label, or, where the gate says the label moves through a request, asks for one that carries it. */
export async function planRolloutStartOrChangeRequest(
  table: Table,
  accountId: string,
  start: RolloutStart,
  mover: Mover,
): Promise<PlannedChange<RolloutStartOutcome>> {
  const gate = await readApprovalGate(table, accountId, mover);
  const { promptId, label, to, note } = start;
  if (gate.asks(label)) {
    const move = { promptId, label, to, rollout: changeRequestRollout(start), ...(note === undefined ? {} : { note }) };
    const opened = await plannedAs(ASKED, () => planOpenChangeRequest(table, accountId, move, mover, gate.required));
    return held(gate, opened, (changeRequest) => ({ changeRequest }));
  }
  return held(gate, await planStartRollout(table, accountId, start, { by: mover.by }), (rollout) => ({ rollout }));
}

/** The plan with its result as the door answers it, the account's settings it was decided on held by its transaction. */
function held<T, R>(gate: ApprovalGate, planned: PlannedChange<T>, answer: (result: T) => R): PlannedChange<R> {
  return { ...planned, result: answer(planned.result), accountHolds: gate.holds };
}
