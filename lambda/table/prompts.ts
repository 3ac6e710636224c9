import type { PromptHeadItem, PromptVersionItem } from './item-types';
import { keys, prefixes } from './schema';
import { compareVersions } from '../domain/version';
import { requireAccount } from './accounts';
import { NotFoundError } from './errors';
import { syncLabelCopies } from './labels';
import { bumpPromptsRevision } from './propagation';
import type { AdminTable } from './admin-table';

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
 * labels stay stored. Deleting twice is not an error, and completes a delete that was interrupted. The
 * account's prompt revision then changes on the account and on every key, which every request already
 * reads: copies of the prompt that containers keep in memory are not served again, from the very next
 * request.
 */
export async function deletePrompt(
  table: AdminTable,
  accountId: string,
  promptId: string,
): Promise<{ alreadyDeleted: boolean }> {
  const wasDeleted = await setDeleted(table, accountId, promptId, true);
  await syncLabelCopies(table, accountId, promptId);
  await bumpPromptsRevision(table, accountId);
  return { alreadyDeleted: wasDeleted };
}

/**
 * Makes a deleted prompt visible again, with every version it had published and every label it carried.
 * Restoring twice is not an error. The revision changes too, as for a delete: whatever a container keeps
 * of the account (issue 21 may keep more than pinned versions) is read again.
 */
export async function restorePrompt(
  table: AdminTable,
  accountId: string,
  promptId: string,
): Promise<{ alreadyVisible: boolean }> {
  const wasDeleted = await setDeleted(table, accountId, promptId, false);
  await syncLabelCopies(table, accountId, promptId);
  if (wasDeleted) await bumpPromptsRevision(table, accountId);
  return { alreadyVisible: !wasDeleted };
}

/** Sets the head's `deleted` flag; says whether it was set before. */
async function setDeleted(table: AdminTable, accountId: string, promptId: string, deleted: boolean): Promise<boolean> {
  const result = await table.setOnExisting('setDeleted', keys.promptHead(accountId, promptId), { deleted }, {
    returnValues: 'ALL_OLD',
    onMissing: () => {
      throw new NotFoundError(`account ${accountId} has no prompt ${promptId}`);
    },
  });
  return result.Attributes?.deleted === true;
}

/** The operator's view of an account's prompts: deleted ones and drafts included, ordered by promptId. */
export async function listPromptSummaries(table: AdminTable, accountId: string): Promise<AdminPromptSummary[]> {
  await requireAccount(table, accountId);
  const [heads, versions] = await Promise.all([
    table.queryPartition<PromptHeadItem>('listPromptSummaries', accountId, prefixes.promptHeads),
    table.queryPartition<Pick<PromptVersionItem, 'promptId' | 'version' | 'published'>>(
      'listPromptSummaries',
      accountId,
      prefixes.promptVersions,
      { ProjectionExpression: 'promptId, version, published' },
    ),
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
