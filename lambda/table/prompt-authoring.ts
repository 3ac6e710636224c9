import type { PromptHeadItem, PromptVersionItem, WithKeys } from './item-types';
import { keys, prefixes } from './schema';
import type { PromptConfig, PromptContent } from '../domain/prompt';
import { compareVersions } from '../domain/version';
import { ConflictError, deletedPromptMessage, ImmutableVersionError, NotFoundError } from './errors';
import { writeHead } from './prompt-heads';
import { contentEtag, contentOf, versionItem } from './item-builders';
import { bumpPromptsRevision } from './propagation';
import { fromStoredContent } from './stored-content';
import type { AdminTable } from './admin-table';

/**
 * Authoring through the management API: prompts, drafts with ETags, publishing a draft. Drafts are
 * version items with `published: false`; saving over one, deleting it or publishing it is conditional
 * on the ETag the caller read (docs/data-model.md).
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

export async function createPrompt(
  table: AdminTable,
  accountId: string,
  prompt: { promptId: string; promptName: string },
  by: string,
): Promise<PromptListEntry> {
  const at = table.timestamp();
  const item: WithKeys<PromptHeadItem> = {
    ...keys.promptHead(accountId, prompt.promptId),
    type: 'prompt',
    promptId: prompt.promptId,
    promptName: prompt.promptName,
    deleted: false,
    updatedAt: at,
    updatedBy: by,
  };
  await table.put('createPrompt', { Item: item, ConditionExpression: 'attribute_not_exists(pk)' }, () => {
    throw new ConflictError(`prompt ${prompt.promptId} exists already (deleted or not)`);
  });
  return toListEntry(item, []);
}

/** Every prompt of the account, drafts-only and deleted ones included, by promptId. */
export async function listPrompts(table: AdminTable, accountId: string): Promise<PromptListEntry[]> {
  const [heads, versions] = await Promise.all([
    table.queryPartition<PromptHeadItem>('listPrompts', accountId, prefixes.promptHeads, {
      ConsistentRead: true,
      ...projection(['promptId', 'promptName', 'description', 'tags', 'deleted', 'latest.version', 'labels', 'updatedAt', 'updatedBy']),
    }),
    table.queryPartition<Pick<PromptVersionItem, 'promptId' | 'version' | 'published'>>('listPrompts', accountId, prefixes.promptVersions, {
      ConsistentRead: true,
      ...projection(['promptId', 'version', 'published']),
    }),
  ]);
  const drafts = new Map<string, string[]>();
  for (const version of versions) {
    if (version.published) continue;
    drafts.set(version.promptId, [...(drafts.get(version.promptId) ?? []), version.version]);
  }
  return heads.map((head) => toListEntry(head, drafts.get(head.promptId) ?? []));
}

