import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Plan } from '../../lambda/domain/plans';
import * as accounts from '../../lambda/table/accounts';
import type { AccountImport, ImportMode, ImportSummary } from './import-plan';
import * as imports from './imports';
import type { AdminAccount, AdminApiKey } from '../../lambda/table/item-builders';
import * as apiKeys from '../../lambda/table/keys';
import * as labels from '../../lambda/table/labels';
import * as prompts from '../../lambda/table/prompts';
import { AdminTable } from '../../lambda/table/admin-table';
import type { Actor } from '../../lambda/table/item-types';
import { auditedChange } from '../../lambda/table/audit-log';
import { publicKeyFields, reasonOf } from '../../lambda/operations/account-operations';

const summaryOf = (summary: ImportSummary): Record<string, unknown> => ({ ...summary });

/**
 * What operators do to the store (the admin CLI, the local stack's seed, the benchmark), as one object
 * over the modules beside it, one per concern: accounts, keys, prompts, labels, imports, and the copies an
 * account's keys carry (propagation.ts). The read API writes only usage (lambda/table/read-path/); the management API
 * changes the rest through lambda/operations/, as the CLI's members commands do.
 */
export class AdminStore {
  protected readonly table: AdminTable;

  /**
   * With an `actor` (the CLI passes `cli` and the operator's name), every change is recorded in the
   * account's audit log before it is made and settled after, as the management API's are; without one
   * (the local seed, the benchmark, tests), nothing is recorded.
   */
  constructor(
    client: DynamoDBDocumentClient,
    tableName: string,
    now: () => Date = () => new Date(),
    private readonly actor?: Actor,
  ) {
    this.table = new AdminTable(client, tableName, now);
  }

  private audited<T>(
    accountId: string,
    action: string,
    target: Record<string, string>,
    change: () => Promise<T>,
    after?: (result: T) => Record<string, unknown>,
  ): Promise<T> {
    if (!this.actor) return change();
    return auditedChange(
      this.table,
      { accountId, actor: this.actor, action, target },
      async () => {
        const result = await change();
        return { result, ...(after ? { after: after(result) } : {}) };
      },
      { reasonOf },
    );
  }

  createAccount(account: accounts.NewAccount): Promise<AdminAccount> {
    return this.audited(account.accountId, 'account.create', { accountId: account.accountId }, () => accounts.createAccount(this.table, account), (created) => ({ name: created.name, plan: created.plan }));
  }

  findAccount(accountId: string): Promise<AdminAccount | undefined> {
    return accounts.findAccount(this.table, accountId);
  }

  listAccounts(): Promise<AdminAccount[]> {
    return accounts.listAccounts(this.table);
  }

  setAccountPlan(accountId: string, plan: Plan): Promise<void> {
    return this.audited(accountId, 'account.set-plan', { accountId }, () => accounts.setAccountPlan(this.table, accountId, plan), () => ({ plan }));
  }

  createApiKey(key: apiKeys.NewApiKey): Promise<AdminApiKey> {
    return this.audited(key.accountId, 'key.create', { keyId: key.keyId }, () => apiKeys.createApiKey(this.table, key), publicKeyFields);
  }

  listApiKeys(accountId: string): Promise<AdminApiKey[]> {
    return apiKeys.listApiKeys(this.table, accountId);
  }

  updateApiKey(accountId: string, keyId: string, change: apiKeys.ApiKeyChange): Promise<AdminApiKey> {
    return this.audited(accountId, 'key.update', { keyId }, () => apiKeys.updateApiKey(this.table, accountId, keyId, change), publicKeyFields);
  }

  rotateApiKey(
    accountId: string,
    keyId: string,
    replacement: Pick<apiKeys.NewApiKey, 'keyHash' | 'keyId' | 'displayPrefix'>,
    graceMs: number,
  ): Promise<{ created: AdminApiKey; retired: AdminApiKey }> {
    return this.audited(
      accountId,
      'key.rotate',
      { keyId },
      () => apiKeys.rotateApiKey(this.table, accountId, keyId, replacement, graceMs),
      ({ created }) => ({ newKeyId: created.keyId, graceMs }),
    );
  }

  revokeApiKeyById(accountId: string, keyId: string): Promise<{ key: AdminApiKey; alreadyRevoked: boolean }> {
    return this.audited(accountId, 'key.revoke', { keyId }, () => apiKeys.revokeApiKeyById(this.table, accountId, keyId), () => ({ status: 'revoked' }));
  }

  keyUsage(accountId: string, keyId: string, month: string): Promise<apiKeys.KeyUsage> {
    return apiKeys.keyUsage(this.table, accountId, keyId, month);
  }

  importAccounts(
    input: readonly AccountImport[],
    options: { dryRun?: boolean; mode?: ImportMode } = {},
  ): Promise<ImportSummary> {
    const run = () => imports.importAccounts(this.table, input, options);
    if (options.dryRun || input.length === 0) return run();
    // One import, all or nothing, recorded in each account it names.
    const [first, ...others] = input;
    const nest = (rest: readonly AccountImport[]): Promise<ImportSummary> => {
      const [next, ...after] = rest;
      if (!next) return run();
      return this.audited(next.accountId, 'import', { accountId: next.accountId }, () => nest(after), summaryOf);
    };
    return first ? this.audited(first.accountId, 'import', { accountId: first.accountId }, () => nest(others), summaryOf) : run();
  }

  deletePrompt(accountId: string, promptId: string): Promise<{ alreadyDeleted: boolean }> {
    return this.audited(accountId, 'prompt.delete', { promptId }, () => prompts.deletePrompt(this.table, accountId, promptId), () => ({ deleted: true }));
  }

  restorePrompt(accountId: string, promptId: string): Promise<{ alreadyVisible: boolean }> {
    return this.audited(accountId, 'prompt.restore', { promptId }, () => prompts.restorePrompt(this.table, accountId, promptId), () => ({ deleted: false }));
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
