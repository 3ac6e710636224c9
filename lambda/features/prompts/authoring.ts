import type { PromptHeadItem, PromptVersionItem, WithKeys } from '../../table/item-types';
import { keys, prefixes } from '../../table/schema';
import type { PromptConfig, PromptContent } from '../../domain/prompt';
import { compareVersions } from '../../domain/version';
import { ConflictError, NotFoundError } from '../../table/errors';
import { contentEtag, contentOf, versionItem } from '../../table/item-builders';
import { fromStoredContent } from '../../table/stored-content';
import type { Table } from '../../table/table';
import type { TransactionWrite } from '../../table/transaction';
import { buildCondition, buildProjection, buildUpdate, type ExpressionNames } from '../../table/update-expression';
import type { PlannedChange } from '../planned-change';
import { publishDraft } from './publishing';
import { ImmutableVersionError, deletedPromptMessage } from '../errors';

/**
 * Authoring through the management API: prompts, drafts with ETags, publishing a draft (as publishing.ts publishes
 * every version). Drafts are version items with `published: false`; saving over one, deleting it or publishing it is
 * conditional on the ETag the caller read (docs/data-model.md).
 */

export type VersionContent = Omit<PromptContent, 'version'>;

/** Someone saved the draft since the caller read it: what they saved and who, so nothing is lost. */
export class StaleDraftError extends Error {
  override readonly name = 'StaleDraftError';
  constructor(
    message: string,
    readonly current: { etag: string; updatedAt?: string; updatedBy?: string } | undefined,
  ) {
    super(message);
  }
}

export interface PromptListEntry {
  promptId: string;
  promptName: string;
  description: string | null;
  tags: string[];
  deleted: boolean;
  latestVersion: string | null;
  labels: Record<string, string>;
  drafts: string[];
  updatedAt: string | null;
  updatedBy: string | null;
}

export interface VersionSummary {
  version: string;
  published: boolean;
  publishedAt: string | null;
  publishedBy: string | null;
  note: string | null;
  updatedAt: string | null;
  updatedBy: string | null;
}

export interface PromptDetail extends Omit<PromptListEntry, 'drafts'> {
  versions: VersionSummary[];
}

export interface StoredVersionContent {
  version: string;
  published: boolean;
  systemMessage: string;
  userMessage: string;
  config: PromptConfig;
  etag: string;
  updatedAt: string | null;
  updatedBy: string | null;
}

/** A new prompt: its head, nothing published yet. */
export async function planCreatePrompt(
  table: Table,
  accountId: string,
  prompt: { promptId: string; promptName: string },
  by: string,
): Promise<PlannedChange<PromptListEntry>> {
  const item: WithKeys<PromptHeadItem> = {
    ...keys.promptHead(accountId, prompt.promptId),
    type: 'prompt',
    promptId: prompt.promptId,
    promptName: prompt.promptName,
    deleted: false,
    updatedAt: table.timestamp(),
    updatedBy: by,
  };
  return {
    writes: [{ Put: { Item: item, ConditionExpression: 'attribute_not_exists(pk)' } }],
    result: toListEntry(item, []),
    after: { promptName: prompt.promptName },
    refused: () => new ConflictError(`prompt ${prompt.promptId} exists already (deleted or not)`),
  };
}

/** Every prompt of the account, drafts-only and deleted ones included, by promptId. */
export async function listPrompts(table: Table, accountId: string): Promise<PromptListEntry[]> {
  const [heads, versions] = await Promise.all([
    table.queryPartition<PromptHeadItem>('listPrompts', accountId, prefixes.promptHeads, {
      ConsistentRead: true,
      ...buildProjection(['promptId', 'promptName', 'description', 'tags', 'deleted', 'latest.version', 'labels', 'updatedAt', 'updatedBy']),
    }),
    table.queryPartition<Pick<PromptVersionItem, 'promptId' | 'version' | 'published'>>('listPrompts', accountId, prefixes.promptVersions, {
      ConsistentRead: true,
      ...buildProjection(['promptId', 'version', 'published']),
    }),
  ]);
  const drafts = new Map<string, string[]>();
  for (const version of versions) {
    if (version.published) continue;
    drafts.set(version.promptId, [...(drafts.get(version.promptId) ?? []), version.version]);
  }
  return heads.map((head) => toListEntry(head, drafts.get(head.promptId) ?? []));
}

