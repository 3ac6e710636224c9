import type { Table } from './table';
import type { AuditEntryItem } from './item-types';
import { type AuditAttempt, auditEntryWrite, type FailureReason, recordRefusal } from './audit-log';
import { ConflictError, StoreUnavailableError } from './errors';
import { copyRevisionToKeys, raiseRevisionWrite } from './propagation';
import { keys } from './schema';
import { conditionCheck, TransactionRefusedError, type TransactionWrite, writesItem } from './transaction';
import { buildCondition, type ExpressionNames } from './update-expression';
import { announcementOf } from './change-events';
import { eventTails, eventWrite } from './outbox';
import { orderedTails } from './ordered-tails';
import { eventActor } from '../domain/actor';

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
class StepRefusal extends Error {
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

export interface ChangeOptions {
  readonly reasonOf: FailureReason;
  /** Where refusals are recorded and a committed change is copied to keys: a later deadline than the change's. */
  readonly followUpTable?: Table;
  /** A copy to the keys that failed after the change committed: the change stands (the next change copies again). */
  readonly onCopyFailed?: (accountId: string, error: unknown) => void;
}

/** How many times a change is planned again when another change raced it. */
const PLAN_ATTEMPTS = 5;

/** Another change kept landing between this one's read and its write: a conflict the caller can try again. */
export class ChangeKeptRacingError extends ConflictError {
  override readonly name: string = 'ChangeKeptRacingError';
}

/**
 * Plans and commits one change; an error thrown by the plan (the change is not allowed as things stand)
 * is recorded as a refusal and thrown on. A store that cannot answer records nothing: nothing changed.
 */
export async function commitChange<T>(table: Table, attempt: AuditAttempt, plan: () => Promise<PlannedChange<T>>, options: ChangeOptions): Promise<T> {
  const followUp = options.followUpTable ?? table;
  // What the change was found to be, for the record of a refusal: the attempt, until a plan names another step.
  let attempted = attempt;
  try {
    for (let round = 1; round <= PLAN_ATTEMPTS; round += 1) {
      attempted = attempt;
      const planned = await plan().catch((error: unknown) => {
        if (!(error instanceof StepRefusal)) throw error;
        attempted = { ...attempt, ...error.step };
        throw error.refusal;
      });
      attempted = { ...attempt, ...planned.recordedAs };
      const before = planned.before ? { ...attempt.before, ...planned.before } : attempt.before;
      const main = { ...attempted, ...(before ? { before } : {}) };
      // Entries of one instant sort as the change made them: its own first, then each step.
      const tail = orderedTails();
      const entry = auditEntryWrite(table, main, 'succeeded', planned.after, tail(0));
      const steps = (planned.alsoRecords ?? []).map(({ after, ...step }, index) =>
        auditEntryWrite(table, { accountId: attempt.accountId, actor: attempt.actor, ...step }, 'succeeded', after, tail(index + 1)),
      );
      // A change that writes nothing (a label set where it points already) changed nothing: it announces nothing.
      const events = planned.writes.some(writesItem) ? announcements([entry.entry, ...steps.map((step) => step.entry)]) : [];
      const writes = [...planned.writes, ...accountWrites(attempt.accountId, planned), entry.write, ...steps.map((step) => step.write), ...events];
      try {
        await table.transact(attempt.action, writes, { proof: entry.key });
      } catch (error) {
        if (!(error instanceof TransactionRefusedError)) throw error;
        const meaning = planned.refused ? await planned.refused(error) : 'again';
        if (meaning === 'again') continue;
        throw meaning;
      }
      const report = (error: unknown) => options.onCopyFailed?.(attempt.accountId, error);
      if (planned.visible && !planned.revisionWrite) await copyRevisionToKeys(followUp, attempt.accountId).catch(report);
      if (planned.followUp) await planned.followUp(followUp).catch(report);
      return planned.result;
    }
    throw new ChangeKeptRacingError(`${attempt.action}: what it changes kept changing; try again`);
  } catch (error) {
    if (!(error instanceof StoreUnavailableError)) {
      const reason = options.reasonOf(error);
      const outcome = reason.code === 'INTERNAL_ERROR' ? 'failed' : 'refused';
      // A refusal the store cannot record is still answered as one.
      await recordRefusal(followUp, attempted, reason, outcome).catch(() => undefined);
    }
    throw error;
  }
}

/**
 * What a change writes to its account item: its raised prompt revision when the read API sees the change, under
 * what the plan holds of the account; or, for a change the read API does not see, only the check of what it holds.
 * One action per item: a transaction takes no second.
 */
function accountWrites(accountId: string, planned: Pick<PlannedChange<unknown>, 'visible' | 'accountHolds' | 'revisionWrite'>): TransactionWrite[] {
  if (planned.visible && planned.revisionWrite) {
    // The plan's own write of the account holds what it read of it: two actions on one item cannot share a transaction.
    if (planned.accountHolds) throw new Error('a change that writes the revision itself holds the account in that write');
    return [planned.revisionWrite];
  }
  if (planned.visible) return [raiseRevisionWrite(accountId, planned.accountHolds)];
  return planned.accountHolds ? [accountCheck(accountId, planned.accountHolds)] : [];
}

const accountCheck = (accountId: string, holds: (e: ExpressionNames) => string): TransactionWrite =>
  conditionCheck(
    keys.account(accountId),
    buildCondition((e) => `attribute_exists(${e.name('pk')}) AND ${holds(e)}`),
  );

/**
 * The events of a change's entries (docs/events.md), as puts of its own transaction (the outbox): one for each
 * entry whose action announces one, at the entry's time, so they exist exactly when the change does.
 */
function announcements(entries: readonly AuditEntryItem[]): TransactionWrite[] {
  const tail = eventTails();
  return entries.flatMap((entry) => {
    const announced = announcementOf(entry);
    if (!announced) return [];
    const event = { accountId: entry.accountId, time: entry.at, actor: eventActor(entry.actor), ...announced };
    return [eventWrite(event, tail(entries.indexOf(entry))).write];
  });
}

/**
 * A change without an audit entry, for the bulk paths that record one entry for the whole of their work (a
 * seed import, the benchmark's and the tests' fixtures): the same plan and transaction, planned again when
 * raced, and no events (docs/events.md: an import is not a change people make one by one). With `raiseRevisionOf`, a change the read API can see raises that account's revision and copies it
 * to its keys, as commitChange does; an import raises it once at its end instead. `callName` names its
 * transaction in the errors it may end with.
 */
export async function commitUnaudited<T>(
  table: Table,
  callName: string,
  plan: () => Promise<PlannedChange<T>>,
  options: { raiseRevisionOf?: string } = {},
): Promise<T> {
  const accountId = options.raiseRevisionOf;
  for (let round = 1; round <= PLAN_ATTEMPTS; round += 1) {
    const planned = await plan();
    const raises = accountId !== undefined && planned.visible === true && planned.writes.some(writesItem);
    const holds = planned.accountHolds;
    const account = raises ? [raiseRevisionWrite(accountId, holds)] : holds && accountId !== undefined ? [accountCheck(accountId, holds)] : [];
    try {
      await table.transact(callName, [...planned.writes, ...account]);
    } catch (error) {
      if (!(error instanceof TransactionRefusedError)) throw error;
      const meaning = planned.refused ? await planned.refused(error) : 'again';
      if (meaning === 'again') continue;
      throw meaning;
    }
    if (raises) await copyRevisionToKeys(table, accountId);
    return planned.result;
  }
  throw new ChangeKeptRacingError(`${callName}: what it changes kept changing; try again`);
}
