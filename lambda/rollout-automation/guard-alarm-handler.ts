import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { readAlarmStateChange } from './alarm-event';
import { type AutomationDependencies, abortGuardedRollouts } from './automation';

/** What one event did: the function's answer, as `sam local invoke` prints it. */
export type GuardSummary =
  | { readonly ignored: string }
  | { readonly alarmName: string; readonly aborted: number; readonly skipped: number; readonly failed: number };

/**
 * The function EventBridge invokes on a CloudWatch alarm's change of state (lib/rollout-automation.ts): on `ALARM`,
 * aborts every active rollout that alarm guards. Any other state, and an event that is not an alarm's change of
 * state, is logged and ignored: throwing would only have Lambda retry an event that can never succeed. A rollout that
 * could not be aborted ends the invocation in an error once the others are done: Lambda retries it (aborting what is
 * still active), then leaves it in the dead-letter queue, whose alarm tells the operator.
 */
export function createGuardAlarmHandler(deps: AutomationDependencies) {
  const run = async (event: unknown): Promise<GuardSummary> => {
    const read = readAlarmStateChange(event);
    if ('problem' in read) {
      deps.logger.warn({ message: 'guard alarm: not an alarm state change, ignored', problem: read.problem });
      return { ignored: read.problem };
    }
    const { alarmName, alarmArn, state } = read.change;
    if (state !== 'ALARM') {
      deps.logger.info({ message: 'guard alarm: not ALARM, ignored', alarmName, state });
      return { ignored: `alarm ${alarmName} went to ${state}` };
    }
    const result = await abortGuardedRollouts(deps, { name: alarmName, arn: alarmArn });
    const summary = { alarmName, aborted: result.done.length, skipped: result.skipped.length, failed: result.failed.length };
    deps.logger.info({ message: 'guard alarm run', ...summary });
    if (summary.failed > 0) throw new Error(`${summary.failed} rollout(s) guarded by alarm ${alarmName} could not be aborted`);
    return summary;
  };
  return middy(run).use(injectLambdaContext(deps.logger, { logEvent: false, resetKeys: true }));
}
