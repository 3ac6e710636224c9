import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Prompt, PromptWithVersions, PublishedVersion } from '../../domain/prompt';
import { batchGetItems, getItem, partitionQuery, queryAll } from '../../table/calls';
import type { StoreClients } from '../../table/client';
import type { LabelRollout, PromptHeadItem, PromptLabelItem, PromptVersionItem, StoredContent } from '../../table/item-types';
import { keys, prefixes } from '../../table/schema';
import { fromStoredContent } from '../../table/stored-content';
import { buildProjection } from '../../table/update-expression';
import type { AtLabel, Deadline, PromptLookup, PromptReader, PromptStore, RolloutAtLabel } from './api-store';

/**
 * What a read at a label takes of the prompt's head and of its label item, fetched together: of the head,
 * whether it is visible (not its copy of latest, which may be large); of the label item, its content.
 */
const LABEL_READ = { projection: buildProjection(['sk', 'promptId', 'promptName', 'deleted', 'latest.version', 'labelled', 'rollout']) };

/** Version items as the lists with `include_versions` read them: published ones, without their content. */
const PUBLISHED_VERSIONS_QUERY: Partial<QueryCommandInput> = {
  ProjectionExpression: 'promptId, version, userMessage, published',
  FilterExpression: 'published = :true',
  ExpressionAttributeValues: { ':true': true },
};

/**
 * The read API's reads of prompts. Visibility (a prompt's head, the list) is read strongly consistent: a delete
 * applies from the very next request, not whenever a replica catches up.
 */
export class DynamoPromptStore implements PromptStore {
  constructor(
    private readonly clients: Pick<StoreClients, 'reads'>,
    private readonly tableName: string,
  ) {}

  async findLatestPrompt({ accountId, deadline }: PromptReader, promptId: string): Promise<PromptLookup> {
    const head = await this.getItem<PromptHeadItem>('findLatestPrompt', keys.promptHead(accountId, promptId), deadline);
    if (!isVisible(head)) return { found: false, reason: 'prompt-not-found' };
    return { found: true, prompt: toPrompt(head, head.latest) };
  }

  async findPromptVersion({ accountId, deadline }: PromptReader, promptId: string, version: string): Promise<PromptLookup> {
    const [head, item] = await Promise.all([
      this.getItem<PromptHeadItem>('findPromptVersion', keys.promptHead(accountId, promptId), deadline),
      // A published version never changes, and an unpublished one is never served: any replica will do.
      this.getItem<PromptVersionItem>('findPromptVersion', keys.promptVersion(accountId, promptId, version), deadline, false),
    ]);
    if (!isVisible(head)) return { found: false, reason: 'prompt-not-found' };
    if (!item?.published) return { found: false, reason: 'version-not-found' };
    return { found: true, prompt: toPrompt(head, item) };
  }

  async findLabelledPrompt({ accountId, deadline }: PromptReader, promptId: string, label: string): Promise<PromptLookup> {
    const headKey = keys.promptHead(accountId, promptId);
    // One round trip for both, as latest takes one: the head says whether the prompt is visible at all
    // (NOT_FOUND), the label item what the label points at (LABEL_NOT_FOUND without it).
    const items = await batchGetItems<{ sk: string } & Partial<PromptHeadItem & PromptLabelItem>>(
      this.clients.reads,
      this.tableName,
      'findLabelledPrompt',
      [headKey, keys.promptLabel(accountId, label, promptId)],
      { abortSignal: deadline, ...LABEL_READ },
    );
    // Of its copy of latest only the version was read: enough to tell that one is published.
    const head = items.find((item) => item.sk === headKey.sk) as PromptHeadItem | undefined;
    const labelItem = items.find((item) => item.sk !== headKey.sk);
    if (!isVisible(head)) return { found: false, reason: 'prompt-not-found' };
    if (!labelItem?.labelled) return { found: false, reason: 'label-not-found' };
    return { found: true, ...atLabel(head, labelItem.labelled, labelItem.rollout) };
  }

  async listPrompts({ accountId, deadline }: PromptReader): Promise<Prompt[]> {
    const heads = await this.queryAll<PromptHeadItem>('listPrompts', accountId, prefixes.promptHeads, deadline);
    return heads.filter(isVisible).map((head) => toPrompt(head, head.latest));
  }

