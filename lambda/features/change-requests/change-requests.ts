import { randomBytes } from 'node:crypto';
import { parseTemplate, variablesOf } from '../../../client/src/template';
import { actorIdentity } from '../../domain/actor';
import { type ApprovalStanding, approvalStanding, rolesThatApprove } from '../../domain/approval-standing';
import { CHANGE_REQUEST_ID_PATTERN } from '../../domain/change-request';
import { labelledVersion } from '../../domain/label';
import type { PromptConfig } from '../../domain/prompt';
import type { Table } from '../../table/table';
import { ConflictError, NotFoundError } from '../../table/errors';
import { contentOf } from '../../table/item-builders';
import { requireNoOpenRequest } from './open-change-requests';
import type { RolloutStep } from '../../domain/rollout';
import { readHeldSettings } from '../accounts/accounts';
import type {
  ChangeRequestItem,
  ChangeRequestState,
  MemberItem,
  OpenRequestItem,
  PromptHeadItem,
  PromptLabelItem,
  PromptVersionItem,
  RequestApproval,
  RequestedRollout,
  WithKeys,
} from '../../table/item-types';
import { planRemoveLabel, planSetLabel } from '../labels/labels';
import { belowKey, newestFirstPage } from '../../table/newest-first';
import { keys, prefixes } from '../../table/schema';
import { fromStoredContent } from '../../table/stored-content';
import { conditionCheck, type TransactionWrite } from '../../table/transaction';
import { buildCondition, buildUpdate } from '../../table/update-expression';
import type { Actor } from '../../domain/actor';
import type { PlannedChange } from '../planned-change';
import type { RecordedStep } from '../planned-change';
import { PromptMissingError, PromptDeletedError, VersionNotPublishedError, RolloutActiveError } from '../errors';
import { requestReason } from '../labels/move-reasons';
import { planStartRollout, checkRolloutStart } from '../rollouts/start';

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
 */

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
  /** Each approval, and how it stands: whether it counts now (as it stood when the request closed, once closed), and why not. */
  readonly approvals: readonly ({ readonly by: string; readonly at: string; readonly comment: string | null } & ApprovalStanding)[];
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

export function newRequestId(at: string): string {
  return `req_${at.replace(/\D/g, '')}_${randomBytes(4).toString('hex')}`;
}

