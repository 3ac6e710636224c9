import { labelledVersion } from '../../domain/label';
import { NotFoundError, ConflictError } from '../../table/errors';
import type { PromptHeadItem, PromptLabelItem, PromptVersionItem, RolloutItem, StoredContent, WithKeys } from '../../table/item-types';
import type { MoveCause } from '../../table/label-history';
import { adminIndexKeys, keys } from '../../table/schema';
import { fromStoredContent, toStoredContent } from '../../table/stored-content';
import type { Table } from '../../table/table';
import { buildUpdate } from '../../table/update-expression';
import { requireNoOpenChangeRequest } from '../change-requests/open-change-requests';
import { PromptDeletedError, PromptMissingError, RolloutActiveError } from '../errors';
import { labelsUnchanged } from '../labels/label-move';
import type { PlannedChange } from '../planned-change';
import { findRollout, newRolloutId, type Rollout, type RolloutStart, requireValidStart, rolloutHistoryWrite, toRollout } from './rollouts';

/** Starting a rollout (docs/rollouts.md): checked against the store, then the rollout item and the label item's share of it. */

/** What a start found: where the label points, its item, and the copy of `to` the label item will carry. */
export interface StartPoint {
  readonly head: PromptHeadItem;
  readonly labelItem: PromptLabelItem;
  readonly from: string;
  readonly toContent: StoredContent;
}

/**
 * A start checked against the store (docs/rollouts.md "Managing a rollout (management API)"): the prompt and a
 * label that points somewhere (404), `to` published (404), elsewhere than the label (409), the prompt not deleted,
 * no rollout of the label and no change request open on it (409). `applying` is the request whose approval starts
 * it: its own pointer is no obstacle.
 */
export async function checkRolloutStart(table: Table, accountId: string, start: RolloutStart, options: { applying?: string } = {}): Promise<StartPoint> {
  requireValidStart(start);
  const { promptId, label, to } = start;
  const [head, stored, item, rollout] = await Promise.all([
    table.get<PromptHeadItem>('startRollout', keys.promptHead(accountId, promptId)),
    table.get<PromptVersionItem>('startRollout', keys.promptVersion(accountId, promptId, to)),
    table.get<PromptLabelItem>('startRollout', keys.promptLabel(accountId, label, promptId)),
    findRollout(table, accountId, promptId, label),
  ]);
  if (!head) throw new PromptMissingError(accountId, promptId);
  if (head.deleted === true) throw new PromptDeletedError(accountId, promptId);
  const from = labelledVersion(head.labels, label);
  if (from === undefined || !item) throw new NotFoundError(`prompt ${promptId} has no label ${label}: a rollout moves a label that points at a version`);
  if (!stored) throw new NotFoundError(`prompt ${promptId} has no version ${to}`);
  if (stored.published !== true) throw new NotFoundError(`version ${to} of prompt ${promptId} is a draft: only a published version can be rolled out`);
  if (from === to) throw new ConflictError(`label ${label} of prompt ${promptId} points at ${to} already`);
  if (rollout) throw new RolloutActiveError(promptId, label, rollout.rolloutId);
  if (item.rollout) throw new RolloutActiveError(promptId, label, item.rollout.rolloutId);
  if (options.applying === undefined) await requireNoOpenChangeRequest(table, accountId, promptId, label);
  return { head, labelItem: item, from, toContent: toStoredContent(fromStoredContent(stored)) };
}

/**
 * Starts a rollout: the rollout item (new), the label item's `rollout` (its share and the copy of `to`, on the
 * item as it was read: a move meanwhile raises its `labelsRevision`), and the history entry (the label still
 * points at `from`). Raced by another start, it is planned again and finds that one (409).
 */
export async function planStartRollout(
  table: Table,
  accountId: string,
  start: RolloutStart,
  cause: Pick<MoveCause, 'by'>,
  options: { applying?: string } = {},
): Promise<PlannedChange<Rollout>> {
  const point = await checkRolloutStart(table, accountId, start, options);
  const at = table.timestamp();
  const rolloutId = newRolloutId(at);
  const { promptId, label, to, percent } = start;
  const steps = start.steps ?? [];
  const item: RolloutItem = {
    accountId,
    rolloutId,
    promptId,
    label,
    from: point.from,
    to,
    percent,
    startedAt: at,
    startedBy: cause.by,
    ...(steps.length > 0 ? { steps: steps.map(({ percent: share, afterMinutes }) => ({ percent: share, afterMinutes })) } : {}),
    ...(start.guardAlarm === undefined ? {} : { guardAlarm: start.guardAlarm }),
    ...(start.note === undefined ? {} : { note: start.note }),
    ...(options.applying === undefined ? {} : { requestId: options.applying }),
    updatedAt: at,
    revision: 1,
  };
  const stored: WithKeys<RolloutItem> = {
    ...keys.rollout(accountId, promptId, label),
    ...adminIndexKeys.rollout(accountId, promptId, label),
    type: 'rollout',
    ...item,
  };
  const labelled = point.labelItem;
  return {
    writes: [
      { Put: { Item: stored, ConditionExpression: 'attribute_not_exists(pk)' } },
      {
        Update: {
          Key: keys.promptLabel(accountId, label, promptId),
          ...buildUpdate({
            set: { rollout: { rolloutId, percent, to: point.toContent } },
            condition: (e) => `attribute_exists(${e.name('pk')}) AND attribute_not_exists(${e.name('rollout')}) AND ${labelsUnchanged(e, labelled)}`,
          }),
        },
      },
      rolloutHistoryWrite(table, accountId, item, 'started', cause),
    ],
    result: toRollout(item, { from: 0, to: 0 }),
    after: {
      rolloutId,
      from: point.from,
      to,
      percent,
      ...(steps.length > 0 ? { steps: [...steps] } : {}),
      ...(start.guardAlarm === undefined ? {} : { guardAlarm: start.guardAlarm }),
    },
    visible: true,
  };
}
