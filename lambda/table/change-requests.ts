import { randomBytes } from 'node:crypto';
import { parseTemplate, variablesOf } from '../../client/src/template';
import { labelledVersion } from '../domain/label';
import type { PromptConfig } from '../domain/prompt';
import type { Table } from './table';
import type { PlannedChange, RecordedStep } from './change';
import { ConflictError, NotFoundError, PromptDeletedError, PromptMissingError, RolloutActiveError, VersionNotPublishedError } from './errors';
import { contentOf } from './item-builders';
import { requireNoOpenRequest } from './open-requests';
import type { RolloutStep } from '../domain/rollout';
import type {
  Actor,
  ChangeRequestItem,
  ChangeRequestState,
  OpenRequestItem,
  PromptHeadItem,
  PromptLabelItem,
  PromptVersionItem,
  RequestedRollout,
  WithKeys,
} from './item-types';
import { requestReason } from './label-history';
import { planRemoveLabel, planSetLabel } from './labels';
import { checkRolloutStart, planStartRollout } from './rollouts';
import { belowKey, newestFirstPage } from './newest-first';
import { keys, prefixes } from './schema';
import { fromStoredContent } from './stored-content';
import type { TransactionWrite } from './transaction';
import { buildCondition, buildUpdate } from './update-expression';

/**
 * Change requests (docs/management-api.md "Change requests"): a move or removal of a label the account puts
 * under approval is asked for, not made. The request is an item of the account's partition; while it is open,
 * a second item names it under its prompt and label (`OPENREQ#<promptId>#<label>`), so a label has at most one
 * open request, and the open ones are one Query away. Each step is one transaction with its audit entry: opened,
 * approved, rejected, withdrawn; the approval that brings the `required`-th moves the label in the same
 * transaction (with its history entry, naming the request), conditional on it still pointing where it did
 * when asked, or marks the request stale when it no longer does.
 */

export const REQUEST_STATES = ['open', 'applied', 'rejected', 'withdrawn', 'stale'] as const satisfies readonly ChangeRequestState[];

/** `req_`, the instant it was asked (UTC, digits only: sorts by time), `_` and 8 hex digits. */
export const REQUEST_ID_PATTERN = /^req_\d{17}_[0-9a-f]{8}$/;

export const REQUEST_PAGE_SIZE = 50;

/** A request as the API answers it. */
export interface ChangeRequest {
  readonly requestId: string;
  readonly promptId: string;
  readonly label: string;
  readonly from: string | null;
  readonly to: string | null;
  readonly note: string | null;
  readonly restore: boolean;
  readonly requestedBy: string;
  readonly requestedAt: string;
  readonly required: number;
  readonly approvals: readonly { readonly by: string; readonly at: string; readonly comment: string | null }[];
  readonly state: ChangeRequestState;
  /** Who took it out of `open` (the approver who applied it, or found it stale; the rejecter; the requester), when, and their comment. */
  readonly decision: { readonly by: string; readonly at: string; readonly comment: string | null } | null;
  /** On a request to start a rollout (to `to`) rather than move the label: its share, steps and guard alarm. */
  readonly rollout?: { readonly percent: number; readonly steps: readonly RolloutStep[]; readonly guardAlarm: string | null };
}

/** The move a request asks for. */
export interface RequestedMove {
  readonly promptId: string;
  readonly label: string;
  /** `null`: take the label off. */
  readonly to: string | null;
  readonly note?: string | undefined;
  readonly restore?: boolean | undefined;
  /** Start a rollout to `to` when applied, rather than move the label (docs/rollouts.md). */
  readonly rollout?: RequestedRollout | undefined;
}

/** Who decides: an identity (one approval each), the name the request shows, and what they said. */
export interface Decider {
  /** A user id, or `cli:<operator>`. */
  readonly who: string;
  /** An email, or `cli:<operator>`. */
  readonly by: string;
  readonly comment?: string | undefined;
}

/** The identity that tells approvers apart, and the requester from them. */
export function actorIdentity(actor: Actor): string {
  switch (actor.type) {
    case 'user':
      return actor.userId;
    case 'cli':
      return `cli:${actor.operator}`;
    case 'system':
      return `system:${actor.name}`;
  }
}

export function newRequestId(at: string): string {
  return `req_${at.replace(/\D/g, '')}_${randomBytes(4).toString('hex')}`;
}