/** The request as the API answers it, each approval with its standing (`standingsOf`, in the order of `item.approvals`). */
export function toChangeRequest(item: ChangeRequestItem, standings: readonly ApprovalStanding[]): ChangeRequest {
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
    approvals: (item.approvals ?? []).map(({ by, at, comment }, index) => ({ by, at, comment: comment ?? null, ...standingAt(standings, index) })),
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

/** A standing that was not read counts for nothing: no approval is shown as counting without its giver's role read. */
const standingAt = (standings: readonly ApprovalStanding[], index: number): ApprovalStanding =>
  standings[index] ?? { counts: false, role: null, why: 'not read' };

/** The roles of these approvers in the account now, by identity (a user id; anything else is no member). */
async function approverRoles(table: Table, accountId: string, approvals: readonly Pick<RequestApproval, 'who'>[]): Promise<Map<string, MemberItem['role']>> {
  const who = [...new Set(approvals.map((approval) => approval.who))];
  if (who.length === 0) return new Map();
  const members = await table.batchGet<MemberItem>(who.map((userId) => keys.member(accountId, userId)));
  return new Map(members.map((member) => [member.userId, member.role]));
}

/**
 * How each approval of each request stands, in order: kept on a closed request (how it stood when it closed);
 * read anew for an open one, from the approvers' memberships and the account's protected labels as they are now.
 */
export async function standingsOf(table: Table, accountId: string, items: readonly ChangeRequestItem[]): Promise<Map<ChangeRequestItem, ApprovalStanding[]>> {
  const live = items.filter((item) => item.state === 'open' || item.approvals.some((approval) => approval.standing === undefined));
  const [protectedLabels, roles] =
    live.length === 0
      ? [[], new Map<string, MemberItem['role']>()]
      : await Promise.all([
          readHeldSettings(table, accountId).then(({ settings }) => settings.protectedLabels),
          approverRoles(
            table,
            accountId,
            live.flatMap((item) => item.approvals),
          ),
        ]);
  return new Map(
    items.map((item) => [
      item,
      item.approvals.map((approval) =>
        item.state !== 'open' && approval.standing ? approval.standing : approvalStanding(roles.get(approval.who), item.label, protectedLabels),
      ),
    ]),
  );
}

/** One request as the API answers it, its approvals' standings read. */
export async function answerOf(table: Table, accountId: string, item: ChangeRequestItem): Promise<ChangeRequest> {
  return toChangeRequest(item, (await standingsOf(table, accountId, [item])).get(item) ?? []);
}

export async function findRequest(table: Table, accountId: string, requestId: string): Promise<ChangeRequestItem | undefined> {
  if (!CHANGE_REQUEST_ID_PATTERN.test(requestId)) return undefined;
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
    result: toChangeRequest(item, []),
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
 * An approval. Only approvals from members who may still give them count (approval-standing.ts), by the
 * approvers' memberships and the account's protected labels as read now. Below `required` counting approvals, the
 * approval is recorded and the request stays open (an approval from someone demoted or removed since stays on it,
 * not counting). The approval that brings the `required`-th counting one closes it, in one transaction that holds
 * each counted approver's membership at a role that may approve, and the account's settings, as read: a demotion
 * or removal landing meanwhile refuses it, and it is planned again without that approval. Closing, it moves the
 * label as asked (the label's head under the revision read, its item, its history entry naming the request), if
 * the label still points at `from`; if it does not, the request turns stale and nothing moves (`stale: true`,
 * recorded as `request.stale`). A request that carries a rollout starts it instead, under the same rule (the label
 * stays on `from`). Each approval's standing is kept on the request as it closes.
 *
 * One approval per person: again is 409, unless the approvals that count, theirs among them, are enough (someone
 * demoted, then given their role back, renews theirs, which closes the request). Only open requests.
 */
export async function planApproveRequest(table: Table, accountId: string, requestId: string, approver: Decider): Promise<PlannedChange<RequestDecision>> {
  const item = await requireOpen(table, accountId, requestId);
  const at = table.timestamp();
  const comment = approver.comment ?? null;
  const given: RequestApproval = { who: approver.who, by: approver.by, at, comment };
  const again = item.approvals.some((approval) => approval.who === approver.who);
  const approvals = again ? item.approvals.map((approval) => (approval.who === approver.who ? given : approval)) : [...item.approvals, given];
  const [held, roles] = await Promise.all([readHeldSettings(table, accountId), approverRoles(table, accountId, approvals)]);
  const { protectedLabels } = held.settings;
  const standings = approvals.map((approval) => approvalStanding(roles.get(approval.who), item.label, protectedLabels));
  const counting = approvals.filter((_, index) => standings[index]?.counts === true);
  const target = { requestId, promptId: item.promptId, label: item.label };
  if (counting.length < item.required) {
    if (again) throw new ConflictError(`you have approved change request ${requestId} already: it needs another member's approval`);
    return {
      writes: [requestUpdate(accountId, item, { approvals })],
      result: { request: toChangeRequest({ ...item, approvals }, standings), stale: false },
      after: { approvals: approvals.length, counting: counting.length, required: item.required, state: 'open', from: item.from, to: item.to },
    };
  }
  // The approvals as they stood when it closed, kept on the request; each counted approver held at an approving role.
  const kept = approvals.map((approval, index) => ({ ...approval, standing: standingAt(standings, index) }));
  const approving = rolesThatApprove(item.label, protectedLabels);
  const stillApproving = counting.map((approval) =>
    conditionCheck(
      keys.member(accountId, approval.who),
      buildCondition((e) => `${e.name('role')} IN (${approving.map((role) => e.value(role)).join(', ')})`),
    ),
  );
  const decision = { by: approver.by, at, comment };
  const change = item.rollout ? await rolloutOfRequest(table, accountId, item, approver) : await moveOfRequest(table, accountId, item, approver);
  if (change.now !== item.from) {
    // The approval that finds it stale is its decision, not one more approval: those before it are kept as they stood.
    const before = item.approvals.map((approval, index) => ({ ...approval, standing: standingAt(standings, index) }));
    const stale = { ...item, approvals: before, state: 'stale' as const, decision };
    return {
      writes: [requestUpdate(accountId, item, { approvals: before, state: 'stale', decision }), pointerDelete(accountId, item), ...stillApproving],
      result: { request: toChangeRequest(stale, standings), stale: true },
      recordedAs: { action: 'request.stale' },
      after: { state: 'stale', from: item.from, to: item.to, now: change.now },
      accountHolds: held.holds,
    };
  }
  const { from, to } = item;
  const applied = { ...item, approvals: kept, state: 'applied' as const, decision };
  return {
    writes: [
      ...change.writes,
      requestUpdate(accountId, item, { approvals: kept, state: 'applied', decision }),
      pointerDelete(accountId, item),
      ...stillApproving,
    ],
    result: { request: toChangeRequest(applied, standings), stale: false },
    after: { approvals: approvals.length, counting: counting.length, required: item.required, state: 'applied', from, to },
    alsoRecords: [{ action: 'request.apply', target, after: { state: 'applied', from, to } }, change.step],
    visible: true,
    accountHolds: held.holds,
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

/**
 * A rejection (by a member who may move the label) or a withdrawal (by the requester): the request closed, nothing
 * moved, its approvals' standings kept as they were read at that moment.
 */
export async function planCloseRequest(
  table: Table,
  accountId: string,
  requestId: string,
  state: 'rejected' | 'withdrawn',
  decider: Decider,
): Promise<PlannedChange<RequestDecision>> {
  const item = await requireOpen(table, accountId, requestId);
  const standings = (await standingsOf(table, accountId, [item])).get(item) ?? [];
  const approvals = item.approvals.map((approval, index) => ({ ...approval, standing: standingAt(standings, index) }));
  const decision = { by: decider.by, at: table.timestamp(), comment: decider.comment ?? null };
  return {
    writes: [requestUpdate(accountId, item, { approvals, state, decision }), pointerDelete(accountId, item)],
    result: { request: toChangeRequest({ ...item, approvals, state, decision }, standings), stale: false },
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
    const open = items.filter((item) => item.state === 'open').sort(newestFirst);
    const standings = await standingsOf(table, accountId, open);
    return { requests: open.map((item) => toChangeRequest(item, standings.get(item) ?? [])) };
  }
  const limit = options.limit ?? REQUEST_PAGE_SIZE;
  const before = options.before;
  if (before !== undefined && !CHANGE_REQUEST_ID_PATTERN.test(before)) throw new RangeError('not a change request cursor');
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
  const standings = await standingsOf(table, accountId, requests);
  return { requests: requests.map((item) => toChangeRequest(item, standings.get(item) ?? [])), ...(next ? { next } : {}) };
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
