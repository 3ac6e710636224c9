import type { Plan } from '../../domain/plans';
import type { OperationContext } from '../../operations/context';
import type { AdminAccount } from '../../table/item-builders';
import {
  type AccountSettings,
  type AccountSettingsChange,
  type NewAccount,
  planCreateAccount,
  planSetAccountPlan,
  planUpdateAccountSettings,
  requireAccount,
} from './accounts';

/**
 * The account itself (`ops.accounts`): its owners' settings, and what only an operator changes (the management API
 * has no route to `create`, `setPlan` or `recordImport`: the CLI's accounts and import commands call them).
 */
export class AccountOperations {
  constructor(private readonly context: OperationContext) {}

  updateSettings(accountId: string, change: AccountSettingsChange): Promise<AccountSettings> {
    return this.context.audited({ accountId, action: 'account.update', target: { accountId }, requested: change }, () =>
      planUpdateAccountSettings(this.context.table, accountId, change),
    );
  }

  create(account: NewAccount): Promise<AdminAccount> {
    const { accountId, name, plan } = account;
    return this.context.audited({ accountId, action: 'account.create', target: { accountId }, requested: { name, plan } }, async () =>
      planCreateAccount(this.context.table, account),
    );
  }

  /** From each key's next request. An account that does not exist is refused before anything is written: it has no log. */
  async setPlan(accountId: string, plan: Plan): Promise<void> {
    const before = await requireAccount(this.context.table, accountId);
    await this.context.audited({ accountId, action: 'account.set-plan', target: { accountId }, requested: { plan }, before: { plan: before.plan } }, async () =>
      planSetAccountPlan(accountId, plan),
    );
  }

  /**
   * An import that is done, recorded in the account's audit log as one entry (`import`) saying what it changed: the
   * import itself is many writes of the CLI's bulk path (admin/table/), checked whole before the first.
   */
  recordImport(accountId: string, summary: Record<string, unknown>): Promise<void> {
    return this.context.audited({ accountId, action: 'import', target: { accountId } }, async () => ({ writes: [], result: undefined, after: summary }));
  }
}
