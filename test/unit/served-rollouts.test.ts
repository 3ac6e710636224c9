import { bucketOf } from '../../lambda/domain/rollout-bucket';
import { RequestSides, ServedRollouts } from '../../lambda/read-api/served-rollouts';

/** docs/rollouts.md "The bucket rule" and "Served counts", as one request of the read API applies them. */
const rollout = { rolloutId: 'ro_20261115120000000_0badcafe', percent: 30 };

/** A small seeded generator (mulberry32): the same draws on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

test('a subject gets `to` exactly when its bucket is below the share', () => {
  for (let i = 0; i < 2_000; i += 1) {
    const subject = `user-${i}`;
    expect(new RequestSides(subject).sideOf(rollout)).toBe(bucketOf(rollout.rolloutId, subject) < 30 ? 'to' : 'from');
  }
});

test('without a subject, about `percent` of requests get `to`', () => {
  const random = seeded(39);
  let to = 0;
  const requests = 10_000;
  for (let i = 0; i < requests; i += 1) if (new RequestSides(undefined, random).sideOf(rollout) === 'to') to += 1;
  // Mean 3,000, standard deviation about 46.
  expect(to).toBeGreaterThan(2_800);
  expect(to).toBeLessThan(3_200);
});

test('without a subject, one request draws once per rollout: every decision of it agrees, at any share', () => {
  let draws = 0;
  const sides = new RequestSides(undefined, () => {
    draws += 1;
    return 0.5;
  });
  expect(sides.sideOf(rollout)).toBe('from');
  expect(sides.sideOf({ ...rollout, percent: 60 })).toBe('to');
  expect(draws).toBe(1);
  sides.sideOf({ rolloutId: 'ro_20261115120000000_00000002', percent: 50 });
  expect(draws).toBe(2);
});

describe("the correction of a request's served counters", () => {
  const served = (counted: ServedRollouts['counted'], answered: [string, 'from' | 'to'][]) => {
    const request = new ServedRollouts(undefined);
    request.counted = counted;
    request.answered = new Map(answered);
    return request;
  };

  test('is nothing when the admission counted the side answered', () => {
    expect(served([{ rolloutId: 'a', side: 'to', by: 1, revision: 3 }], [['a', 'to']]).corrections(true)).toEqual([]);
  });

  test('moves the count when another side was answered', () => {
    expect(served([{ rolloutId: 'a', side: 'from', by: 1, revision: 3 }], [['a', 'to']]).corrections(true)).toEqual([
      { rolloutId: 'a', side: 'to', by: 1 },
      { rolloutId: 'a', side: 'from', by: -1 },
    ]);
  });

  test('counts what a cold request answered', () => {
    expect(served([], [['a', 'from']]).corrections(true)).toEqual([{ rolloutId: 'a', side: 'from', by: 1 }]);
  });

  test('gives back a side counted and not answered on the revision it was counted under', () => {
    const request = served(
      [
        { rolloutId: 'a', side: 'from', by: 1, revision: 3 },
        { rolloutId: 'b', side: 'to', by: 1, revision: 4 },
      ],
      [['a', 'to']],
    );
    expect(request.givenBack(request.corrections(true))).toEqual([
      { changes: [{ rolloutId: 'a', side: 'from', by: -1 }], revision: 3 },
      { changes: [{ rolloutId: 'b', side: 'to', by: -1 }], revision: 4 },
    ]);
  });

  test('takes back what a refused answer had counted', () => {
    expect(served([{ rolloutId: 'a', side: 'to', by: 1, revision: 3 }], [['a', 'to']]).corrections(false)).toEqual([{ rolloutId: 'a', side: 'to', by: -1 }]);
  });
});
