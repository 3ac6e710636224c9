import {
  type DynamoDBDocumentClient,
  GetCommand,
  paginateQuery,
  type QueryCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { isPlan } from '../domain/plans';
import type { Prompt, PromptConfig, PromptContent, PromptWithVersions, PublishedVersion } from '../domain/prompt';
import { callStore, isConditionFailure } from './store-errors';
import type { AccountRecord, ApiKeyRecord, ApiStore, PromptLookup, UsageGrant } from './store';
import { keys, prefixes } from './table-schema';

/** Stored shapes. Writers are in dynamo-admin-store.ts; both follow table-schema.ts. */
export interface ApiKeyItem {
  keyId: string;
  accountId: string;
  status: 'active' | 'revoked';
  monthlyLimit?: number;
}

export interface AccountItem {
  accountId: string;
  name: string;
  plan: string;
}

export interface PromptHeadItem {
  promptId: string;
  promptName: string;
  deleted: boolean;
  /** A copy of the highest published version, so "latest" is a single read. Absent until one is published. */
  latest?: PromptContent;
}

export interface PromptVersionItem extends PromptContent {
  promptId: string;
  published: boolean;
}

export class DynamoStore implements ApiStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async findApiKey(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const item = await this.getItem<ApiKeyItem>('findApiKey', keys.apiKey(keyHash));
    if (!item) return undefined;
    return {
      keyHash,
      keyId: item.keyId,
      accountId: item.accountId,
      status: item.status === 'active' ? 'active' : 'revoked',
      monthlyLimit: typeof item.monthlyLimit === 'number' ? item.monthlyLimit : undefined,
    };
  }

  async findAccount(accountId: string): Promise<AccountRecord | undefined> {
    const item = await this.getItem<AccountItem>('findAccount', keys.account(accountId));
    if (!item || !isPlan(item.plan)) return undefined;
    return { accountId: item.accountId, name: item.name, plan: item.plan };
  }

  async takeUsageUnit(keyHash: string, month: string, limit: number): Promise<UsageGrant> {
    try {
      const result = await callStore('takeUsageUnit', () =>
        this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.usage(keyHash, month),
            UpdateExpression: 'SET #used = if_not_exists(#used, :zero) + :one, #limit = :limit',
            // The count only moves while it is below the limit, so no interleaving can pass it.
            ConditionExpression: '(attribute_not_exists(#used) AND :zero < :limit) OR #used < :limit',
            ExpressionAttributeNames: { '#used': 'used', '#limit': 'limit' },
            ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':limit': limit },
            ReturnValues: 'UPDATED_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
      );
      return { granted: true, used: Number(result.Attributes?.used) };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const used = error.Item ? Number(unmarshall(error.Item).used ?? 0) : await this.readUsage(keyHash, month);
      return { granted: false, used };
    }
  }

  async returnUsageUnit(keyHash: string, month: string): Promise<void> {
    try {
      await callStore('returnUsageUnit', () =>
        this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.usage(keyHash, month),
            UpdateExpression: 'SET #used = #used - :one',
            ConditionExpression: '#used > :zero',
            ExpressionAttributeNames: { '#used': 'used' },
            ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
          }),
        ),
      );
    } catch (error) {
      // Nothing to give back (the count is already zero): never go below it.
      if (!isConditionFailure(error)) throw error;
    }
  }

  /** The one extra read for stores that do not return the item of a failed condition (dynalite). */
  private async readUsage(keyHash: string, month: string): Promise<number> {
    const item = await this.getItem<{ used?: number }>('readUsage', keys.usage(keyHash, month), true);
    return Number(item?.used ?? 0);
  }

  async findLatestPrompt(accountId: string, promptId: string): Promise<PromptLookup> {
    const head = await this.getItem<PromptHeadItem>('findLatestPrompt', keys.promptHead(accountId, promptId));
    if (!isVisible(head)) return { found: false, reason: 'prompt-not-found' };
    return { found: true, prompt: toPrompt(head, head.latest) };
  }

  async findPromptVersion(accountId: string, promptId: string, version: string): Promise<PromptLookup> {
    const [head, item] = await Promise.all([
      this.getItem<PromptHeadItem>('findPromptVersion', keys.promptHead(accountId, promptId)),
      this.getItem<PromptVersionItem>('findPromptVersion', keys.promptVersion(accountId, promptId, version)),
    ]);
    if (!isVisible(head)) return { found: false, reason: 'prompt-not-found' };
    if (!item?.published) return { found: false, reason: 'version-not-found' };
    return { found: true, prompt: toPrompt(head, item) };
  }

  async listPrompts(accountId: string): Promise<Prompt[]> {
    const heads = await this.queryAll<PromptHeadItem>('listPrompts', accountId, prefixes.promptHeads);
    return heads.filter(isVisible).map((head) => toPrompt(head, head.latest));
  }

  async listPromptsWithVersions(accountId: string): Promise<PromptWithVersions[]> {
    // Heads and versions are separate ranges of the partition: page through both at once.
    const [heads, versions] = await Promise.all([
      this.queryAll<PromptHeadItem>('listPromptsWithVersions', accountId, prefixes.promptHeads),
      this.queryAll<PromptVersionItem>('listPromptsWithVersions', accountId, prefixes.promptVersions, {
        ProjectionExpression: 'promptId, version, userMessage, published',
        FilterExpression: 'published = :true',
        ExpressionAttributeValues: { ':true': true },
      }),
    ]);
    const publishedByPrompt = new Map<string, PublishedVersion[]>();
    // Version items sort by zero-padded version within each prompt, so each list arrives in semver order.
    for (const { promptId, version, userMessage } of versions) {
      const list = publishedByPrompt.get(promptId) ?? [];
      list.push({ version, userMessage });
      publishedByPrompt.set(promptId, list);
    }
    return heads.filter(isVisible).map((head) => ({
      ...toPrompt(head, head.latest),
      publishedVersions: publishedByPrompt.get(head.promptId) ?? [],
    }));
  }

  private async getItem<T>(operation: string, key: Record<string, string>, consistent = false): Promise<T | undefined> {
    const result = await callStore(operation, () =>
      this.client.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: consistent })),
    );
    return result.Item as T | undefined;
  }

  /** Follows LastEvaluatedKey to the end: the store's 1 MB pages are never the caller's problem. */
  private async queryAll<T>(
    operation: string,
    accountId: string,
    skPrefix: string,
    extra: Partial<QueryCommandInput> = {},
  ): Promise<T[]> {
    const { ExpressionAttributeValues: extraValues, ...rest } = extra;
    const pages = paginateQuery(
      { client: this.client },
      {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': prefixes.accountPartition(accountId), ':prefix': skPrefix, ...extraValues },
        ...rest,
      },
    );
    const items: T[] = [];
    await callStore(operation, async () => {
      for await (const page of pages) {
        items.push(...((page.Items ?? []) as T[]));
      }
    });
    return items;
  }
}

type VisibleHead = PromptHeadItem & { latest: PromptContent };

function isVisible(head: PromptHeadItem | undefined): head is VisibleHead {
  return head !== undefined && !head.deleted && head.latest !== undefined;
}

function toPrompt(head: PromptHeadItem, content: PromptContent): Prompt {
  return {
    promptId: head.promptId,
    promptName: head.promptName,
    version: content.version,
    systemMessage: content.systemMessage,
    userMessage: content.userMessage,
    config: content.config as PromptConfig,
  };
}
