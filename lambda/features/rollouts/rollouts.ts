import { randomBytes } from 'node:crypto';
import { isSettableLabel, LABEL_RULE } from '../../domain/label';
import { isValidPercent, PERCENT_RULE, type RolloutState, type RolloutStep } from '../../domain/rollout';
import { ALARM_NAME_RULE, isAlarmName, stepsProblem } from '../../domain/rollout-rules';
import { VERSION_PATTERN } from '../../domain/version';
import { ConflictError, NotFoundError } from '../../table/errors';
import type { LabelHistoryRollout, ChangeRequestRollout, RolloutItem } from '../../table/item-types';
import { labelHistoryWrite, type MoveCause } from '../../table/label-history';
import { ADMIN_INDEX, adminIndexKeys, keys } from '../../table/schema';
import { type ServedCounts, servedCounts } from '../../table/served-counts';
import type { Table } from '../../table/table';
import type { TransactionWrite } from '../../table/transaction';
import type { ExpressionNames } from '../../table/update-expression';
import { InvalidLabelError, InvalidRolloutError } from '../errors';
import { rolloutReason } from '../labels/move-reasons';

/**
 * Rollouts (docs/rollouts.md): a label moved to `to` for a share of subjects, then completed (the label moves)
 * or aborted (it stays). The rollout is one item under its label's key (`ROLLOUT#<promptId>#<label>`, written
 * `attribute_not_exists`, so a label has at most one), indexed under `ROLLOUTS` for the deployed step and alarm
 * functions; its share and a copy of `to` ride on the label's own item (`rollout`), which is what the read path
 * serves from. Each change is one transaction: the rollout item (conditional on the `revision` read), the label
 * item, the label's history entry (reason `rollout <id>`), with the audit entry and the account's raised prompt
 * revision. Completing or aborting deletes the item: the history entry and the audit entry keep how it ended, with
 * what each side served, frozen by the same transaction (table/served-counts.ts). Every change after the start names
 * the rollout it is meant for: its conditions hold the rollout item's `rolloutId` (and the label item's), and a caller
 * that names one (`rolloutId`) is refused (409) when the label has another.
 *
 * This module holds what a rollout is, its checks and its reads; start.ts starts one, share.ts changes its share
 * (by hand or by its schedule), ending.ts completes or aborts it.
 */

/** A rollout as the API answers it. */
export interface Rollout {
  readonly rolloutId: string;
  readonly promptId: string;
  readonly label: string;
  readonly from: string;
  readonly to: string;
  readonly percent: number;
  readonly startedAt: string;
  readonly startedBy: string;
  readonly note: string | null;
  readonly served: ServedCounts;
  readonly steps: readonly RolloutStep[];
  readonly guardAlarm: string | null;
  readonly state: RolloutState;
  readonly endedAt?: string;
  readonly endedBy?: string;
}

/** What starting a rollout asks for. */
export interface RolloutStart {
  readonly promptId: string;
  readonly label: string;
  readonly to: string;
  readonly percent: number;
  readonly note?: string | undefined;
  readonly steps?: readonly RolloutStep[] | undefined;
  readonly guardAlarm?: string | undefined;
}

/** What changing a rollout's share asks for; without `steps`, those still above the new share stay. */
export interface RolloutChange {
  readonly percent: number;
  readonly steps?: readonly RolloutStep[] | undefined;
  /** The rollout the change is meant for; absent, whichever the label has. */
  readonly rolloutId?: string | undefined;
}

/** `ro_`, the instant it started (UTC, digits only: sorts by time), `_` and 8 hex digits (ROLLOUT_ID_PATTERN). */
export const newRolloutId = (at: string): string => `ro_${at.replace(/\D/g, '')}_${randomBytes(4).toString('hex')}`;

/** Refuses a share that is not 0 to 100 with at most two decimals (400). */
export function requireValidPercent(percent: unknown, field = 'percent'): asserts percent is number {
  if (!isValidPercent(percent)) throw new InvalidRolloutError(`must be ${PERCENT_RULE}`, field);
}

/** Refuses steps that are not a schedule above `current` (400, naming the field). */
export function requireValidSteps(steps: readonly RolloutStep[], current: number): void {
  const problem = stepsProblem(steps, current);
  if (problem) throw new InvalidRolloutError(problem.message, problem.field);
}

/** What a start asks for, checked before anything is read: the label, the version, the share, the steps, the alarm (400). */
export function requireValidStart(start: RolloutStart): void {
  if (!isSettableLabel(start.label)) throw new InvalidLabelError(start.label, LABEL_RULE);
  if (!VERSION_PATTERN.test(start.to)) throw new InvalidRolloutError('must be a version MAJOR.MINOR.PATCH', 'to');
  requireValidPercent(start.percent);
  requireValidSteps(start.steps ?? [], start.percent);
  if (start.guardAlarm !== undefined && !isAlarmName(start.guardAlarm)) {
    throw new InvalidRolloutError(`must be ${ALARM_NAME_RULE}`, 'guardAlarm');
  }
}

// Reads

export function findRollout(table: Table, accountId: string, promptId: string, label: string): Promise<RolloutItem | undefined> {
  return table.get<RolloutItem>('findRollout', keys.rollout(accountId, promptId, label));
}

