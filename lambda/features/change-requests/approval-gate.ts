import { type AccountSettings, readHeldSettings } from '../accounts/accounts';
import type { Table } from '../../table/table';
import type { ExpressionNames } from '../../table/update-expression';
import type { Actor } from '../../domain/actor';

/**
 * Does this label move only through a change request? The one place that says so
 * (docs/management-api.md "Change requests"), asked inside every change that may move a label, whichever door it
 * came through: a move, a removal or a restore from the management API or the CLI, a rollout start
 * (label-moves.ts), one prompt of a push (prompt-release.ts). A door decides nothing of it. The answer comes from the
 * account's approvals as the change reads them, and the change's transaction holds them (`accountHolds`,
 * operations/commit.ts): approvals turned on or off meanwhile refuse the transaction, and the change is planned, and decided,
 * again.
 */

/** Who moves a label: their actor (a request's requester) and name, and whether they break the glass. */
export interface Mover {
  readonly actor: Actor;
  readonly by: string;
  /**
   * The operator's break-glass (the CLI's `--break-glass`): a label under approval moves without its request, and
   * its history and audit entry say so. Only an operator (`cli`) may: nobody else's door offers it.
   */
  readonly breakGlass?: boolean;
}

export interface ApprovalGate {
  /** Whether a move of `label` is asked for (a change request) rather than made. */
  asks(label: string): boolean;
  /** Whether a move of `label` is the operator's break-glass: a label under approval, moved without its request. */
  breaks(label: string): boolean;
  /** The approvals a request opened now needs. */
  readonly required: number;
  readonly settings: AccountSettings;
  /** The settings as read, held by the change's transaction (its `accountHolds`). */
  readonly holds: (e: ExpressionNames) => string;
}

/** Break-glass asked by anyone but an operator: no door offers it to anyone else, so it is a caller's mistake. */
export class BreakGlassNotAllowedError extends Error {
  override readonly name = 'BreakGlassNotAllowedError';
  constructor() {
    super("break-glass is the operator's alone (the admin CLI): a member asks for a move of a label under approval");
  }
}

export async function readApprovalGate(table: Table, accountId: string, mover: Mover): Promise<ApprovalGate> {
  if (mover.breakGlass === true && mover.actor.type !== 'cli') throw new BreakGlassNotAllowedError();
  const { settings, holds } = await readHeldSettings(table, accountId);
  const underApproval = (label: string) => settings.approvals.labels.includes(label);
  return {
    asks: (label) => underApproval(label) && mover.breakGlass !== true,
    breaks: (label) => underApproval(label) && mover.breakGlass === true,
    required: settings.approvals.required,
    settings,
    holds,
  };
}
