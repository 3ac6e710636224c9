import { labelledVersion } from '../../domain/label';
import type { LabelHistoryRollout, PromptHeadItem, PromptLabelItem, StoredContent, WithKeys } from '../../table/item-types';
import { labelHistoryWrite, type MoveCause } from '../../table/label-history';
import { keys } from '../../table/schema';
import type { Table } from '../../table/table';
import type { TransactionWrite } from '../../table/transaction';
import { buildCondition, buildUpdate, type ExpressionNames } from '../../table/update-expression';

/**
 * The one way a label moves, whichever path moves it: a move, a removal or a restore from any door (labels.ts), a
 * change request applied (change-requests/approving.ts), a rollout completed (rollouts/ending.ts), one prompt of a
 * push (prompts/release.ts) and an import (labels.ts's plan, unaudited). Every moved label is written alike, in the
 * transaction of the change that moves it:
 *
 * - the prompt head's label map (label -> version), under the `labelsRevision` the move read: another move landing
 *   meanwhile refuses the transaction, and the change is planned again; a label set also holds the prompt not
 *   deleted (its item copies it as visible);
 * - the label's item, written whole with a copy of the version it points at and of the head's name and deleted flag
 *   (the read API reads a label as it reads latest), or deleted with the label; on the condition that it carries no
 *   rollout (a label that rolls out moves only through its rollout), or, for the completion of one, that very
 *   rollout;
 * - the label's history entry (table/label-history.ts): where it pointed and now, who moved it and how (`cause`), and
 *   a completed rollout's event. An item rewritten in step with a head that already names its version is no move, and
 *   has no entry.
 */

/** One label of a prompt moved. */
export interface LabelMove {
  readonly label: string;
  /** The version it points at once moved; null takes it off. */
  readonly to: string | null;
  /** The copy of version `to` its item carries, when it points somewhere (a published version never changes: the copy is the version). */
  readonly content?: StoredContent;
  readonly cause: MoveCause;
  /** The rollout whose completion moves it: its item is the one that carries that rollout, and its history entry says how it ended. */
  readonly completes?: LabelHistoryRollout;
}

/** What moving labels of one prompt writes, for one transaction. */
export interface LabelMoves {
  /** The head's label map once moved: its field of the head's write (labelMovesOnHead). */
  readonly labels: ReadonlyMap<string, string>;
  /** The head's `labelsRevision` once moved. */
  readonly revision: number;
  /** Each label's item, written or deleted, and its history entry when it moved. */
  readonly writes: readonly TransactionWrite[];
  /** Where each label pointed before it moved (null: nowhere). */
  readonly was: ReadonlyMap<string, string | null>;
  /** Whether a label is set (not only taken off): its item copies the prompt as not deleted, so the head must not be. */
  readonly adds: boolean;
}

/** The head as the moves read it: its labels under their revision; undefined for a prompt the same change creates. */
export type MovedHead = Pick<PromptHeadItem, 'labels' | 'labelsRevision'>;

/** What every label item copies of its prompt: the head's id, name and deleted flag, as the change leaves them. */
export type LabelCopies = Pick<PromptHeadItem, 'promptId' | 'promptName' | 'deleted'>;

/** The labels moved: the head's new label map and revision, and each label's item and history entry. */
export function planLabelMoves(table: Table, accountId: string, head: MovedHead | undefined, copies: LabelCopies, moves: readonly LabelMove[]): LabelMoves {
  // A Map: a label's name is data, whatever it is.
  const labels = new Map(Object.entries(head?.labels ?? {}));
  const revision = (head?.labelsRevision ?? 0) + 1;
  const was = new Map<string, string | null>();
  const writes: TransactionWrite[] = [];
  for (const move of moves) {
    const { label, to, completes } = move;
    const from = labelledVersion(head?.labels, label) ?? null;
    was.set(label, from);
    const condition = completes ? carriesRollout(completes.rolloutId) : NO_ROLLOUT;
    if (to === null) {
      labels.delete(label);
      writes.push({ Delete: { Key: keys.promptLabel(accountId, label, copies.promptId), ...condition } });
    } else {
      if (!move.content) throw new Error(`label ${label}: a move to ${to} without the copy of ${to} its item carries`);
      labels.set(label, to);
      writes.push({ Put: { Item: labelItem(accountId, copies, label, move.content, revision), ...condition } });
    }
    if (from !== to || completes) {
      const history = { promptId: copies.promptId, label, from, to, ...(completes ? { rollout: completes } : {}) };
      writes.push(labelHistoryWrite(table, accountId, history, move.cause));
    }
  }
  const adds = moves.some(({ to }) => to !== null);
  return { labels, revision, writes, was, adds };
}

/** The head's fields and conditions for the moves, for a head write that changes more besides (a push's). */
export function labelMovesOnHead(head: MovedHead, moves: LabelMoves): { set: Record<string, unknown>; conditions: (e: ExpressionNames) => string[] } {
  return {
    // A Map: the SDK marshals a plain object with an own `constructor` (a label like any other) as a class instance, and refuses it.
    set: { labels: new Map(moves.labels), labelsRevision: moves.revision },
    conditions: (e) => [labelsUnchanged(e, head), ...(moves.adds ? [notDeleted(e)] : [])],
  };
}

/** The head's write of the moves alone: its label map and revision, if nothing changed them since it was read. */
export function headLabelsWrite(accountId: string, head: MovedHead & Pick<PromptHeadItem, 'promptId'>, moves: LabelMoves): TransactionWrite {
  const { set, conditions } = labelMovesOnHead(head, moves);
  return {
    Update: {
      Key: keys.promptHead(accountId, head.promptId),
      ...buildUpdate({ set, condition: (e) => [`attribute_exists(${e.name('pk')})`, ...conditions(e)].join(' AND ') }),
    },
  };
}

/** The head's label map unchanged since it was read: the condition of every change that writes its labels or their items. */
export function labelsUnchanged(e: ExpressionNames, head: Pick<PromptHeadItem, 'labelsRevision'>): string {
  return head.labelsRevision === undefined
    ? `attribute_not_exists(${e.name('labelsRevision')})`
    : `${e.name('labelsRevision')} = ${e.value(head.labelsRevision)}`;
}

/** The prompt is not deleted: a deleted prompt takes no new label (restoring it brings back the ones it had). */
export const notDeleted = (e: ExpressionNames): string => `(attribute_not_exists(${e.name('deleted')}) OR ${e.name('deleted')} = ${e.value(false)})`;

/**
 * The condition of a move or removal of a label item: it has no rollout. A rollout started after the move read the
 * item fails it, and the move, read again, is refused naming the rollout (RolloutActiveError).
 */
const NO_ROLLOUT = buildCondition((e) => `attribute_not_exists(${e.name('rollout')})`);

/** The condition of a completion's write of the label item: it carries the rollout that completes. */
const carriesRollout = (rolloutId: string) => buildCondition((e) => `${e.name('rollout.rolloutId')} = ${e.value(rolloutId)}`);

function labelItem(
  accountId: string,
  copies: LabelCopies,
  label: string,
  labelled: PromptLabelItem['labelled'],
  labelsRevision: number,
): WithKeys<PromptLabelItem> {
  return {
    ...keys.promptLabel(accountId, label, copies.promptId),
    type: 'promptLabel',
    promptId: copies.promptId,
    label,
    promptName: copies.promptName,
    deleted: copies.deleted === true,
    labelled,
    labelsRevision,
  };
}
