import { findMember } from '../../features/members/members';
import type { ManagementMiddleware } from '../management-context';
import { notFound } from '../management-errors';
import { AccountId } from './path-parameters';
import { withinBudget } from './answer-budget';

/**
 * For a route under an account, the caller's membership of it, read on every request. Not a member, or
 * no such account: the same 404, and nothing recorded in an account the caller is not in.
 */
export const membership = (): ManagementMiddleware => ({
  before: async ({ event, context }) => {
    const accountId = event.pathParameters?.accountId;
    if (accountId === undefined) return;
    if (!AccountId.safeParse(accountId).success) throw notFound();
    const { caller, table } = context;
    if (!caller || !table) throw new Error('the caller and the store must be known before membership');
    const member = await withinBudget(context, findMember(table, accountId, caller.userId));
    if (!member) throw notFound();
    context.member = member;
    context.accountId = accountId;
  },
});
