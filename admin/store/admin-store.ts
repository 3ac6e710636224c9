import {
  type DynamoDBDocumentClient,
  GetCommand,
  paginateQuery,
  PutCommand,
  type QueryCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { Plan } from '../plans';
import type { PromptContent } from '../../lambda/domain/prompt';
import { compareVersions } from '../../lambda/domain/version';
import { batchGet, batchPut } from './batch-io';
import type { PromptHeadItem, PromptVersionItem } from '../../lambda/data/table-items';
import {
  type AccountImport,
  accountItem,
  deletedPromptMessage,
  type HeadWrite,
  type ImportMode,
  apiKeyItem,
  limitInForce,
  type Conflict,
  type ImportSummary,
  planImport,
  type PromptImport,
  promptRef,
  type StoredAccount,
  type StoredApiKey,
  type StoredState,
} from './import-plan';
import { callStore, isConditionFailure } from '../../lambda/data/store-calls';
import { ADMIN_INDEX, adminIndexKeys, keys, prefixes, usageAttribute } from '../../lambda/data/table-schema';
import { versionSortKey } from '../../lambda/domain/version';

export type {
  AccountImport,
  ApiKeyImport,
  ImportSummary,
  PromptImport,
  PromptVersionInput,
} from './import-plan';

/** Operator writes and views: seeding, the admin CLI and test fixtures. The API itself writes only usage. */

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
  scope?: readonly string[];
  /** Epoch milliseconds. */
  expiresAt?: number;
}

/** What `keys set` changes; `null` clears a scope or an expiry. */
export interface ApiKeyChange {
  scope?: readonly string[] | null;
  expiresAt?: number | null;
  enabled?: boolean;
}

/** A prompt with its versions: what the fixtures and a single-prompt import give. */
export interface PromptInput extends PromptImport {
  promptName: string;
}

export type AdminAccount = StoredAccount;
export type AdminApiKey = StoredApiKey;

export interface AdminPromptSummary {
  promptId: string;
  promptName: string;
  deleted: boolean;
  /** The version the API serves as latest; absent while nothing is published. */
  latestVersion?: string;
  /** Every stored version, drafts included, in semantic-version order. */
  versions: { version: string; published: boolean }[];
}

export interface KeyUsage {
  key: AdminApiKey;
  /** As stored; the caller checks it is a known plan. */
  plan: string;
  month: string;
  used: number;
}

export interface PublishRequest {
  promptId: string;
  version: string;
  /** The version's content; without it, an existing draft of that version is published. */
  content?: Omit<PromptContent, 'version'>;
  /** Needed when the prompt does not exist yet; renames it otherwise. */
  promptName?: string;
}

/** The request contradicts what is stored (an existing id, a published version, a final revocation). */
export class ConflictError extends Error {
  override readonly name: string = 'ConflictError';
  constructor(
    message: string,
    readonly conflicts: readonly Conflict[] = [],
  ) {
    super(message);
  }
}

export class ImmutableVersionError extends ConflictError {
  override readonly name: string = 'ImmutableVersionError';
}

export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
}

/** Above this many prompts of one account, one pass over the account's partition beats a read per prompt. */
const TARGETED_READ_LIMIT = 10;
const API_KEY_PK_PREFIX = keys.apiKey('').pk;

