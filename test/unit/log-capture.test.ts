import { Logger } from '@aws-lambda-powertools/logger';
import { findKeyLeaks } from '../support/key-leak-check';
import { capturedLogRecords } from '../support/log-capture';

/** The run-wide rule that no key is logged rests on these two: lines are captured, and keys found in them. */

test('a Powertools line written during a test is captured (and kept off the terminal)', () => {
  const from = capturedLogRecords().length;
  new Logger({ serviceName: 'capture-check' }).info('captured', { marker: 'c4pture' });
  expect(capturedLogRecords().slice(from)).toEqual([
    expect.objectContaining({ level: 'INFO', message: 'captured', service: 'capture-check', marker: 'c4pture' }),
  ]);
});

test('a key anywhere in a log line is found, and a line without one is not reported', () => {
  const key = 'prs_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG';
  const leaky = `{"level":"INFO","message":"request","authorization":"Bearer ${key}"}`;
  const clean = '{"level":"INFO","message":"request","keyId":"key_0123456789abcdef"}';
  expect(findKeyLeaks([clean, leaky], [key])).toEqual([{ key, line: leaky }]);
  expect(findKeyLeaks([clean], [key])).toEqual([]);
});
