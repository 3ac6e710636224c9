import type { Role } from '../../domain/roles';
import { commitUnaudited } from '../../operations/commit';
import type { OperationContext } from '../../operations/context';
import type { MemberItem } from '../../table/item-types';
import type { Table } from '../../table/table';
import { normalizeEmail, type UserDirectory } from '../../users/user-directory';
import { type Member, planAddMember, planRemoveMember, planSetMemberRole } from './members';

/** People in an account (`ops.members`): added, their role set, removed; each audited (docs/data-model.md). */
export class MemberOperations {
  constructor(private readonly context: OperationContext) {}

  /**
   * Finding or creating the person in the user pool cannot be in the store's transaction: a user created for
   * a membership that then fails stays a user (with no account), and the entry says `failed`.
   */
  async add(accountId: string, input: { email: string; role: Role }): Promise<{ member: Member; temporaryPassword?: string }> {
    const { table, by } = this.context;
    const email = normalizeEmail(input.email);
    const directory = this.context.deps.directory;
    if (!directory) throw new Error('adding members needs the user directory (USER_POOL_ID)');
    let created: Awaited<ReturnType<UserDirectory['createUser']>> | undefined;
    return this.context.audited({ accountId, action: 'member.add', target: { email }, requested: { email, role: input.role } }, async () => {
      const found = await directory.findByEmail(email);
      created = found ? undefined : (created ?? (await directory.createUser(email)));
      const user = found ?? created?.user;
      if (!user) throw new Error('the user directory returned no user');
      const planned = planAddMember(table, accountId, { userId: user.userId, email: user.email, role: input.role }, by);
      const temporaryPassword = created?.temporaryPassword;
      return {
        ...planned,
        result: { member: planned.result, ...(temporaryPassword ? { temporaryPassword } : {}) },
        after: { userId: user.userId, role: input.role, userCreated: created !== undefined },
      };
    });
  }

  setRole(accountId: string, userId: string, role: Role, before?: Member): Promise<Member> {
    return this.context.audited(
      { accountId, action: 'member.set-role', target: { userId }, requested: { role }, ...(before ? { before: { role: before.role } } : {}) },
      () => planSetMemberRole(this.context.table, accountId, userId, role),
    );
  }

  remove(accountId: string, userId: string, before?: Member): Promise<Member> {
    return this.context.audited(
      { accountId, action: 'member.remove', target: { userId }, ...(before ? { before: { role: before.role, email: before.email } } : {}) },
      () => planRemoveMember(this.context.table, accountId, userId),
    );
  }
}

/** For bulk paths (fixtures, the local demo): a member added without an audit entry of its own. */
export function addMember(table: Table, accountId: string, member: Pick<MemberItem, 'userId' | 'email' | 'role'>, addedBy: string): Promise<Member> {
  return commitUnaudited(table, 'addMember', async () => planAddMember(table, accountId, member, addedBy));
}

/** For bulk paths: a role set without an audit entry of its own. */
export function setMemberRole(table: Table, accountId: string, userId: string, role: Role): Promise<Member> {
  return commitUnaudited(table, 'setMemberRole', () => planSetMemberRole(table, accountId, userId, role));
}
