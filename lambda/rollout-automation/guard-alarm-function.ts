import { createGuardAlarmHandler } from './guard-alarm-handler';
import { automationDependencies } from './runtime';

/** Lambda entry point: GuardAlarm (lib/rollout-automation.ts), invoked by EventBridge when a CloudWatch alarm goes to ALARM. */
export const handler = createGuardAlarmHandler(automationDependencies());
