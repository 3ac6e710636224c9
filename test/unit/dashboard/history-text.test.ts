import { historyMove, historyReason, restoreTarget } from '../../../dashboard/src/features/labels/history-text';

describe('label history and restores', () => {
  test('each move in a few words', () => {
    expect(historyMove({ from: '1.0.0', to: '1.0.1' })).toBe('1.0.0 to 1.0.1');
    expect(historyMove({ from: null, to: '1.0.0' })).toBe('set to 1.0.0');
    expect(historyMove({ from: '1.0.1', to: null })).toBe('removed (was 1.0.1)');
  });

  test('the reason says how it moved, and names the change request that moved it', () => {
    expect(historyReason('request req_20261127034323123_0a1b2c3d')).toEqual({ text: 'through a change request', requestId: 'req_20261127034323123_0a1b2c3d' });
    expect(historyReason('restore')).toEqual({ text: 'restored from the history' });
    expect(historyReason('restore: back to the known good one')).toEqual({ text: 'restored: back to the known good one' });
    expect(historyReason('push')).toEqual({ text: 'pushed from a prompts folder (CLI)' });
    expect(historyReason('break-glass')).toEqual({ text: 'moved by an operator without its change request (break-glass)' });
    expect(historyReason('break-glass: incident 42')).toEqual({ text: 'moved by an operator without its change request (break-glass): incident 42' });
    expect(historyReason('Greet by city')).toEqual({ text: 'Greet by city' });
    expect(historyReason(null)).toBeUndefined();
  });

  test('a past position can be restored; where the label is now, or a removal, cannot', () => {
    expect(restoreTarget({ to: '1.0.0' }, '1.0.1')).toBe('1.0.0');
    expect(restoreTarget({ to: '1.0.1' }, '1.0.1')).toBeUndefined();
    expect(restoreTarget({ to: null }, '1.0.1')).toBeUndefined();
  });
});
