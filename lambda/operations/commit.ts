import type { Table } from '../table/table';
import type { AuditEntryItem } from '../table/item-types';
import { type AuditAttempt, auditEntryWrite, type FailureReason, recordRefusal } from '../table/audit-log';
import { ConflictError, StoreUnavailableError } from '../table/errors';
import { copyRevisionToKeys, raiseRevisionWrite } from '../table/propagation';
import { keys } from '../table/schema';
import { conditionCheck, TransactionRefusedError, type TransactionWrite, writesItem } from '../table/transaction';
import { buildCondition, type ExpressionNames } from '../table/update-expression';
import { announcementOf } from './announcements';
import { type PlannedChange, StepRefusal } from '../features/planned-change';
import { eventTails, eventWrite } from '../table/outbox';
import { orderedTails } from '../table/ordered-tails';
import { eventActor } from '../domain/actor';

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
