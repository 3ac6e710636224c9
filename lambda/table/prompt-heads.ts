import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { labelCopyWrites, labelsUnchanged } from './labels';
import { buildUpdate } from './update-expression';
import type { PromptContent } from '../domain/prompt';
import type { PromptDetails, PromptDetailsChange } from '../domain/prompt-details';
import { versionSortKey } from '../domain/version';
import type { Table } from './table';
import { NotFoundError } from './errors';
import type { PromptHeadItem } from './item-types';
import { keys } from './schema';
import { toStoredContent } from './stored-content';
import type { PlannedChange } from '../features/planned-change';

/**
 * What an import or a publish changes on a prompt's head, field by field: only what it asks to change, so
 * that a delete, a restore or a publish made since the store was read is not undone. `latest` only ever
 * moves up (see writeHead below): two publishes racing each other both land, the higher one as latest.
 */
export interface HeadWrite {
  readonly accountId: string;
  readonly promptId: string;
  readonly promptName?: string;
  readonly deleted?: boolean;
  readonly latest?: PromptContent;
  /** The latest version the plan was made against, for heads written before `latestKey` existed. */
  readonly seenLatestVersion?: string;
}

/**
 * Writes what an import changes on a head. `latest` is set only if it moves up (or the head predates
 * `latestKey` and still shows what the plan saw); when a racing publish has put a higher version there,
 * the rest of the change is still written.
 */
export async function writeHead(table: Table, head: HeadWrite): Promise<void> {
  // Undefined fields are left out: what the import does not change stays as it is.
  const fields = { type: 'prompt', promptId: head.promptId, promptName: head.promptName, deleted: head.deleted };
  const Key = keys.promptHead(head.accountId, head.promptId);
  const fieldsOnly: Omit<UpdateCommandInput, 'TableName'> = { Key, ...buildUpdate({ set: fields }) };
  if (head.latest === undefined) {
    await table.update('writeHead', fieldsOnly);
    return;
  }
  const latestKey = versionSortKey(head.latest.version);
  const seen = head.seenLatestVersion;
  await table.update(
    'writeHead',
    {
      Key,
      ...buildUpdate({
        set: { ...fields, latest: toStoredContent(head.latest), latestKey },
        condition: (e) => {
          const legacy = seen === undefined ? '' : ` OR attribute_not_exists(${e.name('latestKey')}) AND ${e.name('latest.version')} = ${e.value(seen)}`;
          return `attribute_not_exists(${e.name('latest')}) OR ${e.name('latestKey')} < ${e.value(latestKey)}${legacy}`;
        },
      }),
    },
    // A higher version is latest already: write the rest of the change.
    () => table.update('writeHead', fieldsOnly),
  );
}

/** The details a head holds, as people read them. */
export function detailsOf(head: Pick<PromptHeadItem, 'promptName' | 'description' | 'tags'>): PromptDetails {
  return { promptName: head.promptName, description: head.description ?? null, tags: head.tags ?? [] };
}

/**
 * Sets the prompt's name, description and tags (each field given; an empty description or tag list removes it)
 * on its head, deleted or not. A new name is what the read API serves: the label items' copies of it change in
 * the same transaction, and the account's prompt revision is raised with them.
 */
export async function planUpdatePromptDetails(
  table: Table,
  accountId: string,
  promptId: string,
  change: PromptDetailsChange,
  by: string,
): Promise<PlannedChange<PromptDetails>> {
  const head = await table.get<PromptHeadItem>('updatePromptDetails', keys.promptHead(accountId, promptId));
  if (!head) throw new NotFoundError(`account ${accountId} has no prompt ${promptId}`);
  const before = detailsOf(head);
  const after: PromptDetails = {
    promptName: change.promptName ?? before.promptName,
    description: change.description === undefined ? before.description : change.description || null,
    tags: change.tags === undefined ? before.tags : [...new Set(change.tags)],
  };
  const renamed = after.promptName !== before.promptName;
  const copies = renamed ? await labelCopyWrites(table, accountId, head, { promptName: after.promptName, deleted: head.deleted === true }) : [];
  return {
    writes: [
      {
        Update: {
          Key: keys.promptHead(accountId, promptId),
          ...buildUpdate({
            set: {
              updatedAt: table.timestamp(),
              updatedBy: by,
              promptName: change.promptName,
              ...(after.description === null ? {} : { description: after.description }),
              ...(after.tags.length === 0 ? {} : { tags: after.tags }),
            },
            remove: [...(after.description === null ? ['description'] : []), ...(after.tags.length === 0 ? ['tags'] : [])],
            condition: (e) => `attribute_exists(${e.name('pk')}) AND ${labelsUnchanged(e, head)}`,
          }),
        },
      },
      ...copies,
    ],
    result: after,
    before: { ...before },
    after: { ...after },
    visible: renamed,
  };
}