export function toChangeRequest(item: ChangeRequestItem): ChangeRequest {
  return {
    requestId: item.requestId,
    promptId: item.promptId,
    label: item.label,
    from: item.from ?? null,
    to: item.to ?? null,
    note: item.note ?? null,
    restore: item.restore === true,
    requestedBy: item.requestedBy,
    requestedAt: item.requestedAt,
    required: item.required,
    approvals: (item.approvals ?? []).map(({ by, at, comment }) => ({ by, at, comment: comment ?? null })),
    state: item.state,
    decision: item.decision ? { by: item.decision.by, at: item.decision.at, comment: item.decision.comment ?? null } : null,
    ...(item.rollout
      ? {
          rollout: {
            percent: Number(item.rollout.percent),
            steps: (item.rollout.steps ?? []).map(({ percent, afterMinutes }) => ({ percent: Number(percent), afterMinutes: Number(afterMinutes) })),
            guardAlarm: item.rollout.guardAlarm ?? null,
          },
        }
      : {}),
  };
}

/** Whether `actor` asked for the request. */
export const isRequester = (item: Pick<ChangeRequestItem, 'requester'>, actor: Actor): boolean => actorIdentity(item.requester) === actorIdentity(actor);

export async function findRequest(table: Table, accountId: string, requestId: string): Promise<ChangeRequestItem | undefined> {
  if (!REQUEST_ID_PATTERN.test(requestId)) return undefined;
  return table.get<ChangeRequestItem>('readRequest', keys.changeRequest(accountId, requestId));
}

export async function requireRequest(table: Table, accountId: string, requestId: string): Promise<ChangeRequestItem> {
  const item = await findRequest(table, accountId, requestId);
  if (!item) throw new NotFoundError(`account ${accountId} has no change request ${requestId}`);
  return item;
}

/** Only an open request can be decided. */
export class RequestNotOpenError extends ConflictError {
  override readonly name: string = 'RequestNotOpenError';
  constructor(readonly request: ChangeRequestItem) {
    super(`change request ${request.requestId} is ${request.state}: only an open request can be decided`);
  }
}

async function requireOpen(table: Table, accountId: string, requestId: string): Promise<ChangeRequestItem> {
  const item = await requireRequest(table, accountId, requestId);
  if (item.state !== 'open') throw new RequestNotOpenError(item);
  return item;
}

/** The writes that open a request for `move` (the label now at `from`): the request and its label's open pointer, both new. */
export function openRequestWrites(
  table: Table,
  accountId: string,
  move: RequestedMove & { readonly from: string | null },
  requester: { readonly actor: Actor; readonly by: string },
  required: number,
): { writes: TransactionWrite[]; item: ChangeRequestItem } {
  const requestedAt = table.timestamp();
  const requestId = newRequestId(requestedAt);
  const item: ChangeRequestItem = {
    accountId,
    requestId,
    promptId: move.promptId,
    label: move.label,
    from: move.from,
    to: move.to,
    note: move.note ?? null,
    restore: move.restore === true,
    requestedBy: requester.by,
    requester: requester.actor,
    requestedAt,
    required,
    approvals: [],
    state: 'open',
    revision: 1,
    ...(move.rollout ? { rollout: move.rollout } : {}),
  };
  const pointer: WithKeys<OpenRequestItem> = {
    ...keys.openRequest(accountId, move.promptId, move.label),
    type: 'openRequest',
    accountId,
    promptId: move.promptId,
    label: move.label,
    requestId,
    to: move.to,
  };
  return {
    item,
    writes: [
      { Put: { Item: { ...keys.changeRequest(accountId, requestId), type: 'changeRequest', ...item }, ConditionExpression: 'attribute_not_exists(pk)' } },
      { Put: { Item: pointer, ConditionExpression: 'attribute_not_exists(pk)' } },
    ],
  };
}

/**
 * A request to move (or remove) a label, checked as the move itself would be: the prompt is there (and not
 * deleted, for a move), the version published, the label elsewhere (there, for a removal), not rolling out; and
 * no other request of the label open. A request to start a rollout is checked as the start would be. `from` is
 * where the label points as it is read: if it moves before the request is approved, the approval finds the
 * request stale.
 */