export async function getPromptDetail(table: Table, accountId: string, promptId: string): Promise<PromptDetail> {
  const [head, versions] = await Promise.all([
    requireHead(table, accountId, promptId),
    table.queryPartition<PromptVersionItem>('getPromptDetail', accountId, prefixes.versionsOf(promptId), {
      ConsistentRead: true,
      ...buildProjection(['version', 'published', 'publishedAt', 'publishedBy', 'note', 'updatedAt', 'updatedBy']),
    }),
  ]);
  const { drafts: _drafts, ...entry } = toListEntry(head, []);
  return {
    ...entry,
    versions: versions
      .map((item) => ({
        version: item.version,
        published: item.published === true,
        publishedAt: item.publishedAt ?? null,
        publishedBy: item.publishedBy ?? null,
        note: item.note ?? null,
        updatedAt: item.updatedAt ?? null,
        updatedBy: item.updatedBy ?? null,
      }))
      .sort((a, b) => compareVersions(a.version, b.version)),
  };
}

export async function readVersion(table: Table, accountId: string, promptId: string, version: string): Promise<StoredVersionContent> {
  await requireHead(table, accountId, promptId);
  const item = await table.get<PromptVersionItem>('readVersion', keys.promptVersion(accountId, promptId, version));
  if (!item) throw new NotFoundError(`prompt ${promptId} has no version ${version}`);
  const content = contentOf(fromStoredContent(item));
  return {
    version: item.version,
    published: item.published === true,
    systemMessage: content.systemMessage,
    userMessage: content.userMessage,
    config: content.config,
    etag: item.etag ?? contentEtag(fromStoredContent(item)),
    updatedAt: item.updatedAt ?? null,
    updatedBy: item.updatedBy ?? null,
  };
}

/** A new draft: refused if the version exists (409 when it is published, 412 when it is a draft). */
export async function planCreateDraft(
  table: Table,
  accountId: string,
  promptId: string,
  version: string,
  content: VersionContent,
  by: string,
): Promise<PlannedChange<StoredVersionContent>> {
  await requireHead(table, accountId, promptId);
  const at = table.timestamp();
  const item: WithKeys<PromptVersionItem> = { ...versionItem(accountId, promptId, { version, ...content, published: false }), updatedAt: at, updatedBy: by };
  return {
    writes: [{ Put: { Item: item, ConditionExpression: 'attribute_not_exists(pk)' } }, touchHeadWrite(accountId, promptId, at, by)],
    result: { ...contentOf(fromStoredContent(item)), version, published: false, etag: String(item.etag), updatedAt: at, updatedBy: by },
    after: { etag: item.etag },
    refused: async (error) => {
      if (!error.failedAt(0)) return new NotFoundError(`account ${accountId} has no prompt ${promptId}`);
      const stored = await table.get<PromptVersionItem>('createDraft', keys.promptVersion(accountId, promptId, version));
      if (stored?.published) return publishedError(promptId, version);
      return new StaleDraftError(`version ${version} of prompt ${promptId} exists already as a draft`, stored && currentOf(stored));
    },
  };
}

/** Saves over a draft the caller read with `ifMatch`; someone's save in between is a StaleDraftError, and nothing is lost. */
export async function planReplaceDraft(
  table: Table,
  accountId: string,
  promptId: string,
  version: string,
  content: VersionContent,
  ifMatch: string,
  by: string,
): Promise<PlannedChange<StoredVersionContent>> {
  const stored = await requireDraftMatching(table, accountId, promptId, version, ifMatch);
  const next = versionItem(accountId, promptId, { version, ...content, published: false });
  const at = table.timestamp();
  return {
    writes: [
      {
        Update: {
          Key: keys.promptVersion(accountId, promptId, version),
          ...buildUpdate({
            set: { systemMessage: next.systemMessage, userMessage: next.userMessage, config: next.config, etag: next.etag, updatedAt: at, updatedBy: by },
            condition: (e) => draftCondition(e, stored),
          }),
        },
      },
      touchHeadWrite(accountId, promptId, at, by),
    ],
    result: { ...contentOf(fromStoredContent(next)), version, published: false, etag: String(next.etag), updatedAt: at, updatedBy: by },
    after: { etag: next.etag },
    refused: () => changedMeanwhile(table, accountId, promptId, version),
  };
}

export async function planDeleteDraft(
  table: Table,
  accountId: string,
  promptId: string,
  version: string,
  ifMatch: string,
  by: string,
): Promise<PlannedChange<void>> {
  const stored = await requireDraftMatching(table, accountId, promptId, version, ifMatch);
  return {
    writes: [
      { Delete: { Key: keys.promptVersion(accountId, promptId, version), ...buildCondition((e) => draftCondition(e, stored)) } },
      touchHeadWrite(accountId, promptId, table.timestamp(), by),
    ],
    result: undefined,
    refused: () => changedMeanwhile(table, accountId, promptId, version),
  };
}

/**
 * The draft the caller read becomes an immutable published version, and the head's latest moves up to it
 * if it is the highest, in one transaction conditional on the draft's ETag and, when it moves latest, on latest
 * still being lower (a racing publish of a higher version makes it read again, so latest only ever moves up).
 */
