import type { PromptHeadItem, PromptLabelItem, PromptVersionItem } from '../../table/item-types';
import { fromStoredContent, toStoredContent } from '../../table/stored-content';
import { keys } from '../../table/schema';
import { isSettableLabel, LABEL_RULE, labelledVersion } from '../../domain/label';
import type { Table } from '../../table/table';
import { conditionCheck, type TransactionWrite } from '../../table/transaction';
import { buildCondition, buildUpdate } from '../../table/update-expression';
import type { MoveCause } from '../../table/label-history';
import { headLabelsWrite, labelsUnchanged, planLabelMoves } from './label-move';
import type { PlannedChange } from '../planned-change';
import { PromptMissingError, PromptDeletedError, VersionNotPublishedError, InvalidLabelError, RolloutActiveError } from '../errors';

/**
 * Labels: names such as `production` that point at one published version of a prompt, moved by people (the
 * management API, the admin CLI) and by imports. The plans take plain arguments and say what changed; each move is
 * written by the one label move (label-move.ts), with the account's raised prompt revision, which every request
 * reads: the move applies from the very next request.
 */

export interface LabelChange {
  readonly accountId: string;
  readonly promptId: string;
  readonly label: string;
  /** Where the label pointed before; absent if the prompt did not carry it. */
  readonly previousVersion?: string;
  /** Where it points now; absent once removed. */
  readonly version?: string;
  /** False when the label already pointed there (or, for a removal, was not there): nothing was written. */
  readonly changed: boolean;
}

/**
 * Points the label at a published version of the prompt: sets it, or moves it, as one transaction (the head's
 * label map under its `labelsRevision`, the label item, the history entry). Already there: nothing to write, and
 * the head's labels held (`staysPlan`).
 */
export async function planSetLabel(
  table: Table,
  accountId: string,
  promptId: string,
  label: string,
  version: string,
  cause: MoveCause,
): Promise<PlannedChange<LabelChange>> {
  requireSettable(label);
  const [head, stored, item] = await Promise.all([
    table.get<PromptHeadItem>('setLabel', keys.promptHead(accountId, promptId)),
    table.get<PromptVersionItem>('setLabel', keys.promptVersion(accountId, promptId, version)),
    table.get<PromptLabelItem>('setLabel', keys.promptLabel(accountId, label, promptId)),
  ]);
  if (!head) throw new PromptMissingError(accountId, promptId);
  if (head.deleted === true) throw new PromptDeletedError(accountId, promptId);
  if (stored?.published !== true) throw new VersionNotPublishedError(accountId, promptId, version, stored !== undefined);
  const stays = staysPlan(accountId, head, item, label, version, cause);
  if (stays) return stays;
  if (item?.rollout) throw new RolloutActiveError(promptId, label, item.rollout.rolloutId);
  const previousVersion = labelledVersion(head.labels, label);
  const moves = planLabelMoves(table, accountId, head, head, [{ label, to: version, content: toStoredContent(fromStoredContent(stored)), cause }]);
  return {
    writes: [headLabelsWrite(accountId, head, moves), ...moves.writes],
    result: { accountId, promptId, label, version, changed: previousVersion !== version, ...optional(previousVersion) },
    after: { version, was: previousVersion ?? null, reason: cause.reason },
    visible: true,
  };
}

/**
 * Nothing to write, and the head's labels held as read (a ConditionCheck of its `labelsRevision`): a move landing
 * between this read and the transaction refuses it, and the change is planned again, then as the move it now is.
 */
function staysPlan(
  accountId: string,
  head: PromptHeadItem,
  item: PromptLabelItem | undefined,
  label: string,
  version: string,
  cause: MoveCause,
): PlannedChange<LabelChange> | undefined {
  if (labelledVersion(head.labels, label) !== version || !inStep(item, head, version)) return undefined;
  return {
    writes: [
      conditionCheck(
        keys.promptHead(accountId, head.promptId),
        buildCondition((e) => `attribute_exists(${e.name('pk')}) AND ${labelsUnchanged(e, head)}`),
      ),
    ],
    result: { accountId, promptId: head.promptId, label, version, previousVersion: version, changed: false },
    after: { version, was: version, reason: cause.reason },
  };
}

