import type { PromptHeadItem, PromptLabelItem, PromptVersionItem, WithKeys } from '../../table/item-types';
import { fromStoredContent, toStoredContent } from '../../table/stored-content';
import { keys } from '../../table/schema';
import { isSettableLabel, LABEL_RULE, labelledVersion } from '../../domain/label';
import type { Table } from '../../table/table';
import { conditionCheck, type TransactionWrite } from '../../table/transaction';
import { buildCondition, buildUpdate, type ExpressionNames } from '../../table/update-expression';
import { labelHistoryWrite, type MoveCause } from '../../table/label-history';
import type { PlannedChange } from '../planned-change';
import { PromptMissingError, PromptDeletedError, VersionNotPublishedError, InvalidLabelError, RolloutActiveError } from '../errors';

/**
 * Labels: names such as `production` that point at one published version of a prompt, moved by people
 * (the admin CLI, imports, the management API). The operations take plain arguments and say what changed.
 *
 * What is stored: the head's `labels` map (label -> version) names every label of the prompt, and one
 * label item per label holds a copy of the labelled version's content and of the head's name and deleted
 * flag, so the API reads a label as it reads latest. A change writes the head (conditional on its
 * `labelsRevision`) and the item in one transaction (operations/commit.ts), with the account's raised prompt revision,
 * which every request reads: the move applies from the very next request. Each move also writes its entry
 * of the label's history (label-history.ts), with who moved it and how (`cause`), in the same transaction.
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
  const revision = (head.labelsRevision ?? 0) + 1;
  return {
    writes: [
      headLabelsWrite(accountId, head, { ...head.labels, [label]: version }, revision),
      // Published versions never change, and are never deleted: the copy is the version.
      { Put: { Item: labelItem(accountId, head, label, toStoredContent(fromStoredContent(stored)), revision), ...NO_ROLLOUT } },
      // Rewriting the item in step with the head (nothing moved) is no move: it has no entry.
      ...(previousVersion === version ? [] : [labelHistoryWrite(table, accountId, { promptId, label, from: previousVersion ?? null, to: version }, cause)]),
    ],
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
  const { [label]: _removed, ...rest } = head.labels ?? {};
  return {
    writes: [
      headLabelsWrite(accountId, head, rest, (head.labelsRevision ?? 0) + 1),
      { Delete: { Key: keys.promptLabel(accountId, label, promptId), ...NO_ROLLOUT } },
      labelHistoryWrite(table, accountId, { promptId, label, from: previousVersion, to: null }, cause),
    ],
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

/** The head's label map unchanged since it was read: the condition of a change that rewrites its label items. */
export function labelsUnchanged(e: ExpressionNames, head: Pick<PromptHeadItem, 'labelsRevision'>): string {
  return head.labelsRevision === undefined
    ? `attribute_not_exists(${e.name('labelsRevision')})`
    : `${e.name('labelsRevision')} = ${e.value(head.labelsRevision)}`;
}

/** What a bulk path's moves say in the label's history: an import, by its operator when it has one. */
export const IMPORT_CAUSE: MoveCause = { by: 'import', reason: 'import' };

/**
 * The condition of a direct move or removal of a label item: it has no rollout. A rollout started after the move
 * read the item fails it, and the move, read again, is refused naming the rollout (RolloutActiveError).
 */
export const NO_ROLLOUT = buildCondition((e) => `attribute_not_exists(${e.name('rollout')})`);

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

/**
 * The head's label map replaced, if nothing changed it since `head` was read (and the prompt is not
 * deleted, when a label is added or moved).
 */
export function headLabelsWrite(accountId: string, head: PromptHeadItem, labels: Record<string, string>, revision: number): TransactionWrite {
  const adds = Object.entries(labels).some(([label, version]) => labelledVersion(head.labels, label) !== version);
  return {
    Update: {
      Key: keys.promptHead(accountId, head.promptId),
      ...buildUpdate({
        // A Map: the SDK marshals a plain object with an own `constructor` (a label like any other) as a class instance, and refuses it.
        set: { labels: new Map(Object.entries(labels)), labelsRevision: revision },
        condition: (e) =>
          [
            `attribute_exists(${e.name('pk')})`,
            labelsUnchanged(e, head),
            ...(adds ? [`(attribute_not_exists(${e.name('deleted')}) OR ${e.name('deleted')} = ${e.value(false)})`] : []),
          ].join(' AND '),
      }),
    },
  };
}

export function labelItem(
  accountId: string,
  head: Pick<PromptHeadItem, 'promptId' | 'promptName' | 'deleted'>,
  label: string,
  labelled: PromptLabelItem['labelled'],
  labelsRevision: number,
): WithKeys<PromptLabelItem> {
  return {
    ...keys.promptLabel(accountId, label, head.promptId),
    type: 'promptLabel',
    promptId: head.promptId,
    label,
    promptName: head.promptName,
    deleted: head.deleted === true,
    labelled,
    labelsRevision,
  };
}

const optional = (previousVersion: string | undefined) => (previousVersion === undefined ? {} : { previousVersion });