export class DynamoAdminStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  // Accounts

  /** Writes the account as given, whatever was there: for fixtures. Operators use createAccount or an import. */
  async putAccount(account: NewAccount): Promise<void> {
    const item = accountItem(account.accountId, account.name, account.plan, this.timestamp());
    await callStore('putAccount', () => this.client.send(new PutCommand({ TableName: this.tableName, Item: item })));
  }

  async createAccount(account: NewAccount): Promise<AdminAccount> {
    const item = accountItem(account.accountId, account.name, account.plan, this.timestamp());
    try {
      await callStore('createAccount', () =>
        this.client.send(
          new PutCommand({ TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
        ),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new ConflictError(`account ${account.accountId} already exists`);
      throw error;
    }
    return toAccount(item);
  }

  async findAccount(accountId: string): Promise<AdminAccount | undefined> {
    const item = await this.getItem('findAccount', keys.account(accountId));
    return item ? toAccount(item) : undefined;
  }

  async listAccounts(): Promise<AdminAccount[]> {
    const items = await this.queryAll('listAccounts', {
      IndexName: ADMIN_INDEX,
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': adminIndexKeys.allAccounts },
    });
    return items.map(toAccount);
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
      if (isConditionFailure(error)) throw new NotFoundError(`account ${accountId} does not exist`);
      throw error;
    }
    await this.copyPlanToKeys(accountId, plan);
  }

  /**
   * Every key carries its account's plan so the API can admit a request with one read. A plan change is
   * copied to each key; if this is interrupted, running the change again completes it.
   */
  private async copyPlanToKeys(accountId: string, plan: string): Promise<void> {
    const indexed = await this.indexedKeysOf('copyPlanToKeys', accountId);
    for (const item of indexed) {
      const monthlyLimit = typeof item.monthlyLimit === 'number' ? item.monthlyLimit : undefined;
      const limit = limitInForce(plan, monthlyLimit);
      if (item.plan === plan && item.limit === limit) continue;
      await callStore('copyPlanToKeys', () =>
        this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.apiKey(keyHashOf(item)),
            UpdateExpression: 'SET #plan = :plan, #limit = :limit',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#plan': 'plan', '#limit': 'limit' },
            ExpressionAttributeValues: { ':plan': plan, ':limit': limit },
          }),
        ),
      );
    }
  }

  /** Key items hold the usage counters too: a key is written field by field, never replaced whole. */
  private async upsertApiKey(item: Record<string, unknown>): Promise<void> {
    const fields = Object.entries(item).filter(([name]) => name !== 'pk' && name !== 'sk');
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets = fields.map(([name, value], index) => {
      names[`#f${index}`] = name;
      values[`:f${index}`] = value;
      return `#f${index} = :f${index}`;
    });
    await callStore('upsertApiKey', () =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: String(item.pk), sk: String(item.sk) },
          UpdateExpression: `SET ${sets.join(', ')}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      ),
    );
  }

  // API keys

  /** Writes the key as given, over what was there but its usage counts: for fixtures. Operators use createApiKey. */
  async putApiKey(key: NewApiKey): Promise<void> {
    const account = await this.requireAccount(key.accountId);
    await this.upsertApiKey(apiKeyItem(key.keyHash, this.newKeyRecord(key, account.plan)));
    await this.catchUpKeys([key]);
  }

  async createApiKey(key: NewApiKey): Promise<AdminApiKey> {
    const account = await this.requireAccount(key.accountId);
    const record = this.newKeyRecord(key, account.plan);
    try {
      await callStore('createApiKey', () =>
        this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: apiKeyItem(key.keyHash, record),
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        ),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new ConflictError(`API key ${key.keyId} already exists`);
      throw error;
    }
    await this.catchUpKeys([key]);
    return record;
  }

  /**
   * Every key of the account, ordered by key id; never the key, which is not stored. The index finds
   * them; their items give what the index does not project (scope, expiry).
   */
  async listApiKeys(accountId: string): Promise<AdminApiKey[]> {
    await this.requireAccount(accountId);
    const indexed = await this.indexedKeysOf('listApiKeys', accountId);
    const items = await batchGet(this.client, this.tableName, indexed.map((item) => keys.apiKey(keyHashOf(item))));
    const byHash = new Map(items.map((item) => [keyHashOf(item), item]));
    return indexed.map((item) => toApiKey(byHash.get(keyHashOf(item)) ?? item));
  }

  /** Scope, expiry, disabled or enabled: applies from the key's next request. A revoked key stays as it is. */
  async updateApiKey(accountId: string, keyId: string, change: ApiKeyChange): Promise<AdminApiKey> {
    const { keyHash } = await this.requireApiKey(accountId, keyId);
    const sets: string[] = [];
    const removes: string[] = [];
    const names: Record<string, string> = { '#status': 'status' };
    const values: Record<string, unknown> = { ':revoked': 'revoked' };
    const field = (name: 'scope' | 'expiresAt', value: unknown) => {
      if (value === undefined) return;
      names[`#${name}`] = name;
      if (value === null) removes.push(`#${name}`);
      else {
        sets.push(`#${name} = :${name}`);
        values[`:${name}`] = value;
      }
    };
    field('scope', change.scope === undefined || change.scope === null ? change.scope : [...change.scope]);
    field('expiresAt', change.expiresAt);
    if (change.enabled !== undefined) {
      sets.push('#status = :status');
      values[':status'] = change.enabled ? 'active' : 'disabled';
    }
    if (sets.length + removes.length === 0) return (await this.requireApiKey(accountId, keyId)).key;
    try {
      const result = await callStore('updateApiKey', () =>
        this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.apiKey(keyHash),
            UpdateExpression: [sets.length > 0 ? `SET ${sets.join(', ')}` : '', removes.length > 0 ? `REMOVE ${removes.join(', ')}` : '']
              .join(' ')
              .trim(),
            ConditionExpression: 'attribute_exists(pk) AND #status <> :revoked',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
            ReturnValues: 'ALL_NEW',
          }),
        ),
      );
      return toApiKey(result.Attributes ?? {});
    } catch (error) {
      if (isConditionFailure(error)) {
        throw new ConflictError(`API key ${keyId} of account ${accountId} is revoked, and revocation is final`);
      }
      throw error;
    }
  }

  /**
   * A new key for the same account, with the same limit and scope (and a count of its own, as every
   * key has); the old key keeps working for `graceMs`, then expires (an earlier expiry it had stays).
   * A grace of 0 revokes it at once.
   */
  async rotateApiKey(
    accountId: string,
    keyId: string,
    replacement: Pick<NewApiKey, 'keyHash' | 'keyId' | 'displayPrefix'>,
    graceMs: number,
  ): Promise<{ created: AdminApiKey; retired: AdminApiKey }> {
    const { key: old } = await this.requireApiKey(accountId, keyId);
    if (old.status === 'revoked') {
      throw new ConflictError(`API key ${keyId} of account ${accountId} is revoked: create a new key instead`);
    }
    const created = await this.createApiKey({
      ...replacement,
      accountId,
      ...(old.monthlyLimit === undefined ? {} : { monthlyLimit: old.monthlyLimit }),
      ...(old.scope === undefined ? {} : { scope: old.scope }),
    });
    if (graceMs === 0) {
      const { key } = await this.revokeApiKeyById(accountId, keyId);
      return { created, retired: { ...key, status: 'revoked' } };
    }
    const expiresAt = Math.min(this.now().getTime() + graceMs, old.expiresAt ?? Number.POSITIVE_INFINITY);
    return { created, retired: await this.updateApiKey(accountId, keyId, { expiresAt }) };
  }

  /** The account's keys as the admin index holds them (what operators list; not the usage counters). */
  private indexedKeysOf(operation: string, accountId: string): Promise<Record<string, unknown>[]> {
    return this.queryAll(operation, {
      IndexName: ADMIN_INDEX,
      KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
      ExpressionAttributeValues: { ':pk': adminIndexKeys.keysOf(accountId), ':prefix': adminIndexKeys.apiKeyPrefix },
    });
  }

  async revokeApiKey(keyHash: string): Promise<void> {
    try {
      await callStore('revokeApiKey', () =>
        this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.apiKey(keyHash),
            UpdateExpression: 'SET #status = :revoked, revokedAt = if_not_exists(revokedAt, :at)',
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

  /** Revokes by the key's public id. Revoking twice is not an error: the key stays revoked. */
  async revokeApiKeyById(accountId: string, keyId: string): Promise<{ key: AdminApiKey; alreadyRevoked: boolean }> {
    const { keyHash, key } = await this.requireApiKey(accountId, keyId);
    if (key.status === 'revoked') return { key, alreadyRevoked: true };
    await this.revokeApiKey(keyHash);
    return { key: { ...key, status: 'revoked', revokedAt: this.timestamp() }, alreadyRevoked: false };
  }

  async usage(keyHash: string, month: string): Promise<number> {
    const item = await this.getItem('usage', keys.apiKey(keyHash));
    return Number(item?.[usageAttribute(month)] ?? 0);
  }

  async keyUsage(accountId: string, keyId: string, month: string): Promise<KeyUsage> {
    const account = await this.requireAccount(accountId);
    const { keyHash, key } = await this.requireApiKey(accountId, keyId);
    return { key, plan: account.plan, month, used: await this.usage(keyHash, month) };
  }

  // Prompts

  /** One prompt and its versions; see importAccounts for what is refused. */
  async importPrompt(accountId: string, prompt: PromptInput): Promise<void> {
    await this.importAccounts([{ accountId, keys: [], prompts: [prompt] }]);
  }

  /**
   * Accounts, keys, prompts and versions, as a seed file or the CLI's import gives them. Everything is
   * checked against the store first; if anything is refused (a published version changed, a revoked key
   * revived, an unknown account without a name and plan), nothing is written. Writing only what differs
   * from what is stored makes a repeated import a no-op. Usage counters on key items are never touched.
   * In `create-missing` mode (the start-up seed) nothing is refused: only what is missing is written.
   */
  async importAccounts(
    imports: readonly AccountImport[],
    options: { dryRun?: boolean; mode?: ImportMode } = {},
  ): Promise<ImportSummary> {
    const stored = await this.loadState(imports);
    const plan = planImport(imports, stored, this.timestamp(), options.mode);
    const [first, ...others] = plan.conflicts;
    if (first) {
      const message = others.length > 0 ? `${first.message} (and ${others.length} more)` : first.message;
      const ErrorType = first.kind === 'immutable' ? ImmutableVersionError : ConflictError;
      throw new ErrorType(message, plan.conflicts);
    }
    if (!options.dryRun) {
      const { accounts, versions, heads, keys: apiKeys } = plan.writes;
      for (const items of [accounts, versions]) await batchPut(this.client, this.tableName, items);
      await inBatches(heads, (head) => this.writeHead(head));
      for (const item of apiKeys) await this.upsertApiKey(item);
      await this.catchUpKeys(apiKeys.map((item) => ({ accountId: String(item.accountId), keyHash: keyHashOf(item) })));
      for (const input of imports) {
        const before = stored.accounts.get(input.accountId);
        if (before && input.plan !== undefined && input.plan !== before.plan) {
          await this.copyPlanToKeys(input.accountId, input.plan);
        }
      }
    }
    return plan.summary;
  }

  /**
   * Publishes one version; refused for a deleted prompt (restorePrompt brings it back). Publishes racing
   * each other all land: the head's `latest` is written conditionally and only ever moves up.
   */
  async publishVersion(accountId: string, request: PublishRequest): Promise<'published' | 'already-published'> {
    await this.requireAccount(accountId);
    const head = (await this.getItem('publishVersion', keys.promptHead(accountId, request.promptId))) as
      | PromptHeadItem
      | undefined;
    if (head?.deleted === true) throw new ConflictError(deletedPromptMessage(accountId, request.promptId));
    let content = request.content;
    if (!content) {
      const key = keys.promptVersion(accountId, request.promptId, request.version);
      const stored = (await this.getItem('publishVersion', key)) as PromptVersionItem | undefined;
      if (!stored) {
        throw new NotFoundError(
          `prompt ${request.promptId} of account ${accountId} has no version ${request.version}: give its content to publish it`,
        );
      }
      content = stored;
    }
    const summary = await this.importAccounts([
      {
        accountId,
        keys: [],
        prompts: [
          {
            promptId: request.promptId,
            ...(request.promptName === undefined ? {} : { promptName: request.promptName }),
            versions: [
              {
                version: request.version,
                systemMessage: content.systemMessage,
                userMessage: content.userMessage,
                config: content.config,
                published: true,
              },
            ],
          },
        ],
      },
    ]);
    return summary.versions.unchanged > 0 ? 'already-published' : 'published';
  }

  /**
   * Hides the prompt from the API; its versions stay stored. Deleting twice is not an error, and completes
   * a delete that was interrupted. The account's prompt revision then changes on the account and on every
   * key, which every request already reads: copies of the prompt that containers keep in memory are not
   * served again, from the very next request.
   */
  async deletePrompt(accountId: string, promptId: string): Promise<{ alreadyDeleted: boolean }> {
    const wasDeleted = await this.setDeleted(accountId, promptId, true);
    await this.bumpPromptsRevision(accountId);
    return { alreadyDeleted: wasDeleted };
  }

  /** Makes a deleted prompt visible again, with every version it had published. Restoring twice is not an error. */
  async restorePrompt(accountId: string, promptId: string): Promise<{ alreadyVisible: boolean }> {
    return { alreadyVisible: !(await this.setDeleted(accountId, promptId, false)) };
  }

  /** Sets the head's `deleted` flag; says whether it was set before. */
  private async setDeleted(accountId: string, promptId: string, deleted: boolean): Promise<boolean> {
    try {
      const result = await callStore('setDeleted', () =>
        this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.promptHead(accountId, promptId),
            UpdateExpression: 'SET #deleted = :deleted',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#deleted': 'deleted' },
            ExpressionAttributeValues: { ':deleted': deleted },
            ReturnValues: 'ALL_OLD',
          }),
        ),
      );
      return result.Attributes?.deleted === true;
    } catch (error) {
      if (isConditionFailure(error)) throw new NotFoundError(`account ${accountId} has no prompt ${promptId}`);
      throw error;
    }
  }

  /** A new revision on the account item, then copied to each of its keys (which only ever take a higher one). */
  private async bumpPromptsRevision(accountId: string): Promise<void> {
    const result = await callStore('bumpPromptsRevision', () =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.account(accountId),
          UpdateExpression: 'ADD #revision :one',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#revision': 'promptsRevision' },
          ExpressionAttributeValues: { ':one': 1 },
          ReturnValues: 'UPDATED_NEW',
        }),
      ),
    );
    const revision = Number(result.Attributes?.promptsRevision);
    const keysOf = await this.indexedKeysOf('bumpPromptsRevision', accountId);
    await inBatches(keysOf, (item) => this.raiseKeyRevision(keyHashOf(item), revision));
  }

  /** Keys written after a prompt was deleted take the account's revision too, or they would see older copies. */
  private async catchUpKeys(written: readonly { accountId: string; keyHash: string }[]): Promise<void> {
    const revisions = new Map<string, number>();
    for (const { accountId } of written) {
      if (revisions.has(accountId)) continue;
      const account = await this.getItem('catchUpKeys', keys.account(accountId));
      revisions.set(accountId, Number(account?.promptsRevision ?? 0));
    }
    await inBatches(written, async ({ accountId, keyHash }) => {
      const revision = revisions.get(accountId) ?? 0;
      if (revision > 0) await this.raiseKeyRevision(keyHash, revision);
    });
  }

  private async raiseKeyRevision(keyHash: string, revision: number): Promise<void> {
    try {
      await callStore('raiseKeyRevision', () =>
        this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.apiKey(keyHash),
            UpdateExpression: 'SET #revision = :revision',
            ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#revision) OR #revision < :revision)',
            ExpressionAttributeNames: { '#revision': 'promptsRevision' },
            ExpressionAttributeValues: { ':revision': revision },
          }),
        ),
      );
    } catch (error) {
      // A higher revision is there already (a later delete got there first), or the key is gone.
      if (!isConditionFailure(error)) throw error;
    }
  }

  /**
   * Writes what an import changes on a head. `latest` is set only if it moves up (or the head predates
   * `latestKey` and still shows what the plan saw); when a racing publish has put a higher version there,
   * the rest of the change is still written.
   */
  private async writeHead(head: HeadWrite): Promise<void> {
    const sets: string[] = ['#type = :type', '#promptId = :promptId'];
    const names: Record<string, string> = { '#type': 'type', '#promptId': 'promptId' };
    const values: Record<string, unknown> = { ':type': 'prompt', ':promptId': head.promptId };
    if (head.promptName !== undefined) {
      sets.push('#promptName = :promptName');
      names['#promptName'] = 'promptName';
      values[':promptName'] = head.promptName;
    }
    if (head.deleted !== undefined) {
      sets.push('#deleted = :deleted');
      names['#deleted'] = 'deleted';
      values[':deleted'] = head.deleted;
    }
    const update = (input: Pick<UpdateCommandInput, 'UpdateExpression' | 'ConditionExpression'> & {
      names: Record<string, string>;
      values: Record<string, unknown>;
    }) =>
      callStore('writeHead', () =>
        this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.promptHead(head.accountId, head.promptId),
            UpdateExpression: input.UpdateExpression,
            ConditionExpression: input.ConditionExpression,
            ExpressionAttributeNames: input.names,
            ExpressionAttributeValues: input.values,
          }),
        ),
      );
    if (head.latest === undefined) {
      await update({ UpdateExpression: `SET ${sets.join(', ')}`, names, values });
      return;
    }
    const legacy = head.seenLatestVersion === undefined ? '' : ' OR attribute_not_exists(#latestKey) AND #latest.#version = :seen';
    try {
      await update({
        UpdateExpression: `SET ${[...sets, '#latest = :latest', '#latestKey = :latestKey'].join(', ')}`,
        ConditionExpression: `attribute_not_exists(#latest) OR #latestKey < :latestKey${legacy}`,
        names: { ...names, '#latest': 'latest', '#latestKey': 'latestKey', ...(legacy ? { '#version': 'version' } : {}) },
        values: {
          ...values,
          ':latest': head.latest,
          ':latestKey': versionSortKey(head.latest.version),
          ...(legacy ? { ':seen': head.seenLatestVersion } : {}),
        },
      });
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      await update({ UpdateExpression: `SET ${sets.join(', ')}`, names, values });
    }
  }

  /** The operator's view of an account's prompts: deleted ones and drafts included, ordered by promptId. */
  async listPromptSummaries(accountId: string): Promise<AdminPromptSummary[]> {
    await this.requireAccount(accountId);
    const [heads, versions] = await Promise.all([
      this.queryPartition<PromptHeadItem>('listPromptSummaries', accountId, prefixes.promptHeads),
      this.queryPartition<Pick<PromptVersionItem, 'promptId' | 'version' | 'published'>>(
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
    }));
  }

  // Reading what an import touches

  private async loadState(imports: readonly AccountImport[]): Promise<StoredState> {
    const [accountItems, keyItems, prompts] = await Promise.all([
      batchGet(this.client, this.tableName, unique(imports.map((input) => input.accountId)).map(keys.account)),
      batchGet(
        this.client,
        this.tableName,
        unique(imports.flatMap((input) => input.keys.map((key) => key.keyHash))).map(keys.apiKey),
      ),
      Promise.all(imports.map((input) => this.loadPrompts(input.accountId, input.prompts.map((p) => p.promptId)))),
    ]);
    const heads = new Map<string, PromptHeadItem>();
    const versions = new Map<string, Map<string, PromptVersionItem>>();
    for (const loaded of prompts) {
      for (const [ref, head] of loaded.heads) heads.set(ref, head);
      for (const [ref, list] of loaded.versions) versions.set(ref, list);
    }
    return {
      accounts: new Map(accountItems.map((item) => [String(item.accountId), toAccount(item)])),
      keys: new Map(keyItems.map((item) => [keyHashOf(item), toApiKey(item)])),
      heads,
      versions,
    };
  }

  private async loadPrompts(accountId: string, promptIds: readonly string[]) {
    const wanted = new Set(promptIds);
    const heads = new Map<string, PromptHeadItem>();
    const versions = new Map<string, Map<string, PromptVersionItem>>();
    const addVersion = (version: PromptVersionItem) => {
      const ref = promptRef(accountId, version.promptId);
      const list = versions.get(ref) ?? new Map<string, PromptVersionItem>();
      list.set(version.version, version);
      versions.set(ref, list);
    };
    if (wanted.size > TARGETED_READ_LIMIT) {
      const [allHeads, allVersions] = await Promise.all([
        this.queryPartition<PromptHeadItem>('loadPrompts', accountId, prefixes.promptHeads, { ConsistentRead: true }),
        this.queryPartition<PromptVersionItem>('loadPrompts', accountId, prefixes.promptVersions, {
          ConsistentRead: true,
        }),
      ]);
      for (const head of allHeads) if (wanted.has(head.promptId)) heads.set(promptRef(accountId, head.promptId), head);
      for (const version of allVersions) if (wanted.has(version.promptId)) addVersion(version);
    } else {
      await Promise.all(
        [...wanted].map(async (promptId) => {
          const [head, stored] = await Promise.all([
            this.getItem('loadPrompts', keys.promptHead(accountId, promptId)),
            this.queryPartition<PromptVersionItem>('loadPrompts', accountId, prefixes.versionsOf(promptId), {
              ConsistentRead: true,
            }),
          ]);
          if (head) heads.set(promptRef(accountId, promptId), head as unknown as PromptHeadItem);
          stored.forEach(addVersion);
        }),
      );
    }
    return { heads, versions };
  }

  // Small helpers

  private newKeyRecord(key: NewApiKey, plan: string): AdminApiKey {
    const now = this.timestamp();
    return {
      keyId: key.keyId,
      accountId: key.accountId,
      plan,
      displayPrefix: key.displayPrefix,
      status: key.revoked ? 'revoked' : 'active',
      ...(key.monthlyLimit === undefined ? {} : { monthlyLimit: key.monthlyLimit }),
      ...(key.scope === undefined ? {} : { scope: [...key.scope] }),
      ...(key.expiresAt === undefined ? {} : { expiresAt: key.expiresAt }),
      createdAt: now,
      ...(key.revoked ? { revokedAt: now } : {}),
    };
  }

  private async requireAccount(accountId: string): Promise<AdminAccount> {
    const account = await this.findAccount(accountId);
    if (!account) throw new NotFoundError(`account ${accountId} does not exist`);
    return account;
  }

  /** Finds the key through the admin index, then reads its item for the current status. */
  private async requireApiKey(accountId: string, keyId: string): Promise<{ keyHash: string; key: AdminApiKey }> {
    const [indexed] = await this.queryAll('findApiKey', {
      IndexName: ADMIN_INDEX,
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
      ExpressionAttributeValues: {
        ':pk': adminIndexKeys.keysOf(accountId),
        ':sk': adminIndexKeys.apiKey(accountId, keyId).gsi1sk,
      },
    });
    if (!indexed) throw new NotFoundError(`account ${accountId} has no API key ${keyId}`);
    const keyHash = keyHashOf(indexed);
    const item = await this.getItem('findApiKey', keys.apiKey(keyHash));
    if (!item) throw new NotFoundError(`account ${accountId} has no API key ${keyId}`);
    return { keyHash, key: toApiKey(item) };
  }

  private async getItem(operation: string, key: Record<string, string>): Promise<Record<string, unknown> | undefined> {
    const result = await callStore(operation, () =>
      this.client.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true })),
    );
    return result.Item;
  }

  private queryPartition<T>(
    operation: string,
    accountId: string,
    skPrefix: string,
    extra: Partial<QueryCommandInput> = {},
  ): Promise<T[]> {
    return this.queryAll(operation, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': prefixes.accountPartition(accountId), ':prefix': skPrefix },
      ...extra,
    }) as Promise<T[]>;
  }

  private async queryAll(
    operation: string,
    input: Omit<QueryCommandInput, 'TableName'>,
  ): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    await callStore(operation, async () => {
      for await (const page of paginateQuery({ client: this.client }, { TableName: this.tableName, ...input })) {
        items.push(...(page.Items ?? []));
      }
    });
    return items;
  }

  private timestamp(): string {
    return this.now().toISOString();
  }
}

