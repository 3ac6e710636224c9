import { randomBytes } from 'node:crypto';
import { isSettableLabel, LABEL_RULE, labelledVersion } from '../../domain/label';
import { isValidPercent, PERCENT_RULE, type RolloutState, type RolloutStep } from '../../domain/rollout';
import { ALARM_NAME_RULE, dueSteps, isAlarmName, stepsProblem } from '../../domain/rollout-rules';
import { VERSION_PATTERN } from '../../domain/version';
import { ConflictError, NotFoundError } from '../../table/errors';
import type {
  LabelHistoryRollout,
  PromptHeadItem,
  PromptLabelItem,
  PromptVersionItem,
  RequestedRollout,
  RolloutItem,
  StoredContent,
  WithKeys,
} from '../../table/item-types';
import { freezeServedCounts, type ServedCountHolds, type ServedCounts, servedCounts } from '../../table/served-counts';
import { labelHistoryWrite, type MoveCause } from '../../table/label-history';
import { headLabelsWrite, labelItem, labelsUnchanged } from '../labels/labels';
import { requireNoOpenRequest } from '../change-requests/open-change-requests';
import { ADMIN_INDEX, adminIndexKeys, keys } from '../../table/schema';
import { fromStoredContent, toStoredContent } from '../../table/stored-content';
import type { Table } from '../../table/table';
import type { TransactionWrite } from '../../table/transaction';
import { buildCondition, buildUpdate, type ExpressionNames } from '../../table/update-expression';
import type { PlannedChange } from '../planned-change';
import { PromptMissingError, PromptDeletedError, InvalidLabelError, RolloutActiveError, InvalidRolloutError } from '../errors';
import { rolloutReason } from '../labels/move-reasons';

/**
 * Rollouts (docs/rollouts.md): a label moved to `to` for a share of subjects, then completed (the label moves)
 * or aborted (it stays). The rollout is one item under its label's key (`ROLLOUT#<promptId>#<label>`, written
 * `attribute_not_exists`, so a label has at most one), indexed under `ROLLOUTS` for the deployed step and alarm
 * functions; its share and a copy of `to` ride on the label's own item (`rollout`), which is what the read path
 * serves from. Each change is one transaction (operations/commit.ts): the rollout item (conditional on the `revision` read),
 * the label item, the label's history entry (reason `rollout <id>`), with the audit entry and the account's raised
 * prompt revision. Completing or aborting deletes the item: the history entry and the audit entry keep how it
 * ended, with what each side served, frozen by the same transaction (served-counts.ts). Every change after the
 * start names the rollout it is meant for: its conditions hold the rollout item's `rolloutId` (and the label
 * item's), and a caller that names one (`rolloutId`) is refused (409) when the label has another.
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

// Starting

/** What a start found: where the label points, its item, and the copy of `to` the label item will carry. */
export interface StartPoint {
  readonly head: PromptHeadItem;
  readonly labelItem: PromptLabelItem;
  readonly from: string;
  readonly toContent: StoredContent;
}

/**
 * A start checked against the store (docs/rollouts.md "Managing a rollout (management API)"): the prompt and a
 * label that points somewhere (404), `to` published (404), elsewhere than the label (409), the prompt not deleted,
 * no rollout of the label and no change request open on it (409). `applying` is the request whose approval starts
 * it: its own pointer is no obstacle.
 */
export async function checkRolloutStart(table: Table, accountId: string, start: RolloutStart, options: { applying?: string } = {}): Promise<StartPoint> {
  requireValidStart(start);
  const { promptId, label, to } = start;
  const [head, stored, item, rollout] = await Promise.all([
    table.get<PromptHeadItem>('startRollout', keys.promptHead(accountId, promptId)),
    table.get<PromptVersionItem>('startRollout', keys.promptVersion(accountId, promptId, to)),
    table.get<PromptLabelItem>('startRollout', keys.promptLabel(accountId, label, promptId)),
    findRollout(table, accountId, promptId, label),
  ]);
  if (!head) throw new PromptMissingError(accountId, promptId);
  if (head.deleted === true) throw new PromptDeletedError(accountId, promptId);
  const from = labelledVersion(head.labels, label);
  if (from === undefined || !item) throw new NotFoundError(`prompt ${promptId} has no label ${label}: a rollout moves a label that points at a version`);
  if (!stored) throw new NotFoundError(`prompt ${promptId} has no version ${to}`);
  if (stored.published !== true) throw new NotFoundError(`version ${to} of prompt ${promptId} is a draft: only a published version can be rolled out`);
  if (from === to) throw new ConflictError(`label ${label} of prompt ${promptId} points at ${to} already`);
  if (rollout) throw new RolloutActiveError(promptId, label, rollout.rolloutId);
  if (item.rollout) throw new RolloutActiveError(promptId, label, item.rollout.rolloutId);
  if (options.applying === undefined) await requireNoOpenRequest(table, accountId, promptId, label);
  return { head, labelItem: item, from, toContent: toStoredContent(fromStoredContent(stored)) };
}

