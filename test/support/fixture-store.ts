import * as accounts from '../../lambda/features/accounts/accounts';
import { requireAccount, type NewAccount } from '../../lambda/features/accounts/accounts';
import { AccountImporter } from '../../admin/table/account-importer';
import type { PromptImport } from '../../admin/table/import-plan';
import type { VersionContent } from '../../lambda/features/prompts/authoring';
import { accountItem, apiKeyItem, withFreshDayCounters } from '../../lambda/table/item-builders';
import * as apiKeys from '../../lambda/features/keys/operations';
import { type NewApiKey, newKeyRecord, revokeApiKey, upsertApiKey, usage } from '../../lambda/features/keys/keys';
import * as labels from '../../lambda/features/labels/operations';
import { listLabels } from '../../lambda/features/labels/labels';
import * as prompts from '../../lambda/features/prompts/operations';
import { listPromptSummaries } from '../../lambda/features/prompts/deletion';
import { catchUpKeys } from '../../lambda/table/propagation';
import type { MemberItem } from '../../lambda/table/item-types';
import { keys } from '../../lambda/table/schema';
import { addMember } from '../../lambda/features/members/operations';

/** A table module's arguments after the table. */
type Tail<T extends readonly unknown[]> = T extends readonly [unknown, ...infer Rest] ? Rest : never;

/** A prompt with its versions, named: what the fixtures give. */
export interface PromptInput extends PromptImport {
  promptName: string;
}

/**
 * The bulk import, and what only tests do with the table: write an account or a key as given, whatever was
 * there; import one prompt; revoke a key by its hash; read a key's count by its hash; and the changes the read
 * API's tests make around it (labels, deletes, key settings, plans), straight through the table modules and
 * unaudited. People's changes go through lambda/operations/ (the management API, the CLI); these are fixtures.
 */
export class FixtureStore extends AccountImporter {
  /** Operators use createAccount or an import. */
  async putAccount(account: NewAccount): Promise<void> {
    const item = accountItem(account.accountId, account.name, account.plan, this.table.timestamp());
    await this.table.put('putAccount', { Item: item });
  }

  /** Over what was there but its usage counts. Operators use createApiKey. */
  async putApiKey(key: NewApiKey): Promise<void> {
    const account = await requireAccount(this.table, key.accountId);
    const item = apiKeyItem(key.keyHash, newKeyRecord(this.table, key, account.plan));
    // As the writers do: a new key starts with its month's counters; an existing one keeps its counts.
    const exists = (await this.table.get('putApiKey', keys.apiKey(key.keyHash))) !== undefined;
    await upsertApiKey(this.table, exists ? item : withFreshDayCounters(item, this.table.timestamp()));
    await catchUpKeys(this.table, [key]);
  }

  /** A member of an account, as an operator's CLI adds one. */
  async addMember(accountId: string, member: Pick<MemberItem, 'userId' | 'email' | 'role'>): Promise<void> {
    await addMember(this.table, accountId, member, 'cli:test');
  }

  /** One prompt and its versions; see importAccounts for what is refused. */
  async importPrompt(accountId: string, prompt: PromptInput): Promise<void> {
    await this.importAccounts([{ accountId, keys: [], prompts: [prompt] }]);
  }

  /**
   * One published version, as a one-version import: a fixture, unaudited like the rest of this store. The CLI and
   * the management API publish through the operations (admin/publish-version.ts, lambda/operations/).
   */
  async publishVersion(accountId: string, request: { promptId: string; version: string; content: VersionContent; promptName?: string }): Promise<void> {
    const { promptId, version, content, promptName } = request;
    await this.importAccounts([
      {
        accountId,
        keys: [],
        prompts: [{ promptId, ...(promptName === undefined ? {} : { promptName }), versions: [{ version, ...content, published: true }] }],
      },
    ]);
  }

  findAccount(accountId: string) {
    return accounts.findAccount(this.table, accountId);
  }

  setAccountPlan(...args: Tail<Parameters<typeof accounts.setAccountPlan>>) {
    return accounts.setAccountPlan(this.table, ...args);
  }

  createApiKey(...args: Tail<Parameters<typeof apiKeys.createApiKey>>) {
    return apiKeys.createApiKey(this.table, ...args);
  }

  updateApiKey(...args: Tail<Parameters<typeof apiKeys.updateApiKey>>) {
    return apiKeys.updateApiKey(this.table, ...args);
  }

  rotateApiKey(...args: Tail<Parameters<typeof apiKeys.rotateApiKey>>) {
    return apiKeys.rotateApiKey(this.table, ...args);
  }

  revokeApiKeyById(...args: Tail<Parameters<typeof apiKeys.revokeApiKeyById>>) {
    return apiKeys.revokeApiKeyById(this.table, ...args);
  }

  deletePrompt(...args: Tail<Parameters<typeof prompts.deletePrompt>>) {
    return prompts.deletePrompt(this.table, ...args);
  }

  restorePrompt(...args: Tail<Parameters<typeof prompts.restorePrompt>>) {
    return prompts.restorePrompt(this.table, ...args);
  }

  listPromptSummaries(accountId: string) {
    return listPromptSummaries(this.table, accountId);
  }

  setLabel(...args: Tail<Parameters<typeof labels.setLabel>>) {
    return labels.setLabel(this.table, ...args);
  }

  removeLabel(...args: Tail<Parameters<typeof labels.removeLabel>>) {
    return labels.removeLabel(this.table, ...args);
  }

  listLabels(accountId: string, promptId: string) {
    return listLabels(this.table, accountId, promptId);
  }

  revokeApiKey(keyHash: string): Promise<void> {
    return revokeApiKey(this.table, keyHash);
  }

  usage(keyHash: string, month: string): Promise<number> {
    return usage(this.table, keyHash, month);
  }
}
