import {
  delayText,
  endedText,
  parseShare,
  percentText,
  rollingOutNote,
  rolloutEventText,
  rolloutOfReason,
  scheduledSteps,
  servedSides,
  shareChangeText,
} from '../../../dashboard/src/features/rollouts/rollouts';

describe('a share typed for a rollout', () => {
  test('is taken as the API takes it: 0 to 100, at most two decimals', () => {
    expect(parseShare('10')).toEqual({ percent: 10 });
    expect(parseShare(' 12.5 ')).toEqual({ percent: 12.5 });
    expect(parseShare('33.33')).toEqual({ percent: 33.33 });
    expect(parseShare('0')).toEqual({ percent: 0 });
    expect(parseShare('100')).toEqual({ percent: 100 });
  });

  test('more than two decimals, above 100, negative or not a number is refused with the rule', () => {
    for (const text of ['33.333', '100.01', '101', '-1', 'ten', '1e2', '.5']) expect(parseShare(text)).toEqual({ problem: expect.stringMatching(/0 to 100/) });
  });

  test('an empty field asks for a share', () => {
    expect(parseShare('  ')).toEqual({ problem: expect.stringMatching(/^Enter the share/) });
  });
});

test('a share in words keeps up to two decimals and drops trailing zeros', () => {
  expect(percentText(10)).toBe('10%');
  expect(percentText(12.5)).toBe('12.5%');
  expect(percentText(33.33)).toBe('33.33%');
  expect(percentText(100 - 33.33)).toBe('66.67%');
});

describe('the served counts', () => {
  test("each side's reads with its share of the total", () => {
    expect(servedSides({ from: '1.0.0', to: '1.1.0', served: { from: 120, to: 80 } })).toEqual({
      from: { version: '1.0.0', count: 120, shareText: '60%' },
      to: { version: '1.1.0', count: 80, shareText: '40%' },
      total: 200,
    });
  });

  test('before any read, no share is claimed', () => {
    const sides = servedSides({ from: '1.0.0', to: '1.1.0', served: { from: 0, to: 0 } });
    expect([sides.from.shareText, sides.to.shareText, sides.total]).toEqual(['—', '—', 0]);
  });

  test('shares are rounded to two decimals', () => {
    expect(servedSides({ from: 'a', to: 'b', served: { from: 2, to: 1 } }).from.shareText).toBe('66.67%');
  });
});

describe("a rollout's entries in the label's history", () => {
  const rollout = { rolloutId: 'ro_20261127051600000_0a1b2c3d', percent: 10, to: '1.1.0' };

  test('started: the share and the version it rolls out', () => {
    expect(rolloutEventText({ from: '1.0.0', rollout: { ...rollout, event: 'started' } })).toBe('rollout started: 10% of subjects on 1.1.0');
  });

  test('a change of share, with the counts served until then', () => {
    expect(rolloutEventText({ from: '1.0.0', rollout: { ...rollout, event: 'changed', percent: 50, served: { from: 9, to: 1 } } })).toBe(
      'rollout share changed to 50% on 1.1.0 (served 9 reads of 1.0.0, 1 of 1.1.0)',
    );
  });

  test('completed: where the label is now', () => {
    expect(rolloutEventText({ from: '1.0.0', rollout: { ...rollout, event: 'completed', percent: 100 } })).toBe('rollout completed: now 1.1.0');
  });

  test('aborted: the share it reached, and the label stays where it was', () => {
    expect(rolloutEventText({ from: '1.0.0', rollout: { ...rollout, event: 'aborted', served: { from: 1200, to: 1 } } })).toBe(
      'rollout aborted at 10%: stays on 1.0.0 (served 1,200 reads of 1.0.0, 1 of 1.1.0)',
    );
  });

  test('the reason `rollout <id>` names the rollout; other reasons do not', () => {
    expect(rolloutOfReason('rollout ro_20261127051600000_0a1b2c3d')).toBe('ro_20261127051600000_0a1b2c3d');
    expect(rolloutOfReason('rollout out the new tone')).toBeUndefined();
    expect(rolloutOfReason(null)).toBeUndefined();
  });
});

describe('scheduled steps', () => {
  test('each step comes its minutes after the start', () => {
    expect(
      scheduledSteps({
        startedAt: '2026-11-27T05:00:00.000Z',
        steps: [
          { percent: 25, afterMinutes: 60 },
          { percent: 50, afterMinutes: 1500 },
        ],
      }),
    ).toEqual([
      { percent: 25, afterMinutes: 60, at: '2026-11-27T06:00:00.000Z' },
      { percent: 50, afterMinutes: 1500, at: '2026-11-28T06:00:00.000Z' },
    ]);
  });

  test('none scheduled: no steps', () => {
    expect(scheduledSteps({ startedAt: '2026-11-27T05:00:00.000Z', steps: [] })).toEqual([]);
  });

  test('a delay in days, hours and minutes', () => {
    expect(delayText(90)).toBe('after 1 hour 30 minutes');
    expect(delayText(120)).toBe('after 2 hours');
    expect(delayText(1441)).toBe('after 1 day 1 minute');
  });
});

describe('what a change does, said before it is applied', () => {
  const rollout = { label: 'production', from: '1.0.0', to: '1.1.0', percent: 10 };

  test('a raise moves more subjects to the new version and none back', () => {
    expect(shareChangeText(rollout, 50)).toBe(
      '50% of subjects get 1.1.0 instead of 10%: subjects already on 1.1.0 stay there, and more move from 1.0.0 to it.',
    );
  });

  test('a cut sends some subjects back', () => {
    expect(shareChangeText(rollout, 5)).toMatch(/some subjects on 1\.1\.0 go back to 1\.0\.0/);
  });

  test('while it rolls out, the label is not moved directly', () => {
    expect(rollingOutNote(rollout)).toBe('production is rolling out to 1.1.0 (10%): complete or abort the rollout before moving or removing it.');
  });

  test('an ended rollout says where the label is, with its counts', () => {
    const served = { from: 3, to: 1 };
    expect(endedText({ ...rollout, state: 'completed', served })).toBe(
      'Rollout completed: production now points at 1.1.0 for everyone (served 3 reads of 1.0.0, 1 of 1.1.0).',
    );
    expect(endedText({ ...rollout, state: 'aborted', served })).toBe(
      'Rollout aborted: production stays on 1.0.0 for everyone (served 3 reads of 1.0.0, 1 of 1.1.0).',
    );
  });
});
