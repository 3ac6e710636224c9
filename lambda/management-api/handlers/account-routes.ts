import type * as z from 'zod';
import { getAccountSettings } from '../../table/accounts';
import { membershipsOf } from '../../table/members';
import type { ManagementRequest, RouteSpec } from '../management-request';
import { AccountPatchBody } from '../schemas';

const account = (request: ManagementRequest) => request.params.accountId as string;

export const accountRoutes: readonly RouteSpec[] = [
  {
    method: 'GET',
    path: '/api/me',
    access: 'signed-in',
    async handle({ caller, table }) {
      return { status: 200, body: { userId: caller.userId, email: caller.email, accounts: await membershipsOf(table, caller.userId) } };
    },
  },
  {
    method: 'GET',
    path: '/api/accounts/{accountId}',
    access: 'viewer',
    async handle(request) {
      return { status: 200, body: { ...(await getAccountSettings(request.table, account(request))), role: request.member?.role } };
    },
  },
  {
    method: 'PATCH',
    path: '/api/accounts/{accountId}',
    access: 'owner',
    action: 'account.update',
    body: AccountPatchBody,
    async handle(request) {
      const change = request.body as z.infer<typeof AccountPatchBody>;
      const settings = await request.ops.updateSettings(account(request), {
        ...(change.name === undefined ? {} : { name: change.name }),
        ...(change.protectedLabels === undefined ? {} : { protectedLabels: change.protectedLabels }),
      });
      return { status: 200, body: { ...settings, role: request.member?.role } };
    },
  },
];
