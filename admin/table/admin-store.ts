import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AccountImport, ImportMode, ImportSummary } from './import-plan';
import * as imports from './imports';
import { AdminTable } from '../../lambda/table/admin-table';
import type { Actor } from '../../lambda/table/item-types';
import { auditedChange } from '../../lambda/table/audit-log';
import { reasonOf } from '../../lambda/operations/account-operations';

const summaryOf = (summary: ImportSummary): Record<string, unknown> => ({ ...summary });

/**
 * The operators' one bulk path: an import of accounts, keys, prompts, versions and labels, checked whole before
 * anything is written (imports.ts, import-plan.ts), for the CLI's `prompts import`, the local stack's seed and the
 * benchmark. Every other change the CLI makes goes through the operations the management API makes
 * (lambda/operations/); the CLI reads through the table modules (lambda/table/), as the API's read-only routes do.
 */
export class AdminStore {
  protected readonly table: AdminTable;

  /**
   * With an `actor` (the CLI passes `cli` and the operator's name), an import is recorded in the audit log of
   * each account it names, as one entry per account: written before the import, settled after it with what it
   * changed. Without one (the local seed, the benchmark, tests), nothing is recorded.
   */
  constructor(
    client: DynamoDBDocumentClient,
    tableName: string,
    now: () => Date = () => new Date(),
    private readonly actor?: Actor,
  ) {
    this.table = new AdminTable(client, tableName, now);
  }

  importAccounts(
    input: readonly AccountImport[],
    options: { dryRun?: boolean; mode?: ImportMode } = {},
  ): Promise<ImportSummary> {
    const run = () => imports.importAccounts(this.table, input, options);
    const actor = this.actor;
    if (!actor || options.dryRun || input.length === 0) return run();
    // One import, all or nothing, recorded in each account it names: each entry is settled once the whole import is done.
    const audited = (accountId: string, change: () => Promise<ImportSummary>) =>
      auditedChange(
        this.table,
        { accountId, actor, action: 'import', target: { accountId } },
        async () => {
          const summary = await change();
          return { result: summary, after: summaryOf(summary) };
        },
        { reasonOf },
      );
    const nest = (rest: readonly AccountImport[]): Promise<ImportSummary> => {
      const [next, ...after] = rest;
      return next ? audited(next.accountId, () => nest(after)) : run();
    };
    return nest(input);
  }
}
