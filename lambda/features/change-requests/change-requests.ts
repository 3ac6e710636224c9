import { CHANGE_REQUEST_ID_PATTERN, type ChangeRequestState } from '../../domain/change-request';
import { ConflictError, NotFoundError } from '../../table/errors';
import type { ChangeRequestItem, WithKeys } from '../../table/item-types';
import { belowKey, newestFirstPage } from '../../table/newest-first';
import { keys, prefixes } from '../../table/schema';
import type { Table } from '../../table/table';
import { buildCondition } from '../../table/update-expression';
import { type ChangeRequest, standingsOf, toChangeRequest } from './answers';
import { listOpenChangeRequestPointers } from './open-change-requests';

/**
 * Change requests (docs/management-api.md "Change requests"): a move or removal of a label the account puts
 * under approval is asked for, not made. The request is an item of the account's partition; while it is open,
 * a second item names it under its prompt and label (`OPENREQ#<promptId>#<label>`), so a label has at most one
 * open request, and the open ones are one Query away. Each step is one transaction with its audit entry: opened,
 * approved, rejected, withdrawn; the approval that brings the `required`-th moves the label in the same
 * transaction (with its history entry, naming the request), conditional on it still pointing where it did
 * when asked, or marks the request stale when it no longer does. Approvals count while their givers may still
 * give them (lambda/domain/approval-standing.ts): the approval that would close the request holds each counted
 * approver's membership, at a role that may approve, to its transaction.
 *
 * This module finds and lists an account's requests; answers.ts says how each is answered, opening.ts opens one,
 * approving.ts and decisions.ts decide it, open-change-requests.ts keeps a label to one open request,
 * review-diff.ts is what a reviewer compares, and approval-gate.ts decides, for every door, whether a move is
 * asked for at all.
 */

export const CHANGE_REQUEST_PAGE_SIZE = 50;

export async function findChangeRequest(table: Table, accountId: string, requestId: string): Promise<ChangeRequestItem | undefined> {
  if (!CHANGE_REQUEST_ID_PATTERN.test(requestId)) return undefined;
  return table.get<ChangeRequestItem>('readChangeRequest', keys.changeRequest(accountId, requestId));
}

export async function requireChangeRequest(table: Table, accountId: string, requestId: string): Promise<ChangeRequestItem> {
  const item = await findChangeRequest(table, accountId, requestId);
  if (!item) throw new NotFoundError(`account ${accountId} has no change request ${requestId}`);
  return item;
}

/** Only an open request can be decided. */
export class ChangeRequestNotOpenError extends ConflictError {
  override readonly name: string = 'ChangeRequestNotOpenError';
  constructor(readonly changeRequest: ChangeRequestItem) {
    super(`change request ${changeRequest.requestId} is ${changeRequest.state}: only an open request can be decided`);
  }
}

/**
 * The account's requests, newest first. `open`: every open one (through their pointers: one Query and one
 * BatchGetItem, however old the account). Otherwise 50 a page, `before` the cursor (`next`) of the page before,
 * narrowed to one state when asked (a page then looks through at most 2,000 requests, and says where to go on).
 */
export async function listChangeRequests(
  table: Table,
  accountId: string,
  options: { state?: ChangeRequestState; before?: string; limit?: number } = {},
): Promise<{ requests: ChangeRequest[]; next?: string }> {
  if (options.state === 'open' && options.before === undefined) {
    const pointers = await listOpenChangeRequestPointers(table, accountId);
    const items = await table.batchGet<ChangeRequestItem>(pointers.map((pointer) => keys.changeRequest(accountId, pointer.requestId)));
    const open = items.filter((item) => item.state === 'open').sort(newestFirst);
    const standings = await standingsOf(table, accountId, open);
    return { requests: open.map((item) => toChangeRequest(item, standings.get(item) ?? [])) };
  }
  const limit = options.limit ?? CHANGE_REQUEST_PAGE_SIZE;
  const before = options.before;
  if (before !== undefined && !CHANGE_REQUEST_ID_PATTERN.test(before)) throw new RangeError('not a change request cursor');
  const upper = before === undefined ? `${prefixes.changeRequests}~` : belowKey(keys.changeRequest(accountId, before).sk);
  const filter = options.state === undefined ? undefined : buildCondition((e) => `${e.name('state')} = ${e.value(options.state)}`);
  const { items: page, nextKey } = await newestFirstPage<WithKeys<ChangeRequestItem>>(table, 'listChangeRequests', {
    accountId,
    lower: prefixes.changeRequests,
    upper,
    limit,
    ...(filter ? { filter: { ...filter, FilterExpression: filter.ConditionExpression } } : {}),
  });
  const next = nextKey?.slice(prefixes.changeRequests.length);
  const standings = await standingsOf(table, accountId, page);
  return { requests: page.map((item) => toChangeRequest(item, standings.get(item) ?? [])), ...(next ? { next } : {}) };
}

const newestFirst = (a: ChangeRequestItem, b: ChangeRequestItem): number => (a.requestId < b.requestId ? 1 : a.requestId > b.requestId ? -1 : 0);
