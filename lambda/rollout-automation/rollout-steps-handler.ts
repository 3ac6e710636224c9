import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { type AutomationDependencies, applyDueSteps, type StepsRun } from './automation';

/** What one run did, counted: the function's answer, as `sam local invoke` prints it. */
export interface StepsSummary {
  readonly applied: number;
  readonly skipped: number;
  readonly failed: number;
}

/**
 * The scheduled function (every minute: lib/rollout-automation.ts): applies the due steps of every account's rollouts.
 * What the event says does not matter, so any event runs it. A run where some rollout failed ends in an error, after
 * the others are done, so the function's Errors alarm tells the operator; the next minute tries again.
 */
export function createRolloutStepsHandler(deps: AutomationDependencies) {
  const run = async (): Promise<StepsSummary> => {
    const result: StepsRun = await applyDueSteps(deps, deps.table.now());
    const summary = { applied: result.done.length, skipped: result.skipped.length, failed: result.failed.length };
    deps.logger.info({ message: 'rollout steps run', ...summary });
    if (summary.failed > 0) throw new Error(`${summary.failed} due rollout step(s) could not be applied; the next run tries again`);
    return summary;
  };
  return middy(run).use(injectLambdaContext(deps.logger, { logEvent: false, resetKeys: true }));
}
