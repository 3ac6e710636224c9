import type { RolloutStep } from '../../domain/rollout';
import type { OperationContext } from '../../operations/context';
import { holdingServedCounts } from '../../table/served-counts';
import { planRolloutStartOrChangeRequest, type RolloutStartOutcome } from '../change-requests/approval-gate';
import { planAbortRollout, planCompleteRollout } from './ending';
import { findRollout, NoRolloutError, OtherRolloutError, type Rollout, type RolloutChange, readRollout } from './rollouts';
import { hasDueStep, NoStepDueError, planApplyDueStep, planChangeRollout } from './share';

/** What starting a rollout asks for (the body of `PUT .../rollout`). */
export interface RolloutInput {
  readonly to: string;
  readonly percent: number;
  readonly note?: string | undefined;
  readonly steps?: readonly RolloutStep[] | undefined;
  readonly guardAlarm?: string | undefined;
}

/** A label moved for a share of subjects first (`ops.rollouts`, docs/rollouts.md): started, changed, completed, aborted. */
export class RolloutOperations {
  constructor(private readonly context: OperationContext) {}

  /**
   * Starts moving the label to `to` for `percent` of subjects; where the account puts the label under approval, a
   * change request that carries the rollout is opened instead (`request`), and its approval starts it. Decided
   * inside the change, as a move is.
   */
  start(accountId: string, promptId: string, label: string, input: RolloutInput): Promise<RolloutStartOutcome> {
    const { actor, by } = this.context;
    return this.context.audited({ accountId, action: 'rollout.start', target: { promptId, label }, requested: rolloutRequested(input) }, () =>
      planRolloutStartOrChangeRequest(this.context.table, accountId, { promptId, label, ...input }, { actor, by }),
    );
  }

  /** The label's active rollout, with what each side served so far (404 when it has none). */
  read(accountId: string, promptId: string, label: string): Promise<Rollout> {
    return readRollout(this.context.table, accountId, promptId, label);
  }

  /** A new share, and with `steps` a new schedule (without, the steps still above the new share stay). */
  change(accountId: string, promptId: string, label: string, change: RolloutChange): Promise<Rollout> {
    const requested = {
      percent: change.percent,
      ...(change.steps === undefined ? {} : { steps: change.steps }),
      ...(change.rolloutId === undefined ? {} : { rolloutId: change.rolloutId }),
    };
    return this.context.audited({ accountId, action: 'rollout.change', target: { promptId, label }, requested }, () =>
      planChangeRollout(this.context.table, accountId, promptId, label, change, { by: this.context.by }),
    );
  }

  /**
   * The label moves to the rollout's `to`; the rollout ends, its served counts kept in the label's history and the
   * audit entry. With `rolloutId`, only that rollout (409 when the label has another).
   */
  complete(accountId: string, promptId: string, label: string, options: { rolloutId?: string | undefined } = {}): Promise<Rollout> {
    const { rolloutId } = options;
    const { table, actor, by } = this.context;
    return holdingServedCounts(table, (holds) =>
      this.context.audited({ accountId, action: 'rollout.complete', target: { promptId, label }, ...meantRollout(rolloutId) }, () =>
        planCompleteRollout(table, accountId, { promptId, label, rolloutId }, { actor, by }, holds),
      ),
    );
  }

  /**
   * The label stays where it points; the rollout ends, its served counts kept in the label's history and the audit
   * entry. With `rolloutId`, only that rollout (409 when the label has another).
   */
  abort(accountId: string, promptId: string, label: string, options: { reason?: string | undefined; rolloutId?: string | undefined } = {}): Promise<Rollout> {
    const { reason, rolloutId } = options;
    const { table, by } = this.context;
    const requested = { ...(reason === undefined ? {} : { reason }), ...(rolloutId === undefined ? {} : { rolloutId }) };
    return holdingServedCounts(table, (holds) =>
      this.context.audited(
        { accountId, action: 'rollout.abort', target: { promptId, label }, ...(Object.keys(requested).length > 0 ? { requested } : {}) },
        () => planAbortRollout(table, accountId, { promptId, label, rolloutId }, { by }, holds, reason),
      ),
    );
  }

  /**
   * The latest step of the rollout that is due at `now` (deployed: the step function, every minute): its share
   * applied, and it and the steps before it taken off the schedule, audited as `rollout.change`. Nothing due, the
   * rollout ended, or the label rolling out another one since: nothing is written or recorded (`applied: false`,
   * and why).
   */
  async applyDueStep(
    accountId: string,
    rollout: { readonly promptId: string; readonly label: string; readonly rolloutId: string },
    now: Date,
  ): Promise<{ applied: false; why: string } | { applied: true; rollout: Rollout }> {
    const { promptId, label, rolloutId } = rollout;
    const { table, by } = this.context;
    const item = await findRollout(table, accountId, promptId, label);
    if (!item) return { applied: false, why: `rollout ${rolloutId} has ended` };
    if (item.rolloutId !== rolloutId) return { applied: false, why: new OtherRolloutError(promptId, label, rolloutId, item.rolloutId).message };
    if (!hasDueStep(item, now)) return { applied: false, why: `no step of rollout ${rolloutId} is due` };
    try {
      const changed = await this.context.audited(
        { accountId, action: 'rollout.change', target: { promptId, label }, requested: { dueAt: now.toISOString(), rolloutId } },
        () => planApplyDueStep(table, accountId, rollout, now, { by }),
      );
      return { applied: true, rollout: changed };
    } catch (error) {
      // Another applier took the step, or the rollout ended (and maybe another began), between the look and the change.
      if (error instanceof NoStepDueError || error instanceof NoRolloutError || error instanceof OtherRolloutError)
        return { applied: false, why: error.message };
      throw error;
    }
  }
}

const rolloutRequested = ({ to, percent, note, steps, guardAlarm }: RolloutInput) => ({
  to,
  percent,
  ...(note === undefined ? {} : { note }),
  ...(steps === undefined ? {} : { steps }),
  ...(guardAlarm === undefined ? {} : { guardAlarm }),
});

/** The rollout a caller named, as its attempt records it. */
const meantRollout = (rolloutId: string | undefined) => (rolloutId === undefined ? {} : { requested: { rolloutId } });
