import type { Actor } from '../../domain/actor';
import type { PromptHeadItem, PromptLabelItem, RolloutItem } from '../../table/item-types';
import type { MoveCause } from '../../table/label-history';
import { keys } from '../../table/schema';
import { freezeServedCounts, type ServedCountHolds } from '../../table/served-counts';
import type { Table } from '../../table/table';
import type { TransactionWrite } from '../../table/transaction';
import { buildCondition, buildUpdate } from '../../table/update-expression';
import { readApprovalGate, requireApprovedRollout } from '../change-requests/approval-gate';
import { PromptDeletedError, PromptMissingError } from '../errors';
import { headLabelsWrite, planLabelMoves } from '../labels/label-move';
import type { PlannedChange } from '../planned-change';
import { type Rollout, type RolloutTarget, requireRollout, rolloutCause, rolloutEvent, rolloutHistoryWrite, sameRollout, toRollout } from './rollouts';

/**
 * A rollout ended (docs/rollouts.md): completed (the label moves to `to`) or aborted (it stays on `from`). Either
 * deletes the rollout item under the revision read, and freezes what each side served in the same transaction
 * (table/served-counts.ts), kept by the label's history entry and the audit entry.
 */

/** Who ends a rollout: their actor and name. */
export interface Ender {
  readonly actor: Actor;
  readonly by: string;
}

/**
 * Completes the rollout: the label moves to `to` by the one label move (labels/label-move.ts), its item written whole
 * without the rollout it carried, and its history entry (from `from` to `to`) keeps what each side served. On a label
 * the account puts under approval, only a rollout a change request started completes (the approval gate decides it, and
 * the transaction holds the settings it read); any other is refused: abort it, then start it again, which asks.
 */
export async function planCompleteRollout(
  table: Table,
  accountId: string,
  target: RolloutTarget,
  ender: Ender,
  holds: ServedCountHolds,
): Promise<PlannedChange<Rollout>> {
  const { promptId, label } = target;
  const [item, head, labelled, gate] = await Promise.all([
    requireRollout(table, accountId, promptId, label, target.rolloutId),
    table.get<PromptHeadItem>('completeRollout', keys.promptHead(accountId, promptId)),
    table.get<PromptLabelItem>('completeRollout', keys.promptLabel(accountId, label, promptId)),
    readApprovalGate(table, accountId, ender),
  ]);
  if (!head) throw new PromptMissingError(accountId, promptId);
  if (head.deleted === true) throw new PromptDeletedError(accountId, promptId);
  requireApprovedRollout(gate, item);
  const copy = labelled?.rollout?.rolloutId === item.rolloutId ? labelled.rollout.to : undefined;
  // The label item carries the rollout whenever the item exists (one transaction writes both): this is a store out of step.
  if (!copy) throw new Error(`rollout ${item.rolloutId}: the label item carries no copy of ${item.to}`);
  const frozen = await freezeServedCounts(table, accountId, item.rolloutId, holds, { accountHolds: gate.holds });
  const { served } = frozen;
  const moves = planLabelMoves(table, accountId, head, head, [
    { label, to: item.to, content: copy, cause: rolloutCause(item, ender), completes: rolloutEvent(item, 'completed', served) },
  ]);
  const was = moves.was.get(label) ?? item.from;
  const ended = { state: 'completed' as const, at: table.timestamp(), by: ender.by };
  return {
    writes: [rolloutDelete(accountId, item), headLabelsWrite(accountId, head, moves), ...moves.writes, ...frozen.keyWrites],
    result: toRollout(item, served, ended),
    after: { rolloutId: item.rolloutId, from: item.from, to: item.to, percent: Number(item.percent), served },
    // The label moved: recorded (and announced) as any move of it is, its reason the history entry's.
    alsoRecords: [
      {
        action: 'label.set',
        target: { promptId, label },
        requested: { version: item.to, rolloutId: item.rolloutId },
        after: { version: item.to, was, rolloutId: item.rolloutId, reason: rolloutCause(item, ender).reason },
      },
    ],
    visible: true,
    // The end writes the account's revision itself, holding there the approvals it decided on too.
    revisionWrite: frozen.revisionWrite,
    followUp: frozen.followUp,
  };
}

/** Aborts the rollout: the label stays on `from`, its item without its rollout, and the history entry keeps what each side served. */
export async function planAbortRollout(
  table: Table,
  accountId: string,
  target: RolloutTarget,
  cause: Pick<MoveCause, 'by'>,
  holds: ServedCountHolds,
  reason?: string,
): Promise<PlannedChange<Rollout>> {
  const { promptId, label } = target;
  const item = await requireRollout(table, accountId, promptId, label, target.rolloutId);
  const frozen = await freezeServedCounts(table, accountId, item.rolloutId, holds);
  const { served } = frozen;
  const ended = { state: 'aborted' as const, at: table.timestamp(), by: cause.by };
  return {
    writes: [
      rolloutDelete(accountId, item),
      {
        Update: {
          Key: keys.promptLabel(accountId, label, promptId),
          ...buildUpdate({ remove: ['rollout'], condition: (e) => `${e.name('rollout.rolloutId')} = ${e.value(item.rolloutId)}` }),
        },
      },
      rolloutHistoryWrite(table, accountId, item, 'aborted', cause, served),
      ...frozen.keyWrites,
    ],
    result: toRollout(item, served, ended),
    after: {
      rolloutId: item.rolloutId,
      from: item.from,
      to: item.to,
      percent: Number(item.percent),
      served,
      ...(reason === undefined ? {} : { reason }),
    },
    visible: true,
    revisionWrite: frozen.revisionWrite,
    followUp: frozen.followUp,
  };
}

/** The rollout item deleted, if it is still the rollout read and no other change to it landed since. */
function rolloutDelete(accountId: string, item: RolloutItem): TransactionWrite {
  return {
    Delete: {
      Key: keys.rollout(accountId, item.promptId, item.label),
      ...buildCondition((e) => sameRollout(e, item)),
    },
  };
}