/**
 * Starts a rollout: the rollout item (new), the label item's `rollout` (its share and the copy of `to`, on the
 * item as it was read: a move meanwhile raises its `labelsRevision`), and the history entry (the label still
 * points at `from`). Raced by another start, it is planned again and finds that one (409).
 */
export async function planStartRollout(
  table: Table,
  accountId: string,
  start: RolloutStart,
  cause: Pick<MoveCause, 'by'>,
  options: { applying?: string } = {},
): Promise<PlannedChange<Rollout>> {
  const point = await checkRolloutStart(table, accountId, start, options);
  const at = table.timestamp();
  const rolloutId = newRolloutId(at);
  const { promptId, label, to, percent } = start;
  const steps = start.steps ?? [];
  const item: RolloutItem = {
    accountId,
    rolloutId,
    promptId,
    label,
    from: point.from,
    to,
    percent,
    startedAt: at,
    startedBy: cause.by,
    ...(steps.length > 0 ? { steps: steps.map(({ percent: share, afterMinutes }) => ({ percent: share, afterMinutes })) } : {}),
    ...(start.guardAlarm === undefined ? {} : { guardAlarm: start.guardAlarm }),
    ...(start.note === undefined ? {} : { note: start.note }),
    updatedAt: at,
    revision: 1,
  };
  const stored: WithKeys<RolloutItem> = {
    ...keys.rollout(accountId, promptId, label),
    ...adminIndexKeys.rollout(accountId, promptId, label),
    type: 'rollout',
    ...item,
  };
  const labelled = point.labelItem;
  return {
    writes: [
      { Put: { Item: stored, ConditionExpression: 'attribute_not_exists(pk)' } },
      {
        Update: {
          Key: keys.promptLabel(accountId, label, promptId),
          ...buildUpdate({
            set: { rollout: { rolloutId, percent, to: point.toContent } },
            condition: (e) => `attribute_exists(${e.name('pk')}) AND attribute_not_exists(${e.name('rollout')}) AND ${labelsUnchanged(e, labelled)}`,
          }),
        },
      },
      historyWrite(table, accountId, item, { from: point.from, to: point.from }, 'started', cause),
    ],
    result: toRollout(item, { from: 0, to: 0 }),
    after: {
      rolloutId,
      from: point.from,
      to,
      percent,
      ...(steps.length > 0 ? { steps: [...steps] } : {}),
      ...(start.guardAlarm === undefined ? {} : { guardAlarm: start.guardAlarm }),
    },
    visible: true,
  };
}

// Changing the share

/**
 * A new share (and, with `steps`, a new schedule; without, the steps still above the new share stay): the rollout
 * item under the revision read, the label item's share, the history entry.
 */
export async function planChangeRollout(
  table: Table,
  accountId: string,
  promptId: string,
  label: string,
  change: RolloutChange,
  cause: Pick<MoveCause, 'by'>,
): Promise<PlannedChange<Rollout>> {
  requireValidPercent(change.percent);
  if (change.steps !== undefined) requireValidSteps(change.steps, change.percent);
  const item = await requireRollout(table, accountId, promptId, label, change.rolloutId);
  const steps = change.steps ?? (item.steps ?? []).filter((step) => step.percent > change.percent);
  return shareChange(table, accountId, item, change.percent, steps, cause);
}

/** No step of the rollout is due (another applier got there first, or none is yet). */
export class NoStepDueError extends ConflictError {
  override readonly name: string = 'NoStepDueError';
}

