import { MAX_PACE_MS, MAX_SLOW_MS, readMarkers } from '../../local/model-stand-in/markers';

/** docs/runs.md, "The local stand-in model": how the markers are read from the last user message. */

test('SLOW is at most 30,000 ms and PACE at most 1,000 ms, whatever number is written', () => {
  expect(readMarkers('SLOW:99999999999999999999999 PACE:5000 hi')).toMatchObject({ slowMs: MAX_SLOW_MS, paceMs: MAX_PACE_MS });
  expect([MAX_SLOW_MS, MAX_PACE_MS]).toEqual([30_000, 1_000]);
});

test('the first marker of each kind counts, and every one of them is taken out of the reply', () => {
  expect(readMarkers('SLOW:10 say SLOW:20 THROTTLE:3 THROTTLE:4 hi')).toEqual({
    error: undefined,
    throttle: 3,
    slowMs: 10,
    paceMs: 0,
    reply: undefined,
    text: 'say hi',
  });
});

test('markers after the last REPLY: are part of the reply and steer nothing', () => {
  expect(readMarkers('REPLY: SLOW:10 ERROR:ThrottlingException')).toMatchObject({ slowMs: 0, error: undefined, reply: 'SLOW:10 ERROR:ThrottlingException' });
});

test('a marker starts a word and is written in capitals', () => {
  expect(readMarkers('xSLOW:10 slow:10 ERROR:ThrottlingExceptions THROTTLE:2x')).toMatchObject({ slowMs: 0, error: undefined, throttle: undefined });
});
