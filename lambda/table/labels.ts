import type { PromptHeadItem, PromptLabelItem, PromptVersionItem, WithKeys } from './item-types';
import { fromStoredContent, toStoredContent } from './stored-content';
import { keys } from './schema';
import { isSettableLabel, LABEL_RULE, labelledVersion } from '../domain/label';
import { InvalidLabelError, PromptDeletedError, PromptMissingError, VersionNotPublishedError } from './errors';
import { bumpPromptsRevision } from './propagation';
import type { AdminTable } from './admin-table';

/**
 * Labels: names such as `production` that point at one published version of a prompt, moved by people
 * (the admin CLI, imports, the management API). The operations take plain arguments and say what changed.
 *
 * What is stored: the head's `labels` map (label -> version) names every label of the prompt, and one
 * label item per label holds a copy of the labelled version's content and of the head's name and deleted
 * flag, so the API reads a label as it reads latest. Every change is conditional on the head's
 * `labelsRevision`, and a label item is only ever replaced by one written under a higher revision, so
 * racing moves end with the head and the item agreeing. Each change then raises the account's prompt
 * revision (propagation.ts), which every request reads: the move applies from the very next request.
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

export interface LabelWriteOptions {
  /**
   * Whether the account's prompt revision is raised once the label is written (default true). An import
   * that writes many labels raises it once at the end instead.
   */
  readonly raiseRevision?: boolean;
}

/** A write refused because the head changed since it was read: read again and redo, a few times. */
const ATTEMPTS = 5;

/** Points the label at a published version of the prompt: sets it, or moves it. Running it again changes nothing. */
export async function setLabel(
  table: AdminTable,
  accountId: string,
  promptId: string,
  label: string,
  version: string,
  options: LabelWriteOptions = {},
): Promise<LabelChange> {
  requireSettable(label);
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    const [head, stored, item] = await Promise.all([
      table.get<PromptHeadItem>('setLabel', keys.promptHead(accountId, promptId)),
      table.get<PromptVersionItem>('setLabel', keys.promptVersion(accountId, promptId, version)),
      table.get<PromptLabelItem>('setLabel', keys.promptLabel(accountId, label, promptId)),
    ]);
    if (!head) throw new PromptMissingError(accountId, promptId);
    if (head.deleted === true) throw new PromptDeletedError(accountId, promptId);
    if (stored?.published !== true) throw new VersionNotPublishedError(accountId, promptId, version, stored !== undefined);
    const previousVersion = labelledVersion(head.labels, label);
    const unchanged = { accountId, promptId, label, version, changed: false, ...optional(previousVersion) };
    if (previousVersion === version && inStep(item, head, version)) return unchanged;

    const revision = await writeHeadLabels(table, accountId, head, { ...head.labels, [label]: version });
    if (revision === undefined) continue;
    await table.put(
      'setLabel',
      {
        Item: labelItem(accountId, head, label, toStoredContent(fromStoredContent(stored)), revision),
        ConditionExpression: 'attribute_not_exists(pk) OR #revision < :revision',
        ExpressionAttributeNames: { '#revision': 'labelsRevision' },
        ExpressionAttributeValues: { ':revision': revision },
      },
      // A move made after this one has put its own item already.
      () => undefined,
    );
    // A delete that landed after the head was read could not see this item yet: make it hide this one too.
    await syncLabelCopies(table, accountId, promptId);
    if (options.raiseRevision !== false) await bumpPromptsRevision(table, accountId);
    return { ...unchanged, changed: previousVersion !== version };
  }
  throw new Error(`setLabel: the head of prompt ${promptId} kept changing; try again`);
}

/** Takes the label off the prompt. A prompt without it is left as it is; a deleted prompt's labels can be removed too. */
export async function removeLabel(
  table: AdminTable,
  accountId: string,
  promptId: string,
  label: string,
  options: LabelWriteOptions = {},
): Promise<LabelChange> {
  requireSettable(label);
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    const head = await table.get<PromptHeadItem>('removeLabel', keys.promptHead(accountId, promptId));
    if (!head) throw new PromptMissingError(accountId, promptId);
    const previousVersion = labelledVersion(head.labels, label);
    if (previousVersion === undefined) return { accountId, promptId, label, changed: false };
    // The item goes first: the head's map must name every label item there is.
    await table.delete(
      'removeLabel',
      {
        Key: keys.promptLabel(accountId, label, promptId),
        ConditionExpression: 'attribute_not_exists(#revision) OR #revision <= :revision',
        ExpressionAttributeNames: { '#revision': 'labelsRevision' },
        ExpressionAttributeValues: { ':revision': head.labelsRevision ?? 0 },
      },
      // A move made after this read has put its item: the head's condition below fails too, and the loop reads again.
      () => undefined,
    );
    const { [label]: _removed, ...rest } = head.labels ?? {};
    if ((await writeHeadLabels(table, accountId, head, rest)) === undefined) continue;
    if (options.raiseRevision !== false) await bumpPromptsRevision(table, accountId);
    return { accountId, promptId, label, previousVersion, changed: true };
  }
  throw new Error(`removeLabel: the head of prompt ${promptId} kept changing; try again`);
}

