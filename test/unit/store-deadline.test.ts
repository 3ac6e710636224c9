import { arrivalOf } from '../../lambda/http/store-deadline';
import { apiEvent } from '../support/events';

/** When a request's 5 s start: the gateway's own timestamp when it can be trusted (store-deadline.ts). */

const NOW = Date.parse('2026-11-23T12:00:00Z');
const stamped = (requestTimeEpoch: number | undefined) => {
  const event = apiEvent('GET', '/prompts');
  return { ...event, requestContext: { ...event.requestContext, requestTimeEpoch } } as typeof event;
};

test("the gateway's arrival time counts, so a cold start spends the request's own budget", () => {
  expect(arrivalOf(stamped(NOW - 800), NOW)).toBe(NOW - 800);
});

test('an arrival stamped in the future by a skewed clock counts as now', () => {
  expect(arrivalOf(stamped(NOW + 500), NOW)).toBe(NOW);
});

test('an event without a stamp, or one far from this clock (replayed, hand-made), starts now', () => {
  expect(arrivalOf(stamped(undefined), NOW)).toBe(NOW);
  expect(arrivalOf(stamped(NOW - 60_000), NOW)).toBe(NOW);
  expect(arrivalOf(stamped(0), NOW)).toBe(NOW);
});
