import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AccountImport, ImportMode, ImportSummary } from './import-plan';
import * as imports from './imports';
import { Table } from '../../lambda/table/table';
import { recordRefusal } from '../../lambda/table/audit-log';
import { Operations } from '../../lambda/operations';
import { reasonOf } from '../../lambda/operations/reasons';
import { type Actor, actorName } from '../../lambda/domain/actor';

const summaryOf = (summary: ImportSummary): Record<string, unknown> => ({ ...summary });

/**
 * The operators' one bulk path: an import of accounts, keys, prompts, versions and labels, checked whole before
 * anything is written (imports.ts, import-plan.ts), for the CLI's `prompts import`, the local stack's seed and the
 * benchmark. Every other change the CLI makes goes through the operations the management API makes
 * (lambda/operations/); the CLI reads through the features' reads (lambda/features/), as the API's read-only routes do.
 */
export class AccountImporter {
  protected readonly table: Table;

  /**
   * With an `actor` (the CLI passes `cli` and the operator's name), an import is recorded in the audit log of
   * each account it names, as one entry per account, once it is done: `succeeded` with what it changed, or
   * `failed` with why (an import is many transactions, so a failure part-way leaves what the next import
   * completes). Without one (the local seed, the benchmark, tests), nothing is recorded.
   */
  constructor(
    client: DynamoDBDocumentClient,
    tableName: string,
    now: () => Date = () => new Date(),
    private readonly actor?: Actor,
  ) {
    this.table = new Table(client, tableName, now);
  }

  async importAccounts(input: readonly AccountImport[], options: { dryRun?: boolean; mode?: ImportMode } = {}): Promise<ImportSummary> {
    const run = () => imports.importAccounts(this.table, input, { ...options, ...(this.actor ? { by: actorName(this.actor) } : {}) });
    const actor = this.actor;
    if (!actor || options.dryRun || input.length === 0) return run();
    const accountIds = [...new Set(input.map((account) => account.accountId))];
    const attempt = (accountId: string) => ({ accountId, actor, action: 'import', target: { accountId } });
    let summary: ImportSummary;
    try {
      summary = await run();
    } catch (error) {
      await Promise.all(accountIds.map((accountId) => recordRefusal(this.table, attempt(accountId), reasonOf(error), 'failed').catch(() => undefined)));
      throw error;
    }
    const operations = new Operations({ table: this.table, actor });
    for (const accountId of accountIds) await operations.accounts.recordImport(accountId, summaryOf(summary));
    return summary;
  }
}