/**
 * Takes the label off the prompt (a deleted prompt's too), as one transaction: the head's map, the label
 * item and the history entry. A prompt without it has nothing to write (`changed: false`).
 */
export async function planRemoveLabel(table: Table, accountId: string, promptId: string, label: string, cause: MoveCause): Promise<PlannedChange<LabelChange>> {
  requireSettable(label);
  const [head, item] = await Promise.all([
    table.get<PromptHeadItem>('removeLabel', keys.promptHead(accountId, promptId)),
    table.get<PromptLabelItem>('removeLabel', keys.promptLabel(accountId, label, promptId)),
  ]);
  if (!head) throw new PromptMissingError(accountId, promptId);
  const previousVersion = labelledVersion(head.labels, label);
  if (previousVersion === undefined) return { writes: [], result: { accountId, promptId, label, changed: false } };
  if (item?.rollout) throw new RolloutActiveError(promptId, label, item.rollout.rolloutId);
  const moves = planLabelMoves(table, accountId, head, head, [{ label, to: null, cause }]);
  return {
    writes: [headLabelsWrite(accountId, head, moves), ...moves.writes],
    result: { accountId, promptId, label, previousVersion, changed: true },
    after: { was: previousVersion, reason: cause.reason },
    visible: true,
  };
}

/** The prompt's labels, label -> version, deleted prompts' included. */
export async function listLabels(table: Table, accountId: string, promptId: string): Promise<Record<string, string>> {
  const head = await table.get<PromptHeadItem>('listLabels', keys.promptHead(accountId, promptId));
  if (!head) throw new PromptMissingError(accountId, promptId);
  return { ...head.labels };
}

/**
 * The writes that bring every label item's copies of the head's name and deleted flag in step with a head
 * about to be written (a delete, a restore, a rename), for the same transaction, which is conditional on the
 * head's `labelsRevision`: the label items read here are the ones there are.
 */
export async function labelCopyWrites(
  table: Table,
  accountId: string,
  head: Pick<PromptHeadItem, 'promptId' | 'labels'>,
  copies: Pick<PromptLabelItem, 'promptName' | 'deleted'>,
): Promise<TransactionWrite[]> {
  const labels = Object.keys(head.labels ?? {});
  if (labels.length === 0) return [];
  const items = await table.batchGet<PromptLabelItem>(labels.map((label) => keys.promptLabel(accountId, label, head.promptId)));
  return items
    .filter((item) => item.promptName !== copies.promptName || item.deleted !== copies.deleted)
    .map((item) => ({
      Update: {
        Key: keys.promptLabel(accountId, item.label, head.promptId),
        ...buildUpdate({ set: { promptName: copies.promptName, deleted: copies.deleted }, condition: (e) => `attribute_exists(${e.name('pk')})` }),
      },
    }));
}

/** What a bulk path's moves say in the label's history: an import, by its operator when it has one. */
export const IMPORT_CAUSE: MoveCause = { by: 'import', reason: 'import' };

/** The label items' copies brought in step with the head, after a bulk import renamed or (un)deleted it. */
export async function syncLabelCopies(table: Table, accountId: string, promptId: string): Promise<void> {
  const head = await table.get<PromptHeadItem>('syncLabelCopies', keys.promptHead(accountId, promptId));
  if (!head) return;
  await table.transact('syncLabelCopies', await labelCopyWrites(table, accountId, head, { promptName: head.promptName, deleted: head.deleted === true }));
}

function requireSettable(label: string): void {
  if (!isSettableLabel(label)) throw new InvalidLabelError(label, LABEL_RULE);
}

/** The label item shows what the head says, as the head is now. */
function inStep(item: PromptLabelItem | undefined, head: PromptHeadItem, version: string): boolean {
  return item !== undefined && item.labelled.version === version && item.promptName === head.promptName && item.deleted === (head.deleted === true);
}

const optional = (previousVersion: string | undefined) => (previousVersion === undefined ? {} : { previousVersion });
