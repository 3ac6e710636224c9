import * as z from 'zod';

/**
 * What the guard function reads of an EventBridge `CloudWatch Alarm State Change` event (sample-events/guard-alarm.json): the
 * alarm's name and the state it went to. The rest (its configuration, the reason, the previous state) is not needed.
 */
const alarmStateChange = z.object({
  source: z.literal('aws.cloudwatch'),
  resources: z.array(z.string()).optional(),
  'detail-type': z.literal('CloudWatch Alarm State Change'),
  detail: z.object({
    alarmName: z.string().min(1),
    state: z.object({ value: z.string() }),
  }),
});

export interface AlarmStateChange {
  readonly alarmName: string;
  /** The alarm's ARN: the event's one resource. */
  readonly alarmArn: string | undefined;
  /** `ALARM`, `OK` or `INSUFFICIENT_DATA`. */
  readonly state: string;
}

/** The alarm and its new state, or what is wrong with the event (the path and the problem, never the event itself). */
export function readAlarmStateChange(event: unknown): { change: AlarmStateChange } | { problem: string } {
  const parsed = alarmStateChange.safeParse(event);
  if (!parsed.success) {
    return { problem: parsed.error.issues.map((issue) => `${issue.path.join('.') || 'event'}: ${issue.message}`).join('; ') };
  }
  const { detail, resources } = parsed.data;
  const alarmArn = resources?.find((resource) => resource.endsWith(`:alarm:${detail.alarmName}`));
  return { change: { alarmName: detail.alarmName, alarmArn, state: detail.state.value } };
}
