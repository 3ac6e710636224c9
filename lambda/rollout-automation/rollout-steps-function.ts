import { createRolloutStepsHandler } from './rollout-steps-handler';
import { automationDependencies } from './runtime';

/** Lambda entry point: RolloutSteps (lib/rollout-automation.ts), invoked every minute by an EventBridge rule. */
export const handler = createRolloutStepsHandler(automationDependencies());
