import type { Plan } from '../domain/plans';
import { createAccount, type NewAccount, requireAccount, setAccountPlan } from '../table/accounts';
import type { AdminTable } from '../table/admin-table';
import { auditedChange } from '../table/audit-log';
import type { AdminAccount } from '../table/item-builders';
import type { Actor } from '../table/item-types';
import { reasonOf } from './account-operations';

/** Only an operator makes these changes: the CLI names them `cli` with the operator's name. */
export type OperatorActor = Extract<Actor, { type: 'cli' }>;

/**
 * The changes only an operator makes (the admin CLI): creating an account and setting its plan. The management
 * API has no route to either, and its handlers hold an AccountOperations, so these are a class of their own that
 * no handler is given. Each is audited in the account's log as every operation is: written before the change,
 * settled after, with the same reasons for a failure.
 */
export class OperatorOperations {
  private readonly table: AdminTable;
  readonly actor: OperatorActor;

  constructor(deps: { readonly table: AdminTable; readonly actor: OperatorActor }) {
    this.table = deps.table;
    this.actor = deps.actor;
  }

  createAccount(account: NewAccount): Promise<AdminAccount> {
    const { accountId, name, plan } = account;
    return auditedChange(
      this.table,
      { accountId, actor: this.actor, action: 'account.create', target: { accountId }, requested: { name, plan } },
      async () => {
        const created = await createAccount(this.table, account);
        return { result: created, after: { name: created.name, plan: created.plan } };
      },
      { reasonOf },
    );
  }

  /**
   * From each key's next request; the plan it replaces is the entry's `before`. An account that does not exist is
   * refused before anything is written: it has no log to record the attempt in.
   */
  async setAccountPlan(accountId: string, plan: Plan): Promise<void> {
    const before = await requireAccount(this.table, accountId);
    await auditedChange(
      this.table,
      {
        accountId,
        actor: this.actor,
        action: 'account.set-plan',
        target: { accountId },
        requested: { plan },
        before: { plan: before.plan },
      },
      async () => {
        await setAccountPlan(this.table, accountId, plan);
        return { result: undefined, after: { plan } };
      },
      { reasonOf },
    );
  }
}