export async function planOpenRequest(
  table: Table,
  accountId: string,
  move: RequestedMove,
  requester: { readonly actor: Actor; readonly by: string },
  required: number,
): Promise<PlannedChange<ChangeRequest>> {
  const from = move.rollout ? await rolloutRequestFrom(table, accountId, move, move.rollout) : await moveRequestFrom(table, accountId, move);
  const { writes, item } = openRequestWrites(table, accountId, { ...move, from }, requester, required);
  return {
    writes,
    result: toChangeRequest(item),
    after: { requestId: item.requestId, from, to: move.to, state: 'open', required, ...(move.rollout ? { rollout: move.rollout } : {}) },
    // The pointer was written meanwhile (another request of the label): read again, which names it.
    refused: () => 'again',
  };
}

/** Where the label points, for a request to move (or remove) it: checked as the move itself would be. */
async function moveRequestFrom(table: Table, accountId: string, move: RequestedMove): Promise<string | null> {
  const { promptId, label, to } = move;
  const [head, stored, item] = await Promise.all([
    table.get<PromptHeadItem>('openRequest', keys.promptHead(accountId, promptId)),
    to === null ? undefined : table.get<PromptVersionItem>('openRequest', keys.promptVersion(accountId, promptId, to)),
    table.get<PromptLabelItem>('openRequest', keys.promptLabel(accountId, label, promptId)),
  ]);
  if (!head) throw new PromptMissingError(accountId, promptId);
  const from = labelledVersion(head.labels, label) ?? null;
  if (to !== null) {
    if (head.deleted === true) throw new PromptDeletedError(accountId, promptId);
    if (stored?.published !== true) throw new VersionNotPublishedError(accountId, promptId, to, stored !== undefined);
    if (from === to) throw new ConflictError(`label ${label} of prompt ${promptId} points at ${to} already`);
  } else if (from === null) {
    throw new NotFoundError(`prompt ${promptId} has no label ${label}`);
  }
  // A request it could never apply: the label moves only through its rollout until that ends.
  if (item?.rollout) throw new RolloutActiveError(promptId, label, item.rollout.rolloutId);
  await requireNoOpenRequest(table, accountId, promptId, label);
  return from;
}

/** Where the label points, for a request to start a rollout: checked as the start itself would be. */
async function rolloutRequestFrom(table: Table, accountId: string, move: RequestedMove, rollout: RequestedRollout): Promise<string> {
  if (move.to === null) throw new RangeError('a rollout moves a label to a version');
  const point = await checkRolloutStart(table, accountId, { promptId: move.promptId, label: move.label, to: move.to, ...rollout });
  return point.from;
}

/** What deciding a request did: the request as it now stands, and whether the approval found it stale. */
export interface RequestDecision {
  readonly request: ChangeRequest;
  readonly stale: boolean;
}

/** The request's item changed, if nothing changed it since it was read (and it is still open). */
function requestUpdate(accountId: string, item: ChangeRequestItem, set: Partial<ChangeRequestItem>): TransactionWrite {
  return {
    Update: {
      Key: keys.changeRequest(accountId, item.requestId),
      ...buildUpdate({
        set: { ...set, revision: item.revision + 1 },
        condition: (e) => `${e.name('state')} = ${e.value('open')} AND ${e.name('revision')} = ${e.value(item.revision)}`,
      }),
    },
  };
}

/** The label's open pointer goes with the request's state: the request is open, so the pointer is its own. */
const pointerDelete = (accountId: string, item: ChangeRequestItem): TransactionWrite => ({
  Delete: { Key: keys.openRequest(accountId, item.promptId, item.label) },
});

/**
 * An approval. Below `required` distinct approvals, it is counted; the `required`-th moves the label as asked,
 * in the same transaction (the label's head under the revision read, its item, its history entry naming the
 * request), if the label still points at `from`. If it does not, the request turns stale and nothing moves
 * (`stale: true`, recorded as `request.stale`). A request that carries a rollout starts it instead, under the
 * same rule (the label stays on `from`). One approval per person; only open requests.
 */
