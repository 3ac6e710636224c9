import type { RolloutStep } from '../../domain/rollout';
import { dueSteps } from '../../domain/rollout-rules';
import { ConflictError } from '../../table/errors';
import type { RolloutItem } from '../../table/item-types';
import type { MoveCause } from '../../table/label-history';
import { keys } from '../../table/schema';
import { servedCounts } from '../../table/served-counts';
import type { Table } from '../../table/table';
import { buildUpdate } from '../../table/update-expression';
import type { PlannedChange } from '../planned-change';
import {
  type Rollout,
  type RolloutChange,
  requireRollout,
  requireValidPercent,
  requireValidSteps,
  rolloutHistoryWrite,
  sameRollout,
  toRollout,
} from './rollouts';

/** A rollout's share changed (docs/rollouts.md): by a person, or by its schedule's due step (deployed: every minute). */

/**
 * A new share (and, with `steps`, a new schedule; without, the steps still above the new share stay): the rollout
 * item under the revision read, the label item's share, the history entry.
 */
export async function planChangeRollout(
  table: Table,
  accountId: string,
  promptId: string,
  label: string,
  change: RolloutChange,
  cause: Pick<MoveCause, 'by'>,
): Promise<PlannedChange<Rollout>> {
  requireValidPercent(change.percent);
  if (change.steps !== undefined) requireValidSteps(change.steps, change.percent);
  const item = await requireRollout(table, accountId, promptId, label, change.rolloutId);
  const steps = change.steps ?? (item.steps ?? []).filter((step) => step.percent > change.percent);
  return shareChange(table, accountId, item, change.percent, steps, cause);
}

/** No step of the rollout is due (another applier got there first, or none is yet). */
export class NoStepDueError extends ConflictError {
  override readonly name: string = 'NoStepDueError';
}

/**
 * The rollout's latest due step applied (deployed: every minute): the share of the last step whose time has come,
 * the steps before it and it taken off the schedule. Nothing due: NoStepDueError; the label rolling out another
 * rollout than `rolloutId`, the one whose step it is: OtherRolloutError.
 */
export async function planApplyDueStep(
  table: Table,
  accountId: string,
  rollout: { readonly promptId: string; readonly label: string; readonly rolloutId: string },
  now: Date,
  cause: Pick<MoveCause, 'by'>,
): Promise<PlannedChange<Rollout>> {
  const { promptId, label } = rollout;
  const item = await requireRollout(table, accountId, promptId, label, rollout.rolloutId);
  const due = dueSteps(item.steps ?? [], item.startedAt, now);
  if (!due) throw new NoStepDueError(`no step of rollout ${item.rolloutId} is due`);
  return shareChange(table, accountId, item, due.percent, due.ahead, cause);
}

/** Whether a step of the rollout is due at `now`. */
export const hasDueStep = (item: Pick<RolloutItem, 'steps' | 'startedAt'>, now: Date): boolean => dueSteps(item.steps ?? [], item.startedAt, now) !== undefined;

async function shareChange(
  table: Table,
  accountId: string,
  item: RolloutItem,
  percent: number,
  steps: readonly RolloutStep[],
  cause: Pick<MoveCause, 'by'>,
): Promise<PlannedChange<Rollout>> {
  const { promptId, label, rolloutId } = item;
  const changed: RolloutItem = { ...item, percent, steps: [...steps], updatedAt: table.timestamp(), revision: item.revision + 1 };
  const served = await servedCounts(table, accountId, rolloutId);
  return {
    writes: [
      {
        Update: {
          Key: keys.rollout(accountId, promptId, label),
          ...buildUpdate({
            set: { percent, updatedAt: changed.updatedAt, revision: changed.revision, ...(steps.length > 0 ? { steps: [...steps] } : {}) },
            ...(steps.length > 0 ? {} : { remove: ['steps'] }),
            condition: (e) => sameRollout(e, item),
          }),
        },
      },
      {
        Update: {
          Key: keys.promptLabel(accountId, label, promptId),
          ...buildUpdate({ set: { 'rollout.percent': percent }, condition: (e) => `${e.name('rollout.rolloutId')} = ${e.value(rolloutId)}` }),
        },
      },
      rolloutHistoryWrite(table, accountId, changed, 'changed', cause),
    ],
    result: toRollout(changed, served),
    after: { rolloutId, from: item.from, to: item.to, percent, was: Number(item.percent), steps: [...steps] },
    visible: true,
  };
}
