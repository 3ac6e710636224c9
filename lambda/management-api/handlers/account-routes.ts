import { getAccountSettings } from '../../features/accounts/accounts';
import { membershipsOf } from '../../features/members/members';
import { defineRoute, type ManagementRoute } from '../route';
import * as contracts from './account-contracts';

export const accountRoutes: readonly ManagementRoute[] = [
  defineRoute(contracts.readMe, {
    access: 'signed-in',
    async handle({ caller, table }) {
      return { status: 200, body: { userId: caller.userId, email: caller.email, accounts: await membershipsOf(table, caller.userId) } };
    },
  }),
  defineRoute(contracts.readAccount, {
    access: 'read the account',
    async handle(request) {
      return { status: 200, body: { ...(await getAccountSettings(request.table, request.params.accountId)), role: request.member?.role } };
    },
  }),
  defineRoute(contracts.updateAccount, {
    access: 'change account settings',
    action: 'account.update',
    async handle(request) {
      const change = request.body;
      const settings = await request.ops.accounts.updateSettings(request.params.accountId, {
        ...(change.name === undefined ? {} : { name: change.name }),
        ...(change.protectedLabels === undefined ? {} : { protectedLabels: change.protectedLabels }),
        ...(change.approvals === undefined
          ? {}
          : { approvals: { labels: change.approvals.labels, ...(change.approvals.required === undefined ? {} : { required: change.approvals.required }) } }),
        ...(change.models === undefined ? {} : { models: { monthlyTokens: change.models.monthlyTokens } }),
      });
      return { status: 200, body: { ...settings, role: request.member?.role } };
    },
  }),
];