export async function planApproveRequest(table: Table, accountId: string, requestId: string, approver: Decider): Promise<PlannedChange<RequestDecision>> {
  const item = await requireOpen(table, accountId, requestId);
  if (item.approvals.some((approval) => approval.who === approver.who)) {
    throw new ConflictError(`you have approved change request ${requestId} already: it needs another member's approval`);
  }
  const at = table.timestamp();
  const comment = approver.comment ?? null;
  const approvals = [...item.approvals, { who: approver.who, by: approver.by, at, comment }];
  const target = { requestId, promptId: item.promptId, label: item.label };
  if (approvals.length < item.required) {
    return {
      writes: [requestUpdate(accountId, item, { approvals })],
      result: { request: toChangeRequest({ ...item, approvals }), stale: false },
      after: { approvals: approvals.length, required: item.required, state: 'open', from: item.from, to: item.to },
    };
  }
  const decision = { by: approver.by, at, comment };
  const applied = { ...item, approvals, state: 'applied' as const, decision };
  const change = item.rollout ? await rolloutOfRequest(table, accountId, item, approver) : await moveOfRequest(table, accountId, item, approver);
  if (change.now !== item.from) {
    const stale = { ...item, state: 'stale' as const, decision };
    return {
      writes: [requestUpdate(accountId, item, { state: 'stale', decision }), pointerDelete(accountId, item)],
      result: { request: toChangeRequest(stale), stale: true },
      recordedAs: 'request.stale',
      after: { state: 'stale', from: item.from, to: item.to, now: change.now },
    };
  }
  const { from, to } = item;
  return {
    writes: [...change.writes, requestUpdate(accountId, item, { approvals, state: 'applied', decision }), pointerDelete(accountId, item)],
    result: { request: toChangeRequest(applied), stale: false },
    after: { approvals: approvals.length, required: item.required, state: 'applied', from, to },
    alsoRecords: [{ action: 'request.apply', target, after: { state: 'applied', from, to } }, change.step],
    visible: true,
  };
}

/** What applying a request changes: its writes and audit step, and where the label points now (the stale rule compares it with `from`). */
interface AppliedChange {
  readonly now: string | null;
  readonly writes: readonly TransactionWrite[];
  readonly step: RecordedStep;
}

/** The move (or removal) the request asks for, its history entry naming the request. */
async function moveOfRequest(table: Table, accountId: string, item: ChangeRequestItem, approver: Decider): Promise<AppliedChange> {
  const { promptId, label, from, to, requestId } = item;
  const cause = { by: approver.by, reason: requestReason(requestId) };
  const move = to === null ? await planRemoveLabel(table, accountId, promptId, label, cause) : await planSetLabel(table, accountId, promptId, label, to, cause);
  return {
    now: move.result.previousVersion ?? null,
    writes: move.writes,
    step:
      to === null
        ? { action: 'label.remove', target: { promptId, label }, requested: { requestId }, after: { was: from, requestId, reason: cause.reason } }
        : {
            action: 'label.set',
            target: { promptId, label },
            requested: { version: to, requestId },
            after: { version: to, was: from, requestId, reason: cause.reason },
          },
  };
}

/** The rollout the request carries, started by the approval that applies it (if the label still points at `from`). */
async function rolloutOfRequest(table: Table, accountId: string, item: ChangeRequestItem, approver: Decider): Promise<AppliedChange> {
  const { promptId, label, to, requestId, rollout } = item;
  const head = await table.get<PromptHeadItem>('approveRequest', keys.promptHead(accountId, promptId));
  const now = labelledVersion(head?.labels, label) ?? null;
  if (now !== item.from || to === null || !rollout) return { now, writes: [], step: { action: 'rollout.start', target: { promptId, label } } };
  const start = { promptId, label, to, ...rollout, ...(item.note === null ? {} : { note: item.note }) };
  const started = await planStartRollout(table, accountId, start, { by: approver.by }, { applying: requestId });
  return {
    now,
    writes: started.writes,
    step: {
      action: 'rollout.start',
      target: { promptId, label },
      requested: { to, ...rollout, requestId },
      after: { ...started.after, requestId },
    },
  };
}

/** A rejection (by a member who may move the label) or a withdrawal (by the requester): the request closed, nothing moved. */
export async function planCloseRequest(
  table: Table,
  accountId: string,
  requestId: string,
  state: 'rejected' | 'withdrawn',
  decider: Decider,
): Promise<PlannedChange<RequestDecision>> {
  const item = await requireOpen(table, accountId, requestId);
  const decision = { by: decider.by, at: table.timestamp(), comment: decider.comment ?? null };
  return {
    writes: [requestUpdate(accountId, item, { state, decision }), pointerDelete(accountId, item)],
    result: { request: toChangeRequest({ ...item, state, decision }), stale: false },
    after: { state, from: item.from, to: item.to },
  };
}

