import { answerOf } from '../../features/change-requests/answers';
import { findChangeRequest, listChangeRequests } from '../../features/change-requests/change-requests';
import { changeRequestDiff } from '../../features/change-requests/review-diff';
import { notFound } from '../management-errors';
import { defineRoute, type HandlerInput, type ManagementRoute } from '../route';
import * as contracts from './change-request-contracts';
import { requireLabelRole } from './label-access';

/**
 * Change requests (docs/management-api.md "Change requests"): a move of a label the account puts under
 * approval is asked for (PUT or DELETE of the label answers 202 with the request), then approved, rejected or
 * withdrawn here. Deciding takes a role that may move the label, and never the requester's own; withdrawing
 * is the requester's alone.
 */

/** The request, or 404 (an ApiError: a decision aimed at no request is recorded as refused). */
async function changeRequestOr404({ table }: Pick<HandlerInput, 'table'>, accountId: string, requestId: string) {
  const item = await findChangeRequest(table, accountId, requestId);
  if (!item) throw notFound(`account ${accountId} has no change request ${requestId}`);
  return item;
}

/**
 * Approving or rejecting: a member who may move the label. That it is not the one who asked (and that only they
 * withdraw it) the operations decide, for every door.
 */
async function requireDecider(request: Pick<HandlerInput, 'table' | 'member' | 'caller'>, accountId: string, item: { readonly label: string }): Promise<void> {
  await requireLabelRole(request, { accountId, label: item.label }, 'deciding a change request of it');
}

export const changeRequestRoutes: readonly ManagementRoute[] = [
  defineRoute(contracts.listChangeRequests, {
    access: 'read the account',
    async handle(request) {
      const { state, before } = request.query;
      const page = await listChangeRequests(request.table, request.params.accountId, {
        ...(state === undefined ? {} : { state }),
        ...(before === undefined ? {} : { before }),
      });
      return { status: 200, body: page };
    },
  }),
  defineRoute(contracts.readChangeRequest, {
    access: 'read the account',
    async handle(request) {
      const { accountId, requestId } = request.params;
      const item = await changeRequestOr404(request, accountId, requestId);
      const [answer, diff] = await Promise.all([answerOf(request.table, accountId, item), changeRequestDiff(request.table, accountId, item)]);
      return { status: 200, body: { request: answer, ...diff } };
    },
  }),
  defineRoute(contracts.approveChangeRequest, {
    access: 'move labels',
    action: 'request.approve',
    async handle(request) {
      const { accountId, requestId } = request.params;
      const item = await changeRequestOr404(request, accountId, requestId);
      await requireDecider(request, accountId, item);
      const decided = await request.ops.changeRequests.approve(accountId, item, request.body.comment);
      if (decided.stale) {
        // Written as stale (request.stale in the audit log), and nothing moved: the label is no longer where it was asked from.
        const now = decided.changeRequest.from === null ? 'was set' : `moved from ${decided.changeRequest.from}`;
        return {
          status: 409,
          body: {
            error: `label ${item.label} of prompt ${item.promptId} ${now} since change request ${requestId} was opened: the request is stale, nothing moved`,
            code: 'CONFLICT',
          },
        };
      }
      return { status: 200, body: { request: decided.changeRequest } };
    },
  }),
  defineRoute(contracts.rejectChangeRequest, {
    access: 'move labels',
    action: 'request.reject',
    async handle(request) {
      const { accountId, requestId } = request.params;
      const item = await changeRequestOr404(request, accountId, requestId);
      await requireDecider(request, accountId, item);
      return { status: 200, body: { request: (await request.ops.changeRequests.reject(accountId, item, request.body.comment)).changeRequest } };
    },
  }),
  defineRoute(contracts.withdrawChangeRequest, {
    access: 'read the account',
    action: 'request.withdraw',
    async handle(request) {
      const { accountId, requestId } = request.params;
      const item = await changeRequestOr404(request, accountId, requestId);
      return { status: 200, body: { request: (await request.ops.changeRequests.withdraw(accountId, item)).changeRequest } };
    },
  }),
];
