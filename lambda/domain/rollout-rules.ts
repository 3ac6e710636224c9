import { isValidPercent, MAX_ROLLOUT_STEPS, MAX_STEP_MINUTES, PERCENT_RULE, type RolloutStep } from './rollout';

/**
 * What a rollout may be asked to do beyond its share (docs/rollouts.md "Steps and a guard alarm (deployed)").
 *
 * Its schedule: at most 10 steps, `afterMinutes` whole
 * minutes from 1 to a week after the rollout started, in increasing order, each share above the one before
 * (the first above the share the rollout has when they are set). A step only ever raises the share.
 */

export const STEPS_RULE = `at most ${MAX_ROLLOUT_STEPS} steps {percent, afterMinutes}, afterMinutes whole minutes from 1 to ${MAX_STEP_MINUTES} in increasing order, each percent ${PERCENT_RULE} above the one before`;

/** What is wrong with `steps` set on a rollout whose share is `current`, with the field it is in; undefined when nothing is. */
export function stepsProblem(steps: readonly RolloutStep[], current: number): { field: string; message: string } | undefined {
  if (steps.length > MAX_ROLLOUT_STEPS) return { field: 'steps', message: `must list at most ${MAX_ROLLOUT_STEPS} steps` };
  let percent = current;
  let minutes = 0;
  for (const [index, step] of steps.entries()) {
    const at = `steps.${index}`;
    if (!Number.isInteger(step.afterMinutes) || step.afterMinutes < 1 || step.afterMinutes > MAX_STEP_MINUTES) {
      return { field: `${at}.afterMinutes`, message: `must be a whole number of minutes from 1 to ${MAX_STEP_MINUTES}` };
    }
    if (step.afterMinutes <= minutes) return { field: `${at}.afterMinutes`, message: `must come after the step before (${minutes} minutes)` };
    if (!isValidPercent(step.percent)) return { field: `${at}.percent`, message: `must be ${PERCENT_RULE}` };
    if (step.percent <= percent) return { field: `${at}.percent`, message: `must be above ${percent}, the share before it` };
    percent = step.percent;
    minutes = step.afterMinutes;
  }
  return undefined;
}

/**
 * The steps due at `now` of a rollout that started at `startedAt`: the share to apply (the last due step's) and
 * the steps still ahead; undefined when none is due.
 */
export function dueSteps(steps: readonly RolloutStep[], startedAt: string, now: Date): { percent: number; ahead: RolloutStep[] } | undefined {
  const elapsedMs = now.getTime() - Date.parse(startedAt);
  const due = steps.filter((step) => step.afterMinutes * 60_000 <= elapsedMs);
  const last = due.at(-1);
  if (!last) return undefined;
  return { percent: last.percent, ahead: steps.filter((step) => step.afterMinutes * 60_000 > elapsedMs) };
}

/** A CloudWatch alarm's name: 1 to 255 characters, none of them a control character. */
export const MAX_ALARM_NAME_LENGTH = 255;

export const ALARM_NAME_RULE = `the name of a CloudWatch alarm: 1 to ${MAX_ALARM_NAME_LENGTH} characters, no control characters`;

export function isAlarmName(name: string): boolean {
  return (
    name.length >= 1 &&
    name.length <= MAX_ALARM_NAME_LENGTH &&
    [...name].every((character) => (character.codePointAt(0) ?? 0) >= 0x20 && character !== '\u007f')
  );
}
