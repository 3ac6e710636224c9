import { dueSteps, isAlarmName, stepsProblem } from '../../lambda/domain/rollout-rules';

/** docs/rollouts.md "Steps and a guard alarm (deployed)": what a schedule may be, and which of its steps are due. */

describe('a schedule', () => {
  test('rises: each step later and higher than the one before, the first above the current share', () => {
    expect(stepsProblem([], 10)).toBeUndefined();
    expect(
      stepsProblem(
        [
          { percent: 25, afterMinutes: 30 },
          { percent: 100, afterMinutes: 10080 },
        ],
        10,
      ),
    ).toBeUndefined();
    expect(stepsProblem([{ percent: 10, afterMinutes: 30 }], 10)).toEqual({ field: 'steps.0.percent', message: 'must be above 10, the share before it' });
    expect(
      stepsProblem(
        [
          { percent: 20, afterMinutes: 30 },
          { percent: 30, afterMinutes: 30 },
        ],
        10,
      )?.field,
    ).toBe('steps.1.afterMinutes');
  });

  test('has at most 10 steps, each 1 to 10,080 whole minutes after the start, each share a valid one', () => {
    const eleven = Array.from({ length: 11 }, (_, index) => ({ percent: index + 1, afterMinutes: index + 1 }));
    expect(stepsProblem(eleven, 0)?.field).toBe('steps');
    expect(stepsProblem([{ percent: 20, afterMinutes: 0 }], 10)?.field).toBe('steps.0.afterMinutes');
    expect(stepsProblem([{ percent: 20, afterMinutes: 10081 }], 10)?.field).toBe('steps.0.afterMinutes');
    expect(stepsProblem([{ percent: 20, afterMinutes: 2.5 }], 10)?.field).toBe('steps.0.afterMinutes');
    expect(stepsProblem([{ percent: 20.005, afterMinutes: 5 }], 10)?.field).toBe('steps.0.percent');
    expect(stepsProblem([{ percent: 101, afterMinutes: 5 }], 10)?.field).toBe('steps.0.percent');
  });
});

describe('due steps', () => {
  const startedAt = '2026-11-27T10:00:00.000Z';
  const steps = [
    { percent: 10, afterMinutes: 5 },
    { percent: 25, afterMinutes: 10 },
    { percent: 50, afterMinutes: 60 },
  ];
  const at = (minutes: number) => new Date(Date.parse(startedAt) + minutes * 60_000);

  test('none before the first step', () => {
    expect(dueSteps(steps, startedAt, at(4.99))).toBeUndefined();
  });

  test('a step is due from its minute on; the latest due one gives the share, and only those after it stay ahead', () => {
    expect(dueSteps(steps, startedAt, at(5))).toEqual({ percent: 10, ahead: steps.slice(1) });
    expect(dueSteps(steps, startedAt, at(59))).toEqual({ percent: 25, ahead: steps.slice(2) });
    expect(dueSteps(steps, startedAt, at(600))).toEqual({ percent: 50, ahead: [] });
  });
});

test('a guard alarm is named as CloudWatch names alarms: 1 to 255 characters, no control characters', () => {
  expect(isAlarmName('prompts-errors-high')).toBe(true);
  expect(isAlarmName('Latency p99 > 2s (eu-west-1)')).toBe(true);
  expect(isAlarmName('')).toBe(false);
  expect(isAlarmName('a'.repeat(256))).toBe(false);
  expect(isAlarmName('line\nbreak')).toBe(false);
});