function toAccount(item: Record<string, unknown>): AdminAccount {
  return {
    accountId: String(item.accountId),
    name: String(item.name),
    plan: String(item.plan),
    ...(typeof item.createdAt === 'string' ? { createdAt: item.createdAt } : {}),
  };
}

function toApiKey(item: Record<string, unknown>): AdminApiKey {
  return {
    keyId: String(item.keyId),
    accountId: String(item.accountId),
    plan: String(item.plan),
    status: item.status === 'active' || item.status === 'disabled' ? item.status : 'revoked',
    ...(typeof item.displayPrefix === 'string' ? { displayPrefix: item.displayPrefix } : {}),
    ...(typeof item.monthlyLimit === 'number' ? { monthlyLimit: item.monthlyLimit } : {}),
    ...(Array.isArray(item.scope) ? { scope: item.scope.map(String) } : {}),
    ...(typeof item.expiresAt === 'number' ? { expiresAt: item.expiresAt } : {}),
    ...(typeof item.createdAt === 'string' ? { createdAt: item.createdAt } : {}),
    ...(typeof item.revokedAt === 'string' ? { revokedAt: item.revokedAt } : {}),
  };
}

/** Key items are keyed by the key's hash; it is the only form of the key the store holds. */
function keyHashOf(item: Record<string, unknown>): string {
  return String(item.pk).slice(API_KEY_PK_PREFIX.length);
}

const unique = <T>(values: readonly T[]): T[] => [...new Set(values)];

/** Single-item writes, a few at a time: fast for a large import without flooding the store. */
const PARALLEL_WRITES = 16;

async function inBatches<T>(items: readonly T[], write: (item: T) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += PARALLEL_WRITES) {
    await Promise.all(items.slice(start, start + PARALLEL_WRITES).map(write));
  }
}