/** The prompt's labels, label -> version, deleted prompts' included. */
export async function listLabels(table: AdminTable, accountId: string, promptId: string): Promise<Record<string, string>> {
  const head = await table.get<PromptHeadItem>('listLabels', keys.promptHead(accountId, promptId));
  if (!head) throw new PromptMissingError(accountId, promptId);
  return { ...head.labels };
}

/**
 * Brings every label item's copies of the head's name and deleted flag in step with the head: after a
 * delete, a restore or a rename. Running it again completes one that was interrupted.
 */
export async function syncLabelCopies(table: AdminTable, accountId: string, promptId: string): Promise<void> {
  const head = await table.get<PromptHeadItem>('syncLabelCopies', keys.promptHead(accountId, promptId));
  if (!head) return;
  const deleted = head.deleted === true;
  await Promise.all(
    Object.keys(head.labels ?? {}).map((label) =>
      table.update(
        'syncLabelCopies',
        {
          Key: keys.promptLabel(accountId, label, promptId),
          UpdateExpression: 'SET #promptName = :promptName, #deleted = :deleted',
          ConditionExpression: 'attribute_exists(pk) AND (#promptName <> :promptName OR #deleted <> :deleted)',
          ExpressionAttributeNames: { '#promptName': 'promptName', '#deleted': 'deleted' },
          ExpressionAttributeValues: { ':promptName': head.promptName, ':deleted': deleted },
        },
        // In step already, or its item is not written yet (whoever writes it copies the head as it is then).
        () => undefined,
      ),
    ),
  );
}

function requireSettable(label: string): void {
  if (!isSettableLabel(label)) throw new InvalidLabelError(label, LABEL_RULE);
}

/** The label item shows what the head says, as the head is now. */
function inStep(item: PromptLabelItem | undefined, head: PromptHeadItem, version: string): boolean {
  return item !== undefined && item.labelled.version === version && item.promptName === head.promptName && item.deleted === (head.deleted === true);
}

/**
 * Replaces the head's label map if nothing changed it since `head` was read (and the prompt is not
 * deleted, when a label is added); the new labelsRevision, or undefined when refused.
 */
async function writeHeadLabels(
  table: AdminTable,
  accountId: string,
  head: PromptHeadItem,
  labels: Record<string, string>,
): Promise<number | undefined> {
  const seen = head.labelsRevision;
  const next = (seen ?? 0) + 1;
  const adds = Object.entries(labels).some(([label, version]) => labelledVersion(head.labels, label) !== version);
  const conditions = [seen === undefined ? 'attribute_not_exists(#revision)' : '#revision = :seen', ...(adds ? ['#deleted = :false'] : [])];
  const result = await table.update(
    'writeHeadLabels',
    {
      Key: keys.promptHead(accountId, head.promptId),
      UpdateExpression: 'SET #labels = :labels, #revision = :next',
      ConditionExpression: `attribute_exists(pk) AND ${conditions.join(' AND ')}`,
      ExpressionAttributeNames: { '#labels': 'labels', '#revision': 'labelsRevision', ...(adds ? { '#deleted': 'deleted' } : {}) },
      ExpressionAttributeValues: {
        // A Map: the SDK marshals a plain object with an own `constructor` (a label like any other) as a class instance, and refuses it.
        ':labels': new Map(Object.entries(labels)),
        ':next': next,
        ...(seen === undefined ? {} : { ':seen': seen }),
        ...(adds ? { ':false': false } : {}),
      },
    },
    () => 'refused' as const,
  );
  return result === 'refused' ? undefined : next;
}

function labelItem(
  accountId: string,
  head: PromptHeadItem,
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