/**
 * The rollout's latest due step applied (deployed: every minute): the share of the last step whose time has come,
 * the steps before it and it taken off the schedule. Nothing due: NoStepDueError; the label rolling out another
 * rollout than `rolloutId`, the one whose step it is: OtherRolloutError.
 */
export async function planApplyDueStep(
  table: Table,
  accountId: string,
  rollout: { readonly promptId: string; readonly label: string; readonly rolloutId: string },
  now: Date,
  cause: Pick<MoveCause, 'by'>,
): Promise<PlannedChange<Rollout>> {
  const { promptId, label } = rollout;
  const item = await requireRollout(table, accountId, promptId, label, rollout.rolloutId);
  const due = dueSteps(item.steps ?? [], item.startedAt, now);
  if (!due) throw new NoStepDueError(`no step of rollout ${item.rolloutId} is due`);
  return shareChange(table, accountId, item, due.percent, due.ahead, cause);
}

/** Whether a step of the rollout is due at `now`. */
export const hasDueStep = (item: Pick<RolloutItem, 'steps' | 'startedAt'>, now: Date): boolean => dueSteps(item.steps ?? [], item.startedAt, now) !== undefined;

async function shareChange(
  table: Table,
  accountId: string,
  item: RolloutItem,
  percent: number,
  steps: readonly RolloutStep[],
  cause: Pick<MoveCause, 'by'>,
): Promise<PlannedChange<Rollout>> {
  const { promptId, label, rolloutId } = item;
  const changed: RolloutItem = { ...item, percent, steps: [...steps], updatedAt: table.timestamp(), revision: item.revision + 1 };
  const served = await servedCounts(table, accountId, rolloutId);
  return {
    writes: [
      {
        Update: {
          Key: keys.rollout(accountId, promptId, label),
          ...buildUpdate({
            set: { percent, updatedAt: changed.updatedAt, revision: changed.revision, ...(steps.length > 0 ? { steps: [...steps] } : {}) },
            ...(steps.length > 0 ? {} : { remove: ['steps'] }),
            condition: (e) => sameRollout(e, item),
          }),
        },
      },
      {
        Update: {
          Key: keys.promptLabel(accountId, label, promptId),
          ...buildUpdate({ set: { 'rollout.percent': percent }, condition: (e) => `${e.name('rollout.rolloutId')} = ${e.value(rolloutId)}` }),
        },
      },
      historyWrite(table, accountId, changed, { from: item.from, to: item.from }, 'changed', cause),
    ],
    result: toRollout(changed, served),
    after: { rolloutId, from: item.from, to: item.to, percent, was: Number(item.percent), steps: [...steps] },
    visible: true,
  };
}

// Ending

/**
 * Completes the rollout: the label moves to `to` as a move does (the head's label map under its `labelsRevision`,
 * the label item written whole, now without its rollout), the rollout item is deleted under the revision read, and
 * the history entry (from `from` to `to`) keeps what each side served.
 */
export async function planCompleteRollout(
  table: Table,
  accountId: string,
  target: RolloutTarget,
  cause: Pick<MoveCause, 'by'>,
  holds: ServedCountHolds,
): Promise<PlannedChange<Rollout>> {
  const { promptId, label } = target;
  const [item, head, labelled] = await Promise.all([
    requireRollout(table, accountId, promptId, label, target.rolloutId),
    table.get<PromptHeadItem>('completeRollout', keys.promptHead(accountId, promptId)),
    table.get<PromptLabelItem>('completeRollout', keys.promptLabel(accountId, label, promptId)),
  ]);
  if (!head) throw new PromptMissingError(accountId, promptId);
  if (head.deleted === true) throw new PromptDeletedError(accountId, promptId);
  const copy = labelled?.rollout?.rolloutId === item.rolloutId ? labelled.rollout.to : undefined;
  // The label item carries the rollout whenever the item exists (one transaction writes both): this is a store out of step.
  if (!copy) throw new Error(`rollout ${item.rolloutId}: the label item carries no copy of ${item.to}`);
  const frozen = await freezeServedCounts(table, accountId, item.rolloutId, holds);
  const { served } = frozen;
  const revision = (head.labelsRevision ?? 0) + 1;
  const ended = { state: 'completed' as const, at: table.timestamp(), by: cause.by };
  const was = labelledVersion(head.labels, label) ?? item.from;
  return {
    writes: [
      rolloutDelete(accountId, item),
      headLabelsWrite(accountId, head, { ...head.labels, [label]: item.to }, revision),
      {
        Put: {
          Item: labelItem(accountId, head, label, copy, revision),
          ...buildCondition((e) => `${e.name('rollout.rolloutId')} = ${e.value(item.rolloutId)}`),
        },
      },
      historyWrite(table, accountId, item, { from: was, to: item.to }, 'completed', cause, served),
      ...frozen.keyWrites,
    ],
    result: toRollout(item, served, ended),
    after: { rolloutId: item.rolloutId, from: item.from, to: item.to, percent: Number(item.percent), served },
    // The label moved: recorded (and announced) as any move of it is, its reason the history entry's.
    alsoRecords: [
      {
        action: 'label.set',
        target: { promptId, label },
        requested: { version: item.to, rolloutId: item.rolloutId },
        after: { version: item.to, was, rolloutId: item.rolloutId, reason: rolloutReason(item.rolloutId) },
      },
    ],
    visible: true,
    revisionWrite: frozen.revisionWrite,
    followUp: frozen.followUp,
  };
}

