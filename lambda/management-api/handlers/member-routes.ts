import type * as z from 'zod';
import { atLeast, mayManageMember } from '../../domain/roles';
import { findMember, listMembers, type Member } from '../../table/members';
import { forbidden, notFound } from '../management-errors';
import type { ManagementRequest, RouteSpec } from '../management-request';
import { MemberAddBody, MemberPatchBody } from '../schemas';

const MEMBERS = '/api/accounts/{accountId}/members';
const MEMBER = `${MEMBERS}/{userId}`;

const param = (request: ManagementRequest, name: string): string => request.params[name] as string;

async function requireTarget(request: ManagementRequest): Promise<Member> {
  const target = await findMember(request.table, param(request, 'accountId'), param(request, 'userId'));
  if (!target) throw notFound(`account ${param(request, 'accountId')} has no member ${param(request, 'userId')}`);
  return target;
}

/** Admins manage everyone below owner; owners everyone. */
function requireMayManage(request: ManagementRequest, from: Member['role'] | undefined, to: Member['role'] | undefined): void {
  const caller = request.member?.role ?? 'viewer';
  if (!mayManageMember(caller, from, to)) throw forbidden(`an ${caller} cannot add, change or remove owners: only owners can`);
}

export const memberRoutes: readonly RouteSpec[] = [
  {
    method: 'GET',
    path: MEMBERS,
    access: 'viewer',
    async handle(request) {
      return { status: 200, body: { members: await listMembers(request.table, param(request, 'accountId')) } };
    },
  },
  {
    method: 'POST',
    path: MEMBERS,
    access: 'admin',
    action: 'member.add',
    bodyTarget: ['email'],
    body: MemberAddBody,
    async handle(request) {
      const input = request.body as z.infer<typeof MemberAddBody>;
      requireMayManage(request, undefined, input.role);
      const { member, temporaryPassword } = await request.ops.addMember(param(request, 'accountId'), input);
      // The temporary password (only where the pool emails no invitation) is shown this once, to whoever added the person.
      return { status: 201, body: { member, ...(temporaryPassword ? { temporaryPassword } : {}) } };
    },
  },
  {
    method: 'PATCH',
    path: MEMBER,
    access: 'admin',
    action: 'member.set-role',
    body: MemberPatchBody,
    async handle(request) {
      const { role } = request.body as z.infer<typeof MemberPatchBody>;
      const target = await requireTarget(request);
      requireMayManage(request, target.role, role);
      const member = await request.ops.setMemberRole(param(request, 'accountId'), target.userId, role, target);
      return { status: 200, body: member };
    },
  },
  {
    method: 'DELETE',
    path: MEMBER,
    // Anyone may leave an account (the last owner excepted, 409); removing someone else needs an admin.
    access: 'viewer',
    action: 'member.remove',
    async handle(request) {
      const target = await requireTarget(request);
      if (target.userId !== request.caller.userId) {
        if (!request.member || !atLeast(request.member.role, 'admin')) throw forbidden(`a ${request.member?.role ?? 'viewer'} may leave the account, but only admins remove other members`);
        requireMayManage(request, target.role, undefined);
      }
      await request.ops.removeMember(param(request, 'accountId'), target.userId, target);
      return { status: 204 };
    },
  },
];