export class NoRolloutError extends NotFoundError {
  override readonly name: string = 'NoRolloutError';
  constructor(promptId: string, label: string) {
    super(`label ${label} of prompt ${promptId} has no rollout`);
  }
}

/** The label has a rollout, but not the one a change was meant for (409, naming both). */
export class OtherRolloutError extends ConflictError {
  override readonly name: string = 'OtherRolloutError';
  constructor(
    readonly promptId: string,
    readonly label: string,
    readonly meant: string,
    readonly current: string,
  ) {
    super(`label ${label} of prompt ${promptId} has rollout ${current}, not ${meant}: ${meant} has ended`);
  }
}

/** The label's rollout; with `meant`, only if it is that one (else OtherRolloutError). */
export async function requireRollout(table: Table, accountId: string, promptId: string, label: string, meant?: string): Promise<RolloutItem> {
  const item = await findRollout(table, accountId, promptId, label);
  if (!item) throw new NoRolloutError(promptId, label);
  if (meant !== undefined && item.rolloutId !== meant) throw new OtherRolloutError(promptId, label, meant, item.rolloutId);
  return item;
}

/** The label's active rollout with what each side has served so far; 404 when it has none. */
export async function readRollout(table: Table, accountId: string, promptId: string, label: string): Promise<Rollout> {
  const item = await requireRollout(table, accountId, promptId, label);
  return toRollout(item, await servedCounts(table, accountId, item.rolloutId));
}

/**
 * Every active rollout of every account (the deployed step and alarm functions): the admin index names them, and
 * each is then read consistently (the index copies keys only, and may lag); one that ended meanwhile is left out.
 */
export async function listActiveRollouts(table: Table): Promise<RolloutItem[]> {
  const indexed = await table.query<{ pk: string; sk: string }>('listActiveRollouts', {
    IndexName: ADMIN_INDEX,
    KeyConditionExpression: 'gsi1pk = :pk',
    ExpressionAttributeValues: { ':pk': adminIndexKeys.allRollouts },
  });
  return table.batchGet<RolloutItem>(indexed.map(({ pk, sk }) => ({ pk, sk })));
}

export function toRollout(item: RolloutItem, served: ServedCounts, ended?: { state: Exclude<RolloutState, 'active'>; at: string; by: string }): Rollout {
  return {
    rolloutId: item.rolloutId,
    promptId: item.promptId,
    label: item.label,
    from: item.from,
    to: item.to,
    percent: Number(item.percent),
    startedAt: item.startedAt,
    startedBy: item.startedBy,
    note: item.note ?? null,
    served,
    steps: (item.steps ?? []).map(({ percent, afterMinutes }) => ({ percent: Number(percent), afterMinutes: Number(afterMinutes) })),
    guardAlarm: item.guardAlarm ?? null,
    state: ended?.state ?? 'active',
    ...(ended ? { endedAt: ended.at, endedBy: ended.by } : {}),
  };
}

/** Which label's rollout a change is for, and, when its caller names it, which rollout. */
export interface RolloutTarget {
  readonly promptId: string;
  readonly label: string;
  /** The rollout the change is meant for; absent, whichever the label has. */
  readonly rolloutId?: string | undefined;
}

/** The rollout item as it was read: the same rollout, and no other change to it since. */
export const sameRollout = (e: ExpressionNames, item: RolloutItem): string =>
  `${e.name('rolloutId')} = ${e.value(item.rolloutId)} AND ${e.name('revision')} = ${e.value(item.revision)}`;

/** A rollout's event as its label's history keeps it: which rollout, what happened, its share, and what each side served once ended. */
export function rolloutEvent(item: RolloutItem, event: LabelHistoryRollout['event'], served?: ServedCounts): LabelHistoryRollout {
  return { rolloutId: item.rolloutId, event, percent: Number(item.percent), to: item.to, ...(served ? { served: { ...served } } : {}) };
}

/** Who a rollout's event is by, and how the label's history names it (`rollout <id>`). */
export const rolloutCause = (item: Pick<RolloutItem, 'rolloutId'>, cause: Pick<MoveCause, 'by'>): MoveCause => ({
  by: cause.by,
  reason: rolloutReason(item.rolloutId),
});

/** The history entry of a rollout's event that moves no label (a start, a change of share, an abort): the label stays on `from`. */
export function rolloutHistoryWrite(
  table: Table,
  accountId: string,
  item: RolloutItem,
  event: Exclude<LabelHistoryRollout['event'], 'completed'>,
  cause: Pick<MoveCause, 'by'>,
  served?: ServedCounts,
): TransactionWrite {
  const stays = { promptId: item.promptId, label: item.label, from: item.from, to: item.from };
  return labelHistoryWrite(table, accountId, { ...stays, rollout: rolloutEvent(item, event, served) }, rolloutCause(item, cause));
}

/** The rollout a change request carries, as the request item keeps it. */
export function changeRequestRollout(start: Pick<RolloutStart, 'percent' | 'steps' | 'guardAlarm'>): ChangeRequestRollout {
  return {
    percent: start.percent,
    ...(start.steps && start.steps.length > 0 ? { steps: start.steps.map(({ percent, afterMinutes }) => ({ percent, afterMinutes })) } : {}),
    ...(start.guardAlarm === undefined ? {} : { guardAlarm: start.guardAlarm }),
  };
}