/** Aborts the rollout: the label stays on `from`, its item without its rollout, and the history entry keeps what each side served. */
export async function planAbortRollout(
  table: Table,
  accountId: string,
  target: RolloutTarget,
  cause: Pick<MoveCause, 'by'>,
  holds: ServedCountHolds,
  reason?: string,
): Promise<PlannedChange<Rollout>> {
  const { promptId, label } = target;
  const item = await requireRollout(table, accountId, promptId, label, target.rolloutId);
  const frozen = await freezeServedCounts(table, accountId, item.rolloutId, holds);
  const { served } = frozen;
  const ended = { state: 'aborted' as const, at: table.timestamp(), by: cause.by };
  return {
    writes: [
      rolloutDelete(accountId, item),
      {
        Update: {
          Key: keys.promptLabel(accountId, label, promptId),
          ...buildUpdate({ remove: ['rollout'], condition: (e) => `${e.name('rollout.rolloutId')} = ${e.value(item.rolloutId)}` }),
        },
      },
      historyWrite(table, accountId, item, { from: item.from, to: item.from }, 'aborted', cause, served),
      ...frozen.keyWrites,
    ],
    result: toRollout(item, served, ended),
    after: {
      rolloutId: item.rolloutId,
      from: item.from,
      to: item.to,
      percent: Number(item.percent),
      served,
      ...(reason === undefined ? {} : { reason }),
    },
    visible: true,
    revisionWrite: frozen.revisionWrite,
    followUp: frozen.followUp,
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
const sameRollout = (e: ExpressionNames, item: RolloutItem): string =>
  `${e.name('rolloutId')} = ${e.value(item.rolloutId)} AND ${e.name('revision')} = ${e.value(item.revision)}`;

/** The rollout item deleted, if it is still the rollout read and no other change to it landed since. */
function rolloutDelete(accountId: string, item: RolloutItem): TransactionWrite {
  return {
    Delete: {
      Key: keys.rollout(accountId, item.promptId, item.label),
      ...buildCondition((e) => sameRollout(e, item)),
    },
  };
}

function historyWrite(
  table: Table,
  accountId: string,
  item: RolloutItem,
  move: { readonly from: string; readonly to: string },
  event: LabelHistoryRollout['event'],
  cause: Pick<MoveCause, 'by'>,
  served?: ServedCounts,
): TransactionWrite {
  const rollout: LabelHistoryRollout = {
    rolloutId: item.rolloutId,
    event,
    percent: Number(item.percent),
    to: item.to,
    ...(served ? { served: { ...served } } : {}),
  };
  return labelHistoryWrite(
    table,
    accountId,
    { promptId: item.promptId, label: item.label, ...move, rollout },
    { by: cause.by, reason: rolloutReason(item.rolloutId) },
  );
}

/** The rollout a change request carries, as the request item keeps it. */
export function requestedRollout(start: Pick<RolloutStart, 'percent' | 'steps' | 'guardAlarm'>): RequestedRollout {
  return {
    percent: start.percent,
    ...(start.steps && start.steps.length > 0 ? { steps: start.steps.map(({ percent, afterMinutes }) => ({ percent, afterMinutes })) } : {}),
    ...(start.guardAlarm === undefined ? {} : { guardAlarm: start.guardAlarm }),
  };
}
