import type { Logger } from '@aws-lambda-powertools/logger';
import { Operations } from '../operations';
import { ConflictError, NotFoundError } from '../table/errors';
import type { RolloutItem } from '../table/item-types';
import { listActiveRollouts, OtherRolloutError } from '../features/rollouts/rollouts';
import type { Table } from '../table/table';
import type { SystemActorName } from '../domain/actor';
import { hasDueStep } from '../features/rollouts/share';

/**
 * What the deployed automation of rollouts does (docs/rollouts.md "Steps and a guard alarm (deployed)"): the scheduled function
 * and `npm start` apply due steps with applyDueSteps, the alarm function aborts with abortGuardedRollouts. Each change
 * is the management API's own operation, audited under the system actor that made it.
 */
export interface AutomationDependencies {
  readonly table: Table;
  readonly logger: Logger;
}

/** Which rollout: enough to find it again in the audit log and the label's history. */
export interface RolloutRef {
  readonly accountId: string;
  readonly promptId: string;
  readonly label: string;
  readonly rolloutId: string;
}

export interface AutomationRun<Done> {
  readonly done: readonly (RolloutRef & Done)[];
  /** Ended or changed by someone else between the list and the change: nothing left to do for it. */
  readonly skipped: readonly (RolloutRef & { readonly reason: string })[];
  readonly failed: readonly (RolloutRef & { readonly error: string })[];
}

export type StepsRun = AutomationRun<{ readonly percent: number }>;
export type GuardRun = AutomationRun<Record<never, never>>;

const refOf = ({ accountId, promptId, label, rolloutId }: RolloutItem): RolloutRef => ({ accountId, promptId, label, rolloutId });

/** The management API's own operations, as the named system actor; a change whose copy to the keys failed still stands, and is logged as the API logs it. */
const operationsAs = ({ table, logger }: AutomationDependencies, name: SystemActorName): Operations =>
  new Operations({
    table,
    actor: { type: 'system', name },
    onCopyFailed: (accountId, error) =>
      logger.warn({ message: 'rollout change: keys copy failed', accountId, keysCopyFailure: error instanceof Error ? error.message : String(error) }),
  });

/**
 * Every active rollout with a step due at `now` gets it (the share of the last due step). One rollout's failure does
 * not keep the others from theirs: it is logged, and the next run tries again, as the step is still due.
 */
export async function applyDueSteps(deps: AutomationDependencies, now: Date): Promise<StepsRun> {
  const due = (await listActiveRollouts(deps.table)).filter((rollout) => hasDueStep(rollout, now));
  const operations = operationsAs(deps, 'rollout-steps');
  return settleEach(deps.logger, 'rollout step', due, stepOvertaken, async (rollout) => {
    const step = await operations.rollouts.applyDueStep(rollout.accountId, rollout, now);
    if (!step.applied) throw new Overtaken(step.why);
    return { percent: step.rollout.percent };
  });
}

/**
 * Every active rollout guarded by the alarm is aborted, with the reason `alarm <name>`; the others are left alone.
 * Each abort names the rollout it was listed as: a label that ended it and began another meanwhile (which the alarm
 * may not guard) keeps the other. One rollout's failure does not keep the others from being aborted.
 */
export async function abortGuardedRollouts(deps: AutomationDependencies, alarm: AlarmIdentity): Promise<GuardRun> {
  const { name: alarmName } = alarm;
  const guarded = (await listActiveRollouts(deps.table)).filter((rollout) => rollout.guardAlarm !== undefined && guards(rollout.guardAlarm, alarm));
  const operations = operationsAs(deps, 'guard-alarm');
  return settleEach(deps.logger, 'rollout aborted by its guard alarm', guarded, abortOvertaken, async (rollout) => {
    await operations.rollouts.abort(rollout.accountId, rollout.promptId, rollout.label, { reason: `alarm ${alarmName}`, rolloutId: rollout.rolloutId });
    return {};
  });
}

/** An alarm as its events name it: `detail.alarmName`, and its ARN (`resources`) when the event has it. */
export interface AlarmIdentity {
  readonly name: string;
  readonly arn?: string | undefined;
}

/** A rollout's `guardAlarm` names the alarm by its name, or by its ARN where one was given at creation. */
const guards = (guardAlarm: string, alarm: AlarmIdentity): boolean => guardAlarm === alarm.name || (alarm.arn !== undefined && guardAlarm === alarm.arn);

/** Someone else's change came first: the step was applied, or the rollout ended, between the list and this change. */
class Overtaken extends Error {}

/**
 * A step overtaken by another change (the rollout ended, or changed since it was read) is not a failure: the next run
 * reads the rollout again and applies what its schedule then makes due.
 */
const stepOvertaken = (error: unknown): boolean => error instanceof Overtaken || error instanceof NotFoundError || error instanceof ConflictError;
/**
 * An abort is overtaken only by the rollout's end (the label with no rollout, or with another one). One that changed
 * since it was read (its share, by a person or a step) is still active and still guarded: a failure, so the invocation
 * is retried and aborts it then.
 */
const abortOvertaken = (error: unknown): boolean => error instanceof NotFoundError || error instanceof OtherRolloutError;

/** One at a time: the changes are few (a rollout a minute at most, per label) and each is one transaction. */
async function settleEach<Done>(
  logger: Logger,
  what: string,
  rollouts: readonly RolloutItem[],
  overtaken: (error: unknown) => boolean,
  change: (rollout: RolloutItem) => Promise<Done>,
): Promise<AutomationRun<Done>> {
  const done: (RolloutRef & Done)[] = [];
  const skipped: (RolloutRef & { reason: string })[] = [];
  const failed: (RolloutRef & { error: string })[] = [];
  for (const rollout of rollouts) {
    const ref = refOf(rollout);
    try {
      const result = await change(rollout);
      done.push({ ...ref, ...result });
      logger.info({ message: what, ...ref, ...result });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (overtaken(error)) {
        skipped.push({ ...ref, reason: message });
        logger.info({ message: `${what}: skipped`, ...ref, reason: message });
      } else {
        failed.push({ ...ref, error: message });
        logger.error({ message: `${what}: failed`, ...ref, error: { name: error instanceof Error ? error.name : 'Error', message } });
      }
    }
  }
  return { done, skipped, failed };
}
