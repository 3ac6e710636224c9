import type { PromptDetails, PromptDetailsChange } from '../../domain/prompt-details';
import { NotFoundError } from '../../table/errors';
import type { PromptHeadItem } from '../../table/item-types';
import { keys } from '../../table/schema';
import type { Table } from '../../table/table';
import { buildUpdate } from '../../table/update-expression';
import { labelCopyWrites } from '../labels/labels';
import type { PlannedChange } from '../planned-change';
import { labelsUnchanged } from '../labels/label-move';

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