export async function getPromptDetail(table: AdminTable, accountId: string, promptId: string): Promise<PromptDetail> {
  const [head, versions] = await Promise.all([
    requireHead(table, accountId, promptId),
    table.queryPartition<PromptVersionItem>('getPromptDetail', accountId, prefixes.versionsOf(promptId), {
      ConsistentRead: true,
      ...projection(['version', 'published', 'publishedAt', 'publishedBy', 'note', 'updatedAt', 'updatedBy']),
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

export async function readVersion(table: AdminTable, accountId: string, promptId: string, version: string): Promise<StoredVersionContent> {
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
export async function createDraft(
  table: AdminTable,
  accountId: string,
  promptId: string,
  version: string,
  content: VersionContent,
  by: string,
): Promise<StoredVersionContent> {
  await requireHead(table, accountId, promptId);
  const item: WithKeys<PromptVersionItem> = {
    ...versionItem(accountId, promptId, { version, ...content, published: false }),
    updatedAt: table.timestamp(),
    updatedBy: by,
  };
  await table.put('createDraft', { Item: item, ConditionExpression: 'attribute_not_exists(pk)' }, async () => {
    const stored = await table.get<PromptVersionItem>('createDraft', keys.promptVersion(accountId, promptId, version));
    if (stored?.published) throw publishedError(promptId, version);
    throw new StaleDraftError(`version ${version} of prompt ${promptId} exists already as a draft`, stored && currentOf(stored));
  });
  await touchHead(table, accountId, promptId, by);
  return { ...contentOf(fromStoredContent(item)), version, published: false, etag: String(item.etag), updatedAt: item.updatedAt ?? null, updatedBy: by };
}

/** Saves over a draft the caller read with `ifMatch`; someone's save in between is a StaleDraftError, and nothing is lost. */
export async function replaceDraft(
  table: AdminTable,
  accountId: string,
  promptId: string,
  version: string,
  content: VersionContent,
  ifMatch: string,
  by: string,
): Promise<{ before: string; after: StoredVersionContent }> {
  const stored = await requireDraftMatching(table, accountId, promptId, version, ifMatch);
  const next = versionItem(accountId, promptId, { version, ...content, published: false });
  const at = table.timestamp();
  await table.update(
    'replaceDraft',
    {
      Key: keys.promptVersion(accountId, promptId, version),
      UpdateExpression:
        'SET systemMessage = :systemMessage, userMessage = :userMessage, #config = :config, #etag = :etag, updatedAt = :at, updatedBy = :by',
      ...draftCondition(stored),
      ExpressionAttributeNames: { '#config': 'config', ...draftCondition(stored).ExpressionAttributeNames },
      ExpressionAttributeValues: {
        ':systemMessage': next.systemMessage,
        ':userMessage': next.userMessage,
        ':config': next.config,
        ':etag': next.etag,
        ':at': at,
        ':by': by,
        ...draftCondition(stored).ExpressionAttributeValues,
      },
    },
    () => changedMeanwhile(table, accountId, promptId, version),
  );
  await touchHead(table, accountId, promptId, by);
  return {
    before: storedTag(stored),
    after: { ...contentOf(fromStoredContent(next)), version, published: false, etag: String(next.etag), updatedAt: at, updatedBy: by },
  };
}

export async function deleteDraft(
  table: AdminTable,
  accountId: string,
  promptId: string,
  version: string,
  ifMatch: string,
  by: string,
): Promise<void> {
  const stored = await requireDraftMatching(table, accountId, promptId, version, ifMatch);
  await table.delete('deleteDraft', { Key: keys.promptVersion(accountId, promptId, version), ...draftCondition(stored) }, () =>
    changedMeanwhile(table, accountId, promptId, version),
  );
  await touchHead(table, accountId, promptId, by);
}

/**
 * The draft the caller read becomes an immutable published version; the head's latest then moves up
 * to it if it is the highest (only ever up, however many publishes race).
 */
export async function publishDraft(
  table: AdminTable,
  accountId: string,
  promptId: string,
  version: string,
  ifMatch: string,
  note: string,
  by: string,
): Promise<VersionSummary> {
  const head = await requireHead(table, accountId, promptId);
  if (head.deleted) throw new ConflictError(deletedPromptMessage(accountId, promptId));
  const stored = await requireDraftMatching(table, accountId, promptId, version, ifMatch);
  const at = table.timestamp();
  const condition = draftCondition(stored);
  await table.update(
    'publishDraft',
    {
      Key: keys.promptVersion(accountId, promptId, version),
      UpdateExpression: 'SET #published = :true, publishedAt = :at, publishedBy = :by, note = :note',
      ConditionExpression: condition.ConditionExpression,
      ExpressionAttributeNames: condition.ExpressionAttributeNames,
      ExpressionAttributeValues: { ...condition.ExpressionAttributeValues, ':true': true, ':at': at, ':by': by, ':note': note },
    },
    () => changedMeanwhile(table, accountId, promptId, version),
  );
  await writeHead(table, {
    accountId,
    promptId,
    latest: contentOf(fromStoredContent(stored)),
    ...(head.latest ? { seenLatestVersion: head.latest.version } : {}),
  });
  await touchHead(table, accountId, promptId, by);
  // Latest, the lists and publishedVersions change: functions keep them in memory under the revision.
  await bumpPromptsRevision(table, accountId);
  return { version, published: true, publishedAt: at, publishedBy: by, note, updatedAt: stored.updatedAt ?? null, updatedBy: stored.updatedBy ?? null };
}

/** A ProjectionExpression naming every attribute by placeholder, so no reserved word can trip it. */
function projection(paths: readonly string[]) {
  const names: Record<string, string> = {};
  const expression = paths.map((path) =>
    path
      .split('.')
      .map((part) => {
        names[`#${part}`] = part;
        return `#${part}`;
      })
      .join('.'),
  );
  return { ProjectionExpression: expression.join(', '), ExpressionAttributeNames: names };
}

export async function requireHead(table: AdminTable, accountId: string, promptId: string): Promise<PromptHeadItem> {
  const head = await table.get<PromptHeadItem>('requireHead', keys.promptHead(accountId, promptId));
  if (!head) throw new NotFoundError(`account ${accountId} has no prompt ${promptId}`);
  return head;
}

/** Who changed the prompt last, for its listing. */
export async function touchHead(table: AdminTable, accountId: string, promptId: string, by: string): Promise<void> {
  await table.setOnExisting('touchHead', keys.promptHead(accountId, promptId), { updatedAt: table.timestamp(), updatedBy: by }, {
    onMissing: () => undefined,
  });
}

async function requireDraftMatching(
  table: AdminTable,
  accountId: string,
  promptId: string,
  version: string,
  ifMatch: string,
): Promise<PromptVersionItem> {
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
function draftCondition(stored: PromptVersionItem) {
  return stored.etag === undefined
    ? {
        ConditionExpression: '#published = :false AND attribute_not_exists(#etag)',
        ExpressionAttributeNames: { '#published': 'published', '#etag': 'etag' },
        ExpressionAttributeValues: { ':false': false } as Record<string, unknown>,
      }
    : {
        ConditionExpression: '#published = :false AND #etag = :seen',
        ExpressionAttributeNames: { '#published': 'published', '#etag': 'etag' },
        ExpressionAttributeValues: { ':false': false, ':seen': stored.etag } as Record<string, unknown>,
      };
}

async function changedMeanwhile(table: AdminTable, accountId: string, promptId: string, version: string): Promise<never> {
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
