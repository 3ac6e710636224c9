import {
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateQuery,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Plan } from '../domain/plans';
import type { PromptContent } from '../domain/prompt';
import { compareVersions } from '../domain/version';
import type { AccountItem, ApiKeyItem, PromptHeadItem, PromptVersionItem } from './dynamo-store';
import { callStore, isConditionFailure } from './store-errors';
import { adminIndexKeys, keys, prefixes } from './table-schema';

/** Operator writes: seeding, the admin CLI and test fixtures. The API itself never writes but the usage counter. */

export interface NewAccount {
  accountId: string;
  name: string;
  plan: Plan;
}

export interface NewApiKey {
  keyHash: string;
  keyId: string;
  accountId: string;
  /** What a listing may show of the key: its recognisable prefix and first characters, never the key. */
  displayPrefix: string;
  monthlyLimit?: number;
  revoked?: boolean;
}

export interface PromptVersionInput extends PromptContent {
  published: boolean;
}

export interface PromptInput {
  promptId: string;
  promptName: string;
  deleted?: boolean;
  versions: PromptVersionInput[];
}

export class ImmutableVersionError extends Error {
  override readonly name = 'ImmutableVersionError';
}

export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
}

const BATCH_WRITE_LIMIT = 25;

export class DynamoAdminStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async putAccount(account: NewAccount): Promise<void> {
    const item: AccountItem & Record<string, unknown> = {
      ...keys.account(account.accountId),
      ...adminIndexKeys.account(account.accountId),
      type: 'account',
      accountId: account.accountId,
      name: account.name,
      plan: account.plan,
      createdAt: this.timestamp(),
    };
    await callStore('putAccount', () => this.client.send(new PutCommand({ TableName: this.tableName, Item: item })));
  }

  async setAccountPlan(accountId: string, plan: Plan): Promise<void> {
    try {
      await callStore('setAccountPlan', () =>
        this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.account(accountId),
            UpdateExpression: 'SET #plan = :plan',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#plan': 'plan' },
            ExpressionAttributeValues: { ':plan': plan },
          }),
        ),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new NotFoundError(`No account ${accountId}`);
      throw error;
    }
  }

  async putApiKey(key: NewApiKey): Promise<void> {
    const item: ApiKeyItem & Record<string, unknown> = {
      ...keys.apiKey(key.keyHash),
      ...adminIndexKeys.apiKey(key.accountId, key.keyId),
      type: 'apiKey',
      keyId: key.keyId,
      accountId: key.accountId,
      displayPrefix: key.displayPrefix,
      status: key.revoked ? 'revoked' : 'active',
      ...(key.monthlyLimit === undefined ? {} : { monthlyLimit: key.monthlyLimit }),
      createdAt: this.timestamp(),
    };
    await callStore('putApiKey', () => this.client.send(new PutCommand({ TableName: this.tableName, Item: item })));
  }

  async revokeApiKey(keyHash: string): Promise<void> {
    try {
      await callStore('revokeApiKey', () =>
        this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.apiKey(keyHash),
            UpdateExpression: 'SET #status = :revoked, revokedAt = :at',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':revoked': 'revoked', ':at': this.timestamp() },
          }),
        ),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new NotFoundError('No such API key');
      throw error;
    }
  }

  /**
   * Writes a prompt and its versions. Published versions are immutable: a version already published
   * with other content is refused before anything is written. The head's copy of the latest published
   * version is recomputed from everything stored, so imports are idempotent and order-free.
   */
  async importPrompt(accountId: string, prompt: PromptInput): Promise<void> {
    const stored = await this.storedVersions(accountId, prompt.promptId);
    for (const version of prompt.versions) {
      const existing = stored.get(version.version);
      if (existing?.published && !sameContent(existing, version)) {
        throw new ImmutableVersionError(
          `Version ${version.version} of prompt ${prompt.promptId} is published and cannot change`,
        );
      }
    }
    const changed = prompt.versions.filter((version) => {
      const existing = stored.get(version.version);
      return !existing || existing.published !== version.published || !sameContent(existing, version);
    });
    const versionItems = changed.map((version) => ({
      ...keys.promptVersion(accountId, prompt.promptId, version.version),
      type: 'promptVersion',
      promptId: prompt.promptId,
      version: version.version,
      published: version.published,
      systemMessage: version.systemMessage,
      userMessage: version.userMessage,
      config: version.config,
    }));
    await this.batchPut(versionItems);

    for (const version of changed) stored.set(version.version, { ...version, promptId: prompt.promptId });
    const latest = [...stored.values()]
      .filter((version) => version.published)
      .sort((a, b) => compareVersions(b.version, a.version))[0];
    const head: PromptHeadItem & Record<string, unknown> = {
      ...keys.promptHead(accountId, prompt.promptId),
      type: 'prompt',
      promptId: prompt.promptId,
      promptName: prompt.promptName,
      deleted: prompt.deleted ?? false,
      ...(latest ? { latest: contentOf(latest) } : {}),
    };
    await callStore('importPrompt', () => this.client.send(new PutCommand({ TableName: this.tableName, Item: head })));
  }

  async usage(keyHash: string, month: string): Promise<number> {
    const result = await callStore('usage', () =>
      this.client.send(
        new GetCommand({ TableName: this.tableName, Key: keys.usage(keyHash, month), ConsistentRead: true }),
      ),
    );
    return Number(result.Item?.used ?? 0);
  }

  private async storedVersions(accountId: string, promptId: string): Promise<Map<string, PromptVersionItem>> {
    const versions = new Map<string, PromptVersionItem>();
    const pages = paginateQuery(
      { client: this.client },
      {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: {
          ':pk': prefixes.accountPartition(accountId),
          ':prefix': prefixes.versionsOf(promptId),
        },
        ConsistentRead: true,
      },
    );
    await callStore('storedVersions', async () => {
      for await (const page of pages) {
        for (const item of (page.Items ?? []) as PromptVersionItem[]) versions.set(item.version, item);
      }
    });
    return versions;
  }

  private async batchPut(items: Record<string, unknown>[]): Promise<void> {
    for (let start = 0; start < items.length; start += BATCH_WRITE_LIMIT) {
      let requests = items.slice(start, start + BATCH_WRITE_LIMIT).map((Item) => ({ PutRequest: { Item } }));
      for (let attempt = 0; requests.length > 0; attempt += 1) {
        if (attempt > 0) await delay(Math.min(1_000, 50 * 2 ** attempt));
        const result = await callStore('batchPut', () =>
          this.client.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: requests } })),
        );
        requests = (result.UnprocessedItems?.[this.tableName] ?? []) as typeof requests;
      }
    }
  }

  private timestamp(): string {
    return this.now().toISOString();
  }
}

function contentOf(version: PromptContent): PromptContent {
  return {
    version: version.version,
    systemMessage: version.systemMessage,
    userMessage: version.userMessage,
    config: version.config,
  };
}

function sameContent(a: PromptContent, b: PromptContent): boolean {
  return canonicalJson(contentOf(a)) === canonicalJson(contentOf(b));
}

/** JSON with object keys sorted: the store does not keep the key order of maps. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
