import type { AccountItem, MemberItem, Role, WithKeys } from './item-types';
import { ADMIN_INDEX, adminIndexKeys, keys, prefixes } from './schema';
import { ConflictError, NotFoundError } from './errors';
import type { AdminTable } from './admin-table';

/**
 * People in accounts (docs/data-model.md): one member item per membership, in the account's partition
 * and indexed under the user. The account item's `owners` set guards that an account keeps an owner.
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
export async function findMember(table: AdminTable, accountId: string, userId: string): Promise<Member | undefined> {
  const item = await table.get<MemberItem>('findMember', keys.member(accountId, userId));
  return item ? toMember(item) : undefined;
}

export async function listMembers(table: AdminTable, accountId: string): Promise<Member[]> {
  const items = await table.queryPartition<MemberItem>('listMembers', accountId, prefixes.members, { ConsistentRead: true });
  return items.map(toMember);
}

/** Every account the user is a member of, with the role, name and plan read consistently from the items themselves. */
export async function membershipsOf(table: AdminTable, userId: string): Promise<Membership[]> {
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

/** A new member; 409 if the user is one already. An owner is added to the account's `owners` after the member item. */
export async function addMember(
  table: AdminTable,
  accountId: string,
  member: Pick<MemberItem, 'userId' | 'email' | 'role'>,
  addedBy: string,
): Promise<Member> {
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
  await table.put('addMember', { Item: item, ConditionExpression: 'attribute_not_exists(pk)' }, () => {
    throw new ConflictError(`${member.email} is a member of account ${accountId} already`);
  });
  if (member.role === 'owner') await addOwner(table, accountId, member.userId);
  return toMember(item);
}

/**
 * A new role, from the next request on. Demoting an owner takes them out of `owners` first, on the
 * condition that another owner stays; promoting adds them after the member item is written.
 */
export async function setMemberRole(
  table: AdminTable,
  accountId: string,
  userId: string,
  role: Role,
): Promise<{ before: Member; after: Member }> {
  const before = await requireMember(table, accountId, userId);
  if (before.role === role) return { before, after: before };
  if (before.role === 'owner') await removeOwner(table, accountId, userId);
  try {
    await table.update(
      'setMemberRole',
      {
        Key: keys.member(accountId, userId),
        UpdateExpression: 'SET #role = :role',
        ConditionExpression: '#role = :before',
        ExpressionAttributeNames: { '#role': 'role' },
        ExpressionAttributeValues: { ':role': role, ':before': before.role },
      },
      () => {
        throw new ConflictError(`the role of ${before.email} changed meanwhile: read it again`);
      },
    );
  } catch (error) {
    if (before.role === 'owner') await addOwner(table, accountId, userId);
    throw error;
  }
  if (role === 'owner') await addOwner(table, accountId, userId);
  return { before, after: { ...before, role } };
}

/** Out of the account from the next request on; the last owner stays. */
export async function removeMember(table: AdminTable, accountId: string, userId: string): Promise<Member> {
  const before = await requireMember(table, accountId, userId);
  if (before.role === 'owner') await removeOwner(table, accountId, userId);
  try {
    await table.delete('removeMember', {
      Key: keys.member(accountId, userId),
      ConditionExpression: '#role = :before',
      ExpressionAttributeNames: { '#role': 'role' },
      ExpressionAttributeValues: { ':before': before.role },
    }, () => {
      throw new ConflictError(`the role of ${before.email} changed meanwhile: read it again`);
    });
  } catch (error) {
    if (before.role === 'owner') await addOwner(table, accountId, userId);
    throw error;
  }
  return before;
}

export async function requireMember(table: AdminTable, accountId: string, userId: string): Promise<Member> {
  const member = await findMember(table, accountId, userId);
  if (!member) throw new NotFoundError(`account ${accountId} has no member ${userId}`);
  return member;
}

async function addOwner(table: AdminTable, accountId: string, userId: string): Promise<void> {
  await table.update('addOwner', {
    Key: keys.account(accountId),
    UpdateExpression: 'ADD #owners :user',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeNames: { '#owners': 'owners' },
    ExpressionAttributeValues: { ':user': new Set([userId]) },
  });
}

async function removeOwner(table: AdminTable, accountId: string, userId: string): Promise<void> {
  await table.update(
    'removeOwner',
    {
      Key: keys.account(accountId),
      UpdateExpression: 'DELETE #owners :user',
      ConditionExpression: 'contains(#owners, :userId) AND size(#owners) > :one',
      ExpressionAttributeNames: { '#owners': 'owners' },
      ExpressionAttributeValues: { ':user': new Set([userId]), ':userId': userId, ':one': 1 },
    },
    () => {
      throw new LastOwnerError(`account ${accountId} must keep at least one owner: make someone else an owner first`);
    },
  );
}
