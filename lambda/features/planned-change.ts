import { StoreUnavailableError } from '../table/errors';
import type { AuditAttempt } from '../table/audit-log';
import type { Table } from '../table/table';
import type { TransactionRefusedError, TransactionWrite } from '../table/transaction';
import type { ExpressionNames } from '../table/update-expression';

/**
 * How a person's change is written (docs/data-model.md "One change, one transaction"): read what it
 * depends on, plan its writes, and commit them with its audit entry (and, when the read API can see the
 * change, the account's raised prompt revision) as one transaction. It is whole or absent, and its audit
 * entry exists exactly when it happened.
 */
export interface PlannedChange<T> {
  /** The change's items, each with the condition that what the plan read still holds. */
  readonly writes: readonly TransactionWrite[];
  /** What the caller is answered once it committed. */
  readonly result: T;
  /** What the audit entry says the change made. */
  readonly after?: Record<string, unknown>;
  /** What the plan read of what it changes, as the audit entry says it was (added to the attempt's `before`). */
  readonly before?: Record<string, unknown>;
  /**
   * The step its entry names, when the plan finds the change is another than the one attempted (an approval that
   * finds the label moved marks the request `request.stale`; a move of a label under approval is asked for,
   * `request.open`: see `plannedAs`, which names a refusal so too).
   */
  readonly recordedAs?: ChangeStep;
  /**
   * What the plan's decision read of the account item (its settings: whether a label is under approval, which
   * labels are protected), held by the transaction: the account's condition, added to the write that raises its
   * prompt revision when the change is visible, a ConditionCheck of the account item otherwise. Changed meanwhile,
   * the change is planned again (a refused condition means `again` unless `refused` says otherwise).
   */
  readonly accountHolds?: (e: ExpressionNames) => string;
  /**
   * More entries for the same transaction, when one change makes several that the log names apart (one
   * prompt of a push: created, published, labelled); each is written with the change, as its first is.
   */
  readonly alsoRecords?: readonly RecordedStep[];
  /** The read API serves what changed: the account's prompt revision is raised with it, then copied to its keys. */
  readonly visible?: boolean;
  /**
   * How a visible change raises the revision, when the plan writes it itself: an end of a rollout sets the revision
   * it gives the keys it fences in the same transaction, and its followUp gives it to the others (served-counts.ts).
   * Otherwise the revision goes up by one, and is copied to every key once committed.
   */
  readonly revisionWrite?: TransactionWrite;
  /** More to do once it committed, outside the transaction (copies on other items); a failure leaves the change standing. */
  readonly followUp?: (table: Table) => Promise<void>;
  /**
   * What a failed condition means. `again` (the default): something the plan read changed meanwhile, so it
   * is read and planned anew; or the error to answer with (recorded as a refusal).
   */
  readonly refused?: (error: TransactionRefusedError) => Promise<Error | 'again'> | Error | 'again';
}

/** What a change is, as its audit entry names it: the action, on what, asked how. */
export type ChangeStep = Pick<AuditAttempt, 'action'> & Partial<Pick<AuditAttempt, 'target' | 'requested'>>;

/** A plan's refusal of the change it found the attempt to be (`plannedAs`): recorded as that step. */
export class StepRefusal extends Error {
  constructor(
    readonly step: ChangeStep,
    readonly refusal: unknown,
  ) {
    super(`${step.action} refused`);
  }
}

/**
 * Plans the change as `step`, which its entry names in place of the attempt's, and so does a refusal of it: a move
 * of a label under approval is asked for (`request.open`), whichever door it came through. A store that cannot
 * answer is no refusal: nothing is recorded of it either way.
 */
export async function plannedAs<T>(step: ChangeStep, plan: () => Promise<PlannedChange<T>>): Promise<PlannedChange<T>> {
  try {
    return { ...(await plan()), recordedAs: step };
  } catch (error) {
    throw error instanceof StoreUnavailableError ? error : new StepRefusal(step, error);
  }
}

/** One more step of a change, as its audit entry names it (the actor and the account are the change's). */
export type RecordedStep = Omit<AuditAttempt, 'accountId' | 'actor'> & { readonly after?: Record<string, unknown> };
