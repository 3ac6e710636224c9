import { approvalStanding, rolesThatApprove } from '../../domain/approval-standing';
import { labelledVersion } from '../../domain/label';
import { ConflictError } from '../../table/errors';
import type { ChangeRequestApproval, ChangeRequestItem, PromptHeadItem } from '../../table/item-types';
import { keys } from '../../table/schema';
import type { Table } from '../../table/table';
import { conditionCheck, type TransactionWrite } from '../../table/transaction';
import { buildCondition } from '../../table/update-expression';
import { readHeldSettings } from '../accounts/accounts';
import { planRemoveLabel, planSetLabel } from '../labels/labels';
import { changeRequestReason } from '../labels/move-reasons';
import type { PlannedChange, RecordedStep } from '../planned-change';
import { planStartRollout } from '../rollouts/start';
import { approverRoles, standingAt, toChangeRequest } from './answers';
import { type ChangeRequestDecision, changeRequestUpdate, type Decider, pointerDelete, requireDecidableChangeRequest } from './decisions';

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
 * demoted, then given their role back, renews theirs, which closes the request). Only open requests, and never by the
 * requester (NotTheDeciderError).
 */
export async function planApproveChangeRequest(
  table: Table,
  accountId: string,
  requestId: string,
  approver: Decider,
): Promise<PlannedChange<ChangeRequestDecision>> {
  const item = await requireDecidableChangeRequest(table, accountId, requestId, approver, 'approved');
  const at = table.timestamp();
  const comment = approver.comment ?? null;
  const given: ChangeRequestApproval = { who: approver.who, by: approver.by, at, comment };
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
      writes: [changeRequestUpdate(accountId, item, { approvals })],
      result: { changeRequest: toChangeRequest({ ...item, approvals }, standings), stale: false },
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
  const change = item.rollout ? await rolloutOfChangeRequest(table, accountId, item, approver) : await moveOfChangeRequest(table, accountId, item, approver);
  if (change.now !== item.from) {
    // The approval that finds it stale is its decision, not one more approval: those before it are kept as they stood.
    const before = item.approvals.map((approval, index) => ({ ...approval, standing: standingAt(standings, index) }));
    const stale = { ...item, approvals: before, state: 'stale' as const, decision };
    return {
      writes: [changeRequestUpdate(accountId, item, { approvals: before, state: 'stale', decision }), pointerDelete(accountId, item), ...stillApproving],
      result: { changeRequest: toChangeRequest(stale, standings), stale: true },
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
      changeRequestUpdate(accountId, item, { approvals: kept, state: 'applied', decision }),
      pointerDelete(accountId, item),
      ...stillApproving,
    ],
    result: { changeRequest: toChangeRequest(applied, standings), stale: false },
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
async function moveOfChangeRequest(table: Table, accountId: string, item: ChangeRequestItem, approver: Decider): Promise<AppliedChange> {
  const { promptId, label, from, to, requestId } = item;
  const cause = { by: approver.by, reason: changeRequestReason(requestId) };
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
async function rolloutOfChangeRequest(table: Table, accountId: string, item: ChangeRequestItem, approver: Decider): Promise<AppliedChange> {
  const { promptId, label, to, requestId, rollout } = item;
  const head = await table.get<PromptHeadItem>('approveChangeRequest', keys.promptHead(accountId, promptId));
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
