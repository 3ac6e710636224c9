import { type ApprovalStanding, approvalStanding } from '../../domain/approval-standing';
import type { ChangeRequestState } from '../../domain/change-request';
import type { RolloutStep } from '../../domain/rollout';
import type { ChangeRequestApproval, ChangeRequestItem, MemberItem } from '../../table/item-types';
import { keys } from '../../table/schema';
import type { Table } from '../../table/table';
import { readHeldSettings } from '../accounts/accounts';

/**
 * A change request as the API answers it: its item, each approval with how it stands now (approvals count while
 * their givers may still give them: lambda/domain/approval-standing.ts), and who asked for it.
 */

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

/** A standing that was not read counts for nothing: no approval is shown as counting without its giver's role read. */
export const standingAt = (standings: readonly ApprovalStanding[], index: number): ApprovalStanding =>
  standings[index] ?? { counts: false, role: null, why: 'not read' };

/** The roles of these approvers in the account now, by identity (a user id; anything else is no member). */
export async function approverRoles(
  table: Table,
  accountId: string,
  approvals: readonly Pick<ChangeRequestApproval, 'who'>[],
): Promise<Map<string, MemberItem['role']>> {
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
