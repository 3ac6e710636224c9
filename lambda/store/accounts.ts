import type { AccountItem } from '../data/table-items';
import { ADMIN_INDEX, adminIndexKeys, keys } from '../data/table-schema';
import type { Plan } from '../domain/plans';
import { ConflictError, NotFoundError } from './errors';
import { accountItem, type AdminAccount, toAccount } from './items';
import { copyPlanToKeys } from './propagation';
import type { AdminTable } from './table';

export interface NewAccount {
  accountId: string;
  name: string;
  plan: Plan;
}

export async function createAccount(table: AdminTable, account: NewAccount): Promise<AdminAccount> {
  const item = accountItem(account.accountId, account.name, account.plan, table.timestamp());
  await table.put('createAccount', { Item: item, ConditionExpression: 'attribute_not_exists(pk)' }, () => {
    throw new ConflictError(`account ${account.accountId} already exists`);
  });
  return toAccount(item);
}

export async function findAccount(table: AdminTable, accountId: string): Promise<AdminAccount | undefined> {
  const item = await table.get<AccountItem>('findAccount', keys.account(accountId));
  return item ? toAccount(item) : undefined;
}

export async function requireAccount(table: AdminTable, accountId: string): Promise<AdminAccount> {
  const account = await findAccount(table, accountId);
  if (!account) throw new NotFoundError(`account ${accountId} does not exist`);
  return account;
}

export async function listAccounts(table: AdminTable): Promise<AdminAccount[]> {
  const items = await table.query<AccountItem>('listAccounts', {
    IndexName: ADMIN_INDEX,
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': adminIndexKeys.allAccounts },
  });
  return items.map(toAccount);
}

/** The plan applies from each key's next request, once it is copied to the keys (propagation.ts). */
export async function setAccountPlan(table: AdminTable, accountId: string, plan: Plan): Promise<void> {
  await table.setOnExisting('setAccountPlan', keys.account(accountId), { plan }, {
    onMissing: () => {
      throw new NotFoundError(`account ${accountId} does not exist`);
    },
  });
  await copyPlanToKeys(table, accountId, plan);
}
