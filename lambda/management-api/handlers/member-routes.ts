import { may, mayManageMember } from '../../domain/roles';
import type { Table } from '../../table/table';
import { findMember, listMembers, type Member } from '../../features/members/members';
import { forbidden, notFound } from '../management-errors';
import { defineRoute, type ManagementRoute } from '../route';
import * as contracts from './member-contracts';

async function requireTarget(table: Table, { accountId, userId }: { readonly accountId: string; readonly userId: string }): Promise<Member> {
  const target = await findMember(table, accountId, userId);
  if (!target) throw notFound(`account ${accountId} has no member ${userId}`);
  return target;
}

/** Admins manage everyone below owner; owners everyone. */
function requireMayManage(member: Member | undefined, from: Member['role'] | undefined, to: Member['role'] | undefined): void {
  const caller = member?.role ?? 'viewer';
  if (!mayManageMember(caller, from, to)) throw forbidden(`an ${caller} cannot add, change or remove owners: only owners can`);
}

export const memberRoutes: readonly ManagementRoute[] = [
  defineRoute(contracts.listMembers, {
    access: 'read the account',
    async handle(request) {
      return { status: 200, body: { members: await listMembers(request.table, request.params.accountId) } };
    },
  }),
  defineRoute(contracts.addMember, {
    access: 'manage members',
    action: 'member.add',
    bodyTarget: ['email'],
    async handle(request) {
      const input = request.body;
      requireMayManage(request.member, undefined, input.role);
      const { member, temporaryPassword } = await request.ops.members.add(request.params.accountId, input);
      // The temporary password (only where the pool emails no invitation) is shown this once, to whoever added the person.
      return { status: 201, body: { member, ...(temporaryPassword ? { temporaryPassword } : {}) } };
    },
  }),
  defineRoute(contracts.setMemberRole, {
    access: 'manage members',
    action: 'member.set-role',
    async handle(request) {
      const { role } = request.body;
      const target = await requireTarget(request.table, request.params);
      requireMayManage(request.member, target.role, role);
      const member = await request.ops.members.setRole(request.params.accountId, target.userId, role, target);
      return { status: 200, body: member };
    },
  }),
  defineRoute(contracts.removeMember, {
    // Anyone may leave an account (the last owner excepted, 409); removing someone else needs an admin.
    access: 'leave the account',
    action: 'member.remove',
    async handle(request) {
      const target = await requireTarget(request.table, request.params);
      if (target.userId !== request.caller.userId) {
        if (!request.member || !may(request.member.role, 'manage members'))
          throw forbidden(`a ${request.member?.role ?? 'viewer'} may leave the account, but only admins remove other members`);
        requireMayManage(request.member, target.role, undefined);
      }
      await request.ops.members.remove(request.params.accountId, target.userId, target);
      return { status: 204 };
    },
  }),
];
