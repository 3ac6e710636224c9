import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Plan } from '../plans';
import * as accounts from './accounts';
import type { AccountImport, ImportMode, ImportSummary } from './import-plan';
import * as imports from './imports';
import type { AdminAccount, AdminApiKey } from './items';
import * as apiKeys from './keys';
import * as labels from './labels';
import * as prompts from './prompts';
import { AdminTable } from './table';

/**
 * What operators do to the store (the admin CLI, the local stack's seed, the benchmark), as one object
 * over the modules beside it, one per concern: accounts, keys, prompts, labels, imports, and the copies an
 * account's keys carry (propagation.ts). The API itself writes only usage (lambda/data/).
 */
export class AdminStore {
  protected readonly table: AdminTable;

  constructor(client: DynamoDBDocumentClient, tableName: string, now: () => Date = () => new Date()) {
    this.table = new AdminTable(client, tableName, now);
  }

  createAccount(account: accounts.NewAccount): Promise<AdminAccount> {
    return accounts.createAccount(this.table, account);
  }

  findAccount(accountId: string): Promise<AdminAccount | undefined> {
    return accounts.findAccount(this.table, accountId);
  }

  listAccounts(): Promise<AdminAccount[]> {
    return accounts.listAccounts(this.table);
  }

  setAccountPlan(accountId: string, plan: Plan): Promise<void> {
    return accounts.setAccountPlan(this.table, accountId, plan);
  }

  createApiKey(key: apiKeys.NewApiKey): Promise<AdminApiKey> {
    return apiKeys.createApiKey(this.table, key);
  }

  listApiKeys(accountId: string): Promise<AdminApiKey[]> {
    return apiKeys.listApiKeys(this.table, accountId);
  }

  updateApiKey(accountId: string, keyId: string, change: apiKeys.ApiKeyChange): Promise<AdminApiKey> {
    return apiKeys.updateApiKey(this.table, accountId, keyId, change);
  }

  rotateApiKey(
    accountId: string,
    keyId: string,
    replacement: Pick<apiKeys.NewApiKey, 'keyHash' | 'keyId' | 'displayPrefix'>,
    graceMs: number,
  ): Promise<{ created: AdminApiKey; retired: AdminApiKey }> {
    return apiKeys.rotateApiKey(this.table, accountId, keyId, replacement, graceMs);
  }

  revokeApiKeyById(accountId: string, keyId: string): Promise<{ key: AdminApiKey; alreadyRevoked: boolean }> {
    return apiKeys.revokeApiKeyById(this.table, accountId, keyId);
  }

  keyUsage(accountId: string, keyId: string, month: string): Promise<apiKeys.KeyUsage> {
    return apiKeys.keyUsage(this.table, accountId, keyId, month);
  }

  importAccounts(
    input: readonly AccountImport[],
    options: { dryRun?: boolean; mode?: ImportMode } = {},
  ): Promise<ImportSummary> {
    return imports.importAccounts(this.table, input, options);
  }

  publishVersion(accountId: string, request: prompts.PublishRequest): Promise<'published' | 'already-published'> {
    return prompts.publishVersion(this.table, accountId, request);
  }

  deletePrompt(accountId: string, promptId: string): Promise<{ alreadyDeleted: boolean }> {
    return prompts.deletePrompt(this.table, accountId, promptId);
  }

  restorePrompt(accountId: string, promptId: string): Promise<{ alreadyVisible: boolean }> {
    return prompts.restorePrompt(this.table, accountId, promptId);
  }

  listPromptSummaries(accountId: string): Promise<prompts.AdminPromptSummary[]> {
    return prompts.listPromptSummaries(this.table, accountId);
  }

  setLabel(accountId: string, promptId: string, label: string, version: string): Promise<labels.LabelChange> {
    return labels.setLabel(this.table, accountId, promptId, label, version);
  }

  removeLabel(accountId: string, promptId: string, label: string): Promise<labels.LabelChange> {
    return labels.removeLabel(this.table, accountId, promptId, label);
  }

  listLabels(accountId: string, promptId: string): Promise<Record<string, string>> {
    return labels.listLabels(this.table, accountId, promptId);
  }
}
