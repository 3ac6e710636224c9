import type { AccountItem } from '../../table/item-types';
import { ADMIN_INDEX, adminIndexKeys, keys } from '../../table/schema';
import type { Plan } from '../../domain/plans';
import { DEFAULT_PROTECTED_LABELS } from '../../domain/roles';
import { ConflictError, NotFoundError } from '../../table/errors';
import { accountItem, type AdminAccount, toAccount } from '../../table/item-builders';
import { copyPlanToKeys } from '../../table/propagation';
import type { Table } from '../../table/table';
import { buildUpdate, type ExpressionNames } from '../../table/update-expression';
import type { PlannedChange } from '../planned-change';

export interface NewAccount {
  accountId: string;
  name: string;
  plan: Plan;
}

export async function createAccount(table: Table, account: NewAccount): Promise<AdminAccount> {
  const item = accountItem(account.accountId, account.name, account.plan, table.timestamp());
  await table.put('createAccount', { Item: item, ConditionExpression: 'attribute_not_exists(pk)' }, () => {
    throw new ConflictError(`account ${account.accountId} already exists`);
  });
  return toAccount(item);
}

/** A new account, created by an operator. */
export function planCreateAccount(table: Table, account: NewAccount): PlannedChange<AdminAccount> {
  const item = accountItem(account.accountId, account.name, account.plan, table.timestamp());
  return {
    writes: [{ Put: { Item: item, ConditionExpression: 'attribute_not_exists(pk)' } }],
    result: toAccount(item),
    after: { name: item.name, plan: item.plan },
    refused: () => new ConflictError(`account ${account.accountId} already exists`),
  };
}

export async function findAccount(table: Table, accountId: string): Promise<AdminAccount | undefined> {
  const item = await table.get<AccountItem>('findAccount', keys.account(accountId));
  return item ? toAccount(item) : undefined;
}

export async function requireAccount(table: Table, accountId: string): Promise<AdminAccount> {
  const account = await findAccount(table, accountId);
  if (!account) throw new NotFoundError(`account ${accountId} does not exist`);
  return account;
}

export async function listAccounts(table: Table): Promise<AdminAccount[]> {
  const items = await table.query<AccountItem>('listAccounts', {
    IndexName: ADMIN_INDEX,
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': adminIndexKeys.allAccounts },
  });
  return items.map(toAccount);
}

/** The plan applies from each key's next request, once it is copied to the keys (propagation.ts). */
export async function setAccountPlan(table: Table, accountId: string, plan: Plan): Promise<void> {
  await table.setOnExisting(
    'setAccountPlan',
    keys.account(accountId),
    { plan },
    {
      onMissing: () => {
        throw new NotFoundError(`account ${accountId} does not exist`);
      },
    },
  );
  await copyPlanToKeys(table, accountId, plan);
}

/** The account's plan, from each key's next request: its keys' copies follow once it committed. */
export function planSetAccountPlan(accountId: string, plan: Plan): PlannedChange<void> {
  return {
    writes: [{ Update: { Key: keys.account(accountId), ...buildUpdate({ set: { plan }, condition: (e) => `attribute_exists(${e.name('pk')})` }) } }],
    result: undefined,
    after: { plan },
    followUp: (followUpTable) => copyPlanToKeys(followUpTable, accountId, plan),
    refused: () => new NotFoundError(`account ${accountId} does not exist`),
  };
}

/** Labels that move only through approved change requests, and how many distinct approvals each needs; `labels: []` is off. */
export interface ApprovalSettings {
  labels: string[];
  required: number;
}

/** An account asks for no approvals until its owners say so. */
export const NO_APPROVALS: Readonly<ApprovalSettings> = { labels: [], required: 1 };

export interface AccountSettings {
  accountId: string;
  name: string;
  plan: string;
  protectedLabels: string[];
  approvals: ApprovalSettings;
}

export async function getAccountSettings(table: Table, accountId: string): Promise<AccountSettings> {
  return (await readHeldSettings(table, accountId)).settings;
}

/** The account's settings as a change reads them, and the condition that holds them unchanged to its transaction. */
export interface HeldSettings {
  readonly settings: AccountSettings;
  /** For the change's `accountHolds` (operations/commit.ts): no settings change landed since they were read. */
  readonly holds: (e: ExpressionNames) => string;
}

export async function readHeldSettings(table: Table, accountId: string): Promise<HeldSettings> {
  const item = await table.get<AccountItem>('getAccountSettings', keys.account(accountId));
  if (!item) throw new NotFoundError(`account ${accountId} does not exist`);
  const revision = item.settingsRevision;
  return {
    settings: toSettings(item),
    holds: (e) => (revision === undefined ? `attribute_not_exists(${e.name('settingsRevision')})` : `${e.name('settingsRevision')} = ${e.value(revision)}`),
  };
}

export interface AccountSettingsChange {
  name?: string;
  protectedLabels?: string[];
  /** `labels: []` turns approvals off; `required` defaults to 1. */
  approvals?: { labels: string[]; required?: number };
}

/** The owners' settings: the name, the protected labels and the approvals (the plan is the operator's). */
export async function planUpdateAccountSettings(table: Table, accountId: string, change: AccountSettingsChange): Promise<PlannedChange<AccountSettings>> {
  const before = await getAccountSettings(table, accountId);
  const approvals =
    change.approvals === undefined
      ? undefined
      : change.approvals.labels.length === 0
        ? { ...NO_APPROVALS, labels: [] }
        : { labels: [...new Set(change.approvals.labels)], required: change.approvals.required ?? 1 };
  const after: AccountSettings = {
    ...before,
    ...(change.name === undefined ? {} : { name: change.name }),
    ...(change.protectedLabels === undefined ? {} : { protectedLabels: [...new Set(change.protectedLabels)] }),
    ...(approvals === undefined ? {} : { approvals }),
  };
  const audit = {
    name: after.name,
    protectedLabels: after.protectedLabels,
    approvals: after.approvals,
    was: { name: before.name, protectedLabels: before.protectedLabels, approvals: before.approvals },
  };
  if (change.name === undefined && change.protectedLabels === undefined && approvals === undefined) return { writes: [], result: before, after: audit };
  return {
    writes: [
      {
        Update: {
          Key: keys.account(accountId),
          ...buildUpdate({
            set: {
              name: change.name,
              protectedLabels: change.protectedLabels === undefined ? undefined : after.protectedLabels,
              // Off is no attribute, as on an account that never had approvals.
              approvals: approvals && approvals.labels.length > 0 ? approvals : undefined,
            },
            ...(approvals && approvals.labels.length === 0 ? { remove: ['approvals'] } : {}),
            // Every change decided on the settings read them under this revision: each is decided again.
            add: { settingsRevision: 1 },
            condition: (e) => `attribute_exists(${e.name('pk')})`,
          }),
        },
      },
    ],
    result: after,
    after: audit,
    refused: () => new NotFoundError(`account ${accountId} does not exist`),
  };
}

function toSettings(item: AccountItem): AccountSettings {
  return {
    accountId: item.accountId,
    name: item.name,
    plan: item.plan,
    protectedLabels: item.protectedLabels ?? [...DEFAULT_PROTECTED_LABELS],
    approvals: item.approvals ? { labels: [...item.approvals.labels], required: item.approvals.required } : { ...NO_APPROVALS, labels: [] },
  };
}