export async function planPublishDraft(
  table: Table,
  accountId: string,
  promptId: string,
  version: string,
  ifMatch: string,
  note: string,
  by: string,
): Promise<PlannedChange<VersionSummary>> {
  const head = await requireHead(table, accountId, promptId);
  if (head.deleted) throw new ConflictError(deletedPromptMessage(accountId, promptId));
  const stored = await requireDraftMatching(table, accountId, promptId, version, ifMatch);
  const at = table.timestamp();
  const publication = publishDraft(accountId, head, stored, (e) => draftCondition(e, stored), { note, at, by });
  return {
    writes: [
      publication.versionWrite,
      {
        Update: {
          Key: keys.promptHead(accountId, promptId),
          ...buildUpdate({
            set: { updatedAt: at, updatedBy: by, ...publication.headSet },
            condition: (e) => [`attribute_exists(${e.name('pk')})`, ...publication.headConditions(e)].join(' AND '),
          }),
        },
      },
    ],
    result: { version, published: true, publishedAt: at, publishedBy: by, note, updatedAt: stored.updatedAt ?? null, updatedBy: stored.updatedBy ?? null },
    after: { published: true, note },
    // Latest, the lists and publishedVersions change: functions keep them in memory under the revision.
    visible: true,
    refused: (error) => (error.failedAt(0) ? changedMeanwhile(table, accountId, promptId, version) : 'again'),
  };
}

export async function requireHead(table: Table, accountId: string, promptId: string): Promise<PromptHeadItem> {
  const head = await table.get<PromptHeadItem>('requireHead', keys.promptHead(accountId, promptId));
  if (!head) throw new NotFoundError(`account ${accountId} has no prompt ${promptId}`);
  return head;
}

/** Who changed the prompt last, for its listing: one write of the change's transaction. */
export function touchHeadWrite(accountId: string, promptId: string, at: string, by: string): TransactionWrite {
  return {
    Update: {
      Key: keys.promptHead(accountId, promptId),
      ...buildUpdate({ set: { updatedAt: at, updatedBy: by }, condition: (e) => `attribute_exists(${e.name('pk')})` }),
    },
  };
}

async function requireDraftMatching(table: Table, accountId: string, promptId: string, version: string, ifMatch: string): Promise<PromptVersionItem> {
  await requireHead(table, accountId, promptId);
  const stored = await table.get<PromptVersionItem>('readDraft', keys.promptVersion(accountId, promptId, version));
  if (!stored) throw new NotFoundError(`prompt ${promptId} has no version ${version}`);
  if (stored.published) throw publishedError(promptId, version);
  if (storedTag(stored) !== ifMatch) {
    throw new StaleDraftError(`the draft ${version} of prompt ${promptId} was saved since you read it`, currentOf(stored));
  }
  return stored;
}

const storedTag = (stored: PromptVersionItem): string => stored.etag ?? contentEtag(fromStoredContent(stored));

/** Still a draft, with the tag that was read (drafts written before tags were stored have none). */
function draftCondition(e: ExpressionNames, stored: PromptVersionItem): string {
  const tag = stored.etag === undefined ? `attribute_not_exists(${e.name('etag')})` : `${e.name('etag')} = ${e.value(stored.etag)}`;
  return `${e.name('published')} = ${e.value(false)} AND ${tag}`;
}

async function changedMeanwhile(table: Table, accountId: string, promptId: string, version: string): Promise<never> {
  const now = await table.get<PromptVersionItem>('readDraft', keys.promptVersion(accountId, promptId, version));
  if (!now) throw new NotFoundError(`prompt ${promptId} has no version ${version}`);
  if (now.published) throw publishedError(promptId, version);
  throw new StaleDraftError(`the draft ${version} of prompt ${promptId} was saved since you read it`, currentOf(now));
}

const currentOf = (stored: PromptVersionItem) => ({
  etag: storedTag(stored),
  ...(stored.updatedAt ? { updatedAt: stored.updatedAt } : {}),
  ...(stored.updatedBy ? { updatedBy: stored.updatedBy } : {}),
});

const publishedError = (promptId: string, version: string) =>
  new ImmutableVersionError(`version ${version} of prompt ${promptId} is published and cannot change: save a new version instead`);

function toListEntry(
  head: Pick<PromptHeadItem, 'promptId' | 'promptName' | 'description' | 'tags' | 'deleted' | 'labels' | 'updatedAt' | 'updatedBy'> & {
    latest?: { version: string };
  },
  drafts: string[],
): PromptListEntry {
  return {
    promptId: head.promptId,
    promptName: head.promptName,
    description: head.description ?? null,
    tags: head.tags ?? [],
    deleted: head.deleted === true,
    latestVersion: head.latest?.version ?? null,
    labels: head.labels ?? {},
    drafts: drafts.sort(compareVersions),
    updatedAt: head.updatedAt ?? null,
    updatedBy: head.updatedBy ?? null,
  };
}