  async listPromptsWithVersions({ accountId, deadline }: PromptReader): Promise<PromptWithVersions[]> {
    // Heads and versions are separate ranges of the partition: page through both at once.
    const [heads, versions] = await Promise.all([
      this.queryAll<PromptHeadItem>('listPromptsWithVersions', accountId, prefixes.promptHeads, deadline),
      this.queryAll<PublishedVersionRow>('listPromptsWithVersions', accountId, prefixes.promptVersions, deadline, PUBLISHED_VERSIONS_QUERY),
    ]);
    const publishedByPrompt = groupByPrompt(versions);
    return heads.filter(isVisible).map((head) => ({
      ...toPrompt(head, head.latest),
      publishedVersions: publishedByPrompt.get(head.promptId) ?? [],
    }));
  }

  async listLabelledPrompts({ accountId, deadline }: PromptReader, label: string): Promise<AtLabel<Prompt>[]> {
    const items = await this.queryAll<PromptLabelItem>('listLabelledPrompts', accountId, prefixes.labelled(label), deadline);
    return items.filter((item) => !item.deleted).map(labelledPromptOf);
  }

  async listLabelledPromptsWithVersions({ accountId, deadline }: PromptReader, label: string): Promise<AtLabel<PromptWithVersions>[]> {
    const [items, versions] = await Promise.all([
      this.queryAll<PromptLabelItem>('listLabelledPromptsWithVersions', accountId, prefixes.labelled(label), deadline),
      this.queryAll<PublishedVersionRow>('listLabelledPromptsWithVersions', accountId, prefixes.promptVersions, deadline, PUBLISHED_VERSIONS_QUERY),
    ]);
    const publishedByPrompt = groupByPrompt(versions);
    return items.filter((item) => !item.deleted).map((item) => ({ ...labelledPromptOf(item), publishedVersions: publishedByPrompt.get(item.promptId) ?? [] }));
  }

  private getItem<T>(callName: string, key: Record<string, string>, deadline: Deadline, consistent = true): Promise<T | undefined> {
    return getItem<T>(this.clients.reads, this.tableName, callName, key, { abortSignal: deadline, consistent });
  }

  private queryAll<T>(callName: string, accountId: string, skPrefix: string, deadline: Deadline, extra: Partial<QueryCommandInput> = {}): Promise<T[]> {
    const input = partitionQuery(this.tableName, accountId, skPrefix, { ConsistentRead: true, ...extra });
    return queryAll<T>(this.clients.reads, callName, input, { abortSignal: deadline });
  }
}

type PublishedVersionRow = Pick<PromptVersionItem, 'promptId' | 'version' | 'userMessage'>;

/** Version items sort by zero-padded version within each prompt, so each list arrives in semver order. */
function groupByPrompt(versions: readonly PublishedVersionRow[]): Map<string, PublishedVersion[]> {
  const publishedByPrompt = new Map<string, PublishedVersion[]>();
  for (const { promptId, version, userMessage } of versions) {
    const list = publishedByPrompt.get(promptId) ?? [];
    list.push({ version, userMessage });
    publishedByPrompt.set(promptId, list);
  }
  return publishedByPrompt;
}

type VisibleHead = PromptHeadItem & { latest: StoredContent };

function isVisible(head: PromptHeadItem | undefined): head is VisibleHead {
  return head !== undefined && !head.deleted && head.latest !== undefined;
}

/** A prompt at a label, with the label's rollout (the version it moves to, as the prompt it serves) while it has one. */
function atLabel(head: Pick<PromptHeadItem, 'promptId' | 'promptName'>, labelled: StoredContent, rollout: LabelRollout | undefined) {
  const prompt = toPrompt(head, labelled);
  if (!rollout) return { prompt };
  const atRollout: RolloutAtLabel = { rolloutId: rollout.rolloutId, percent: rollout.percent, to: toPrompt(head, rollout.to) };
  return { prompt, rollout: atRollout };
}

function labelledPromptOf(item: PromptLabelItem): AtLabel<Prompt> {
  const { prompt, rollout } = atLabel(item, item.labelled, item.rollout);
  return rollout ? { ...prompt, rollout } : prompt;
}

function toPrompt(head: Pick<PromptHeadItem, 'promptId' | 'promptName'>, stored: StoredContent): Prompt {
  const content = fromStoredContent(stored);
  return {
    promptId: head.promptId,
    promptName: head.promptName,
    version: content.version,
    systemMessage: content.systemMessage,
    userMessage: content.userMessage,
    config: content.config,
  };
}