/** Every open request's pointer of the account (one Query): by prompt and label, where each would move it. */
export function listOpenRequestPointers(table: Table, accountId: string): Promise<OpenRequestItem[]> {
  return table.queryPartition<OpenRequestItem>('listOpenRequests', accountId, prefixes.openRequests, { ConsistentRead: true });
}

/**
 * The account's requests, newest first. `open`: every open one (through their pointers: one Query and one
 * BatchGetItem, however old the account). Otherwise 50 a page, `before` the cursor (`next`) of the page before,
 * narrowed to one state when asked (a page then looks through at most 2,000 requests, and says where to go on).
 */
export async function listRequests(
  table: Table,
  accountId: string,
  options: { state?: ChangeRequestState; before?: string; limit?: number } = {},
): Promise<{ requests: ChangeRequest[]; next?: string }> {
  if (options.state === 'open' && options.before === undefined) {
    const pointers = await listOpenRequestPointers(table, accountId);
    const items = await table.batchGet<ChangeRequestItem>(pointers.map((pointer) => keys.changeRequest(accountId, pointer.requestId)));
    return {
      requests: items
        .filter((item) => item.state === 'open')
        .sort(newestFirst)
        .map(toChangeRequest),
    };
  }
  const limit = options.limit ?? REQUEST_PAGE_SIZE;
  const before = options.before;
  if (before !== undefined && !REQUEST_ID_PATTERN.test(before)) throw new RangeError('not a change request cursor');
  const upper = before === undefined ? `${prefixes.changeRequests}~` : belowKey(keys.changeRequest(accountId, before).sk);
  const filter = options.state === undefined ? undefined : buildCondition((e) => `${e.name('state')} = ${e.value(options.state)}`);
  const { items: requests, nextKey } = await newestFirstPage<WithKeys<ChangeRequestItem>>(table, 'listRequests', {
    accountId,
    lower: prefixes.changeRequests,
    upper,
    limit,
    ...(filter ? { filter: { ...filter, FilterExpression: filter.ConditionExpression } } : {}),
  });
  const next = nextKey?.slice(prefixes.changeRequests.length);
  return { requests: requests.map(toChangeRequest), ...(next ? { next } : {}) };
}

const newestFirst = (a: ChangeRequestItem, b: ChangeRequestItem): number => (a.requestId < b.requestId ? 1 : a.requestId > b.requestId ? -1 : 0);

/** One side of a request's diff: a version's messages and config, or null for no version (no label, or removed). */
export interface RequestSide {
  readonly version: string;
  readonly systemMessage: string;
  readonly userMessage: string;
  readonly config: PromptConfig;
}

/** What a reviewer compares: both versions' content, and the placeholders the move adds and takes away. */
export interface RequestDiff {
  readonly fromVersion: RequestSide | null;
  readonly toVersion: RequestSide | null;
  readonly placeholders: { readonly added: string[]; readonly removed: string[] };
}

/** The placeholders of a version's messages, by the one template parser (client/src/template.ts) the clients and the dashboard use. */
const placeholdersOf = (side: RequestSide | null): string[] => (side ? variablesOf(parseTemplate(side.systemMessage), parseTemplate(side.userMessage)) : []);

export async function requestDiff(table: Table, accountId: string, item: Pick<ChangeRequestItem, 'promptId' | 'from' | 'to'>): Promise<RequestDiff> {
  const side = async (version: string | null): Promise<RequestSide | null> => {
    if (version === null) return null;
    const stored = await table.get<PromptVersionItem>('requestDiff', keys.promptVersion(accountId, item.promptId, version));
    if (!stored) return null;
    const { systemMessage, userMessage, config } = contentOf(fromStoredContent(stored));
    return { version, systemMessage, userMessage, config };
  };
  const [fromVersion, toVersion] = await Promise.all([side(item.from), side(item.to)]);
  const before = placeholdersOf(fromVersion);
  const after = placeholdersOf(toVersion);
  return {
    fromVersion,
    toVersion,
    placeholders: { added: after.filter((name) => !before.includes(name)), removed: before.filter((name) => !after.includes(name)) },
  };
}
