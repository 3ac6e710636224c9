import type { AccountItem, MemberItem, Role, WithKeys } from '../../table/item-types';
import { ADMIN_INDEX, adminIndexKeys, keys, prefixes } from '../../table/schema';
import { ConflictError, NotFoundError } from '../../table/errors';
import type { Table } from '../../table/table';
import type { TransactionRefusedError, TransactionWrite } from '../../table/transaction';
import { buildCondition, buildUpdate } from '../../table/update-expression';
import type { PlannedChange } from '../planned-change';

/**
 * People in accounts (docs/data-model.md): one member item per membership, in the account's partition
 * and indexed under the user. The account item's `owners` set guards that an account keeps an owner: it
 * changes in the same transaction as the member item.
 */

export type Member = Pick<MemberItem, 'userId' | 'email' | 'role' | 'addedAt' | 'addedBy'>;

export interface Membership {
  accountId: string;
  name: string;
  plan: string;
  role: Role;
}

/** The last owner cannot be demoted or removed. */
export class LastOwnerError extends ConflictError {
  override readonly name: string = 'LastOwnerError';
}

function toMember(item: MemberItem): Member {
  return { userId: item.userId, email: item.email, role: item.role, addedAt: item.addedAt, addedBy: item.addedBy };
}

/** The caller's membership, read strongly consistent: a removal or a role change applies from the next request. */
export async function findMember(table: Table, accountId: string, userId: string): Promise<Member | undefined> {
  const item = await table.get<MemberItem>('findMember', keys.member(accountId, userId));
  return item ? toMember(item) : undefined;
}

export async function listMembers(table: Table, accountId: string): Promise<Member[]> {
  const items = await table.queryPartition<MemberItem>('listMembers', accountId, prefixes.members, { ConsistentRead: true });
  return items.map(toMember);
}

/** Every account the user is a member of, with the role, name and plan read consistently from the items themselves. */
export async function membershipsOf(table: Table, userId: string): Promise<Membership[]> {
  const indexed = await table.query<{ accountId: string }>('membershipsOf', {
    IndexName: ADMIN_INDEX,
    KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
    ExpressionAttributeValues: { ':pk': adminIndexKeys.membershipsOf(userId), ':prefix': adminIndexKeys.memberPrefix },
  });
  const accountIds = [...new Set(indexed.map((item) => item.accountId))];
  if (accountIds.length === 0) return [];
  const [members, accounts] = await Promise.all([
    table.batchGet<MemberItem>(accountIds.map((accountId) => keys.member(accountId, userId))),
    table.batchGet<AccountItem>(accountIds.map(keys.account)),
  ]);
  const accountById = new Map(accounts.map((account) => [account.accountId, account]));
  return members
    .flatMap((member) => {
      const account = accountById.get(member.accountId);
      return account ? [{ accountId: account.accountId, name: account.name, plan: account.plan, role: member.role }] : [];
    })
    .sort((a, b) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0));
}

/** A new member; 409 if the user is one already. An owner joins the account's `owners` in the same transaction. */
export function planAddMember(table: Table, accountId: string, member: Pick<MemberItem, 'userId' | 'email' | 'role'>, addedBy: string): PlannedChange<Member> {
  const item: WithKeys<MemberItem> = {
    ...keys.member(accountId, member.userId),
    ...adminIndexKeys.member(member.userId, accountId),
    type: 'member',
    accountId,
    userId: member.userId,
    email: member.email,
    role: member.role,
    addedAt: table.timestamp(),
    addedBy,
  };
  return {
    writes: [
      { Put: { Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
      ...(member.role === 'owner' ? [addOwnerWrite(accountId, member.userId)] : []),
    ],
    result: toMember(item),
    refused: (error) =>
      error.failedAt(0)
        ? new ConflictError(`${member.email} is a member of account ${accountId} already`)
        : new NotFoundError(`account ${accountId} does not exist`),
  };
}

/**
 * A new role, from the next request on, in one transaction with the account's `owners`: demoting an owner
 * is conditional on another owner staying, so two owners demoting each other cannot both succeed.
 */
export async function planSetMemberRole(table: Table, accountId: string, userId: string, role: Role): Promise<PlannedChange<Member>> {
  const before = await requireMember(table, accountId, userId);
  if (before.role === role) return { writes: [], result: before, after: { role } };
  return {
    writes: [
      {
        Update: {
          Key: keys.member(accountId, userId),
          ...buildUpdate({ set: { role }, condition: (e) => `${e.name('role')} = ${e.value(before.role)}` }),
        },
      },
      ...ownersWrites(accountId, userId, before.role, role),
    ],
    result: { ...before, role },
    after: { role },
    refused: (error) => lastOwnerOr(error, accountId, `the role of ${before.email} changed meanwhile: read it again`),
  };
}

/** Out of the account from the next request on; the last owner stays. */
export async function planRemoveMember(table: Table, accountId: string, userId: string): Promise<PlannedChange<Member>> {
  const before = await requireMember(table, accountId, userId);
  return {
    writes: [
      { Delete: { Key: keys.member(accountId, userId), ...buildCondition((e) => `${e.name('role')} = ${e.value(before.role)}`) } },
      ...ownersWrites(accountId, userId, before.role, undefined),
    ],
    result: before,
    before: { email: before.email, role: before.role },
    refused: (error) => lastOwnerOr(error, accountId, `the role of ${before.email} changed meanwhile: read it again`),
  };
}

export async function requireMember(table: Table, accountId: string, userId: string): Promise<Member> {
  const member = await findMember(table, accountId, userId);
  if (!member) throw new NotFoundError(`account ${accountId} has no member ${userId}`);
  return member;
}

/** How the account's `owners` follow a member going from one role to another (or out: `undefined`). */
function ownersWrites(accountId: string, userId: string, from: Role, to: Role | undefined): TransactionWrite[] {
  if (from === 'owner' && to !== 'owner') return [removeOwnerWrite(accountId, userId)];
  if (from !== 'owner' && to === 'owner') return [addOwnerWrite(accountId, userId)];
  return [];
}

function addOwnerWrite(accountId: string, userId: string): TransactionWrite {
  return {
    Update: {
      Key: keys.account(accountId),
      ...buildUpdate({ add: { owners: new Set([userId]) }, condition: (e) => `attribute_exists(${e.name('pk')})` }),
    },
  };
}

function removeOwnerWrite(accountId: string, userId: string): TransactionWrite {
  return {
    Update: {
      Key: keys.account(accountId),
      ...buildUpdate({
        delete: { owners: new Set([userId]) },
        condition: (e) => `contains(${e.name('owners')}, ${e.value(userId)}) AND size(${e.name('owners')}) > ${e.value(1)}`,
      }),
    },
  };
}

/** The owners' condition is the second write of a role change or a removal; the member's own is the first. */
function lastOwnerOr(error: TransactionRefusedError, accountId: string, raced: string): Error {
  if (error.failedAt(1)) return new LastOwnerError(`account ${accountId} must keep at least one owner: make someone else an owner first`);
  return new ConflictError(raced);
}
