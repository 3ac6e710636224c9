import type { PromptHeadItem, PromptVersionItem } from '../../table/item-types';
import { keys, prefixes } from '../../table/schema';
import { compareVersions } from '../../domain/version';
import { requireAccount } from '../accounts/accounts';
import { NotFoundError } from '../../table/errors';
import { labelCopyWrites } from '../labels/labels';
import type { Table } from '../../table/table';
import { buildUpdate } from '../../table/update-expression';
import type { PlannedChange } from '../planned-change';
import { labelsUnchanged } from '../labels/label-move';

export interface AdminPromptSummary {
  promptId: string;
  promptName: string;
  deleted: boolean;
  /** The version the API serves as latest; absent while nothing is published. */
  latestVersion?: string;
  /** Every stored version, drafts included, in semantic-version order. */
  versions: { version: string; published: boolean }[];
  /** label -> version; a deleted prompt keeps its labels, which a restore brings back. */
  labels: Record<string, string>;
}

/**
 * Hides the prompt from the API, at latest, at every version and under every label; its versions and
 * labels stay stored. One transaction: the head's flag and every label item's copy of it, with the
 * account's raised prompt revision, so copies of the prompt that containers keep in memory are not served
 * again from the very next request. Deleting a deleted prompt writes nothing.
 */
export function planDeletePrompt(table: Table, accountId: string, promptId: string): Promise<PlannedChange<{ alreadyDeleted: boolean }>> {
  return planDeleted(table, accountId, promptId, true, (was) => ({ alreadyDeleted: was }));
}

/** Makes a deleted prompt visible again, with every version it had published and every label it carried; as a delete. */
export function planRestorePrompt(table: Table, accountId: string, promptId: string): Promise<PlannedChange<{ alreadyVisible: boolean }>> {
  return planDeleted(table, accountId, promptId, false, (was) => ({ alreadyVisible: !was }));
}

async function planDeleted<T>(
  table: Table,
  accountId: string,
  promptId: string,
  deleted: boolean,
  resultOf: (wasDeleted: boolean) => T,
): Promise<PlannedChange<T>> {
  const head = await table.get<PromptHeadItem>('setDeleted', keys.promptHead(accountId, promptId));
  if (!head) throw new NotFoundError(`account ${accountId} has no prompt ${promptId}`);
  const wasDeleted = head.deleted === true;
  const after = { deleted };
  const copies = await labelCopyWrites(table, accountId, head, { promptName: head.promptName, deleted });
  if (wasDeleted === deleted && copies.length === 0) return { writes: [], result: resultOf(wasDeleted), after };
  return {
    writes: [
      {
        Update: {
          Key: keys.promptHead(accountId, promptId),
          ...buildUpdate({ set: { deleted }, condition: (e) => `attribute_exists(${e.name('pk')}) AND ${labelsUnchanged(e, head)}` }),
        },
      },
      ...copies,
    ],
    result: resultOf(wasDeleted),
    after,
    visible: true,
  };
}

/** The operator's view of an account's prompts: deleted ones and drafts included, ordered by promptId. */
export async function listPromptSummaries(table: Table, accountId: string): Promise<AdminPromptSummary[]> {
  await requireAccount(table, accountId);
  const [heads, versions] = await Promise.all([
    table.queryPartition<PromptHeadItem>('listPromptSummaries', accountId, prefixes.promptHeads),
    table.queryPartition<Pick<PromptVersionItem, 'promptId' | 'version' | 'published'>>('listPromptSummaries', accountId, prefixes.promptVersions, {
      ProjectionExpression: 'promptId, version, published',
    }),
  ]);
  const versionsOf = new Map<string, { version: string; published: boolean }[]>();
  for (const { promptId, version, published } of versions) {
    const list = versionsOf.get(promptId) ?? [];
    list.push({ version, published: published === true });
    versionsOf.set(promptId, list);
  }
  return heads.map((head) => ({
    promptId: head.promptId,
    promptName: head.promptName,
    deleted: head.deleted === true,
    ...(head.latest ? { latestVersion: head.latest.version } : {}),
    versions: (versionsOf.get(head.promptId) ?? []).sort((a, b) => compareVersions(a.version, b.version)),
    labels: { ...head.labels },
  }));
}
