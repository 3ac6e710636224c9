import type { ChangeRequest, Rollout } from '../../../dashboard/src/api/types';
import { answerText, asksFirst, moveDialogText, protectedLabelsOf } from '../../../dashboard/src/features/labels/label-change';

const opened = (change: Partial<ChangeRequest> = {}): ChangeRequest => ({
  requestId: 'req_1',
  promptId: 'welcome',
  label: 'production',
  from: '1.0.0',
  to: '1.0.1',
  note: null,
  restore: false,
  requestedBy: 'ana@example.com',
  requestedAt: '2025-01-02T10:00:00.000Z',
  required: 1,
  approvals: [],
  state: 'open',
  decision: null,
  ...change,
});

describe('a label change, said the same way from every door of the prompt page', () => {
  test('a change made at once says where the label is now', () => {
    const done = { kind: 'done' } as const;
    expect(answerText('production', { kind: 'move', to: '1.0.1' }, done)).toBe('production now points at 1.0.1.');
    expect(answerText('staging', { kind: 'point', to: '1.0.0' }, done)).toBe('staging now points at 1.0.0.');
    expect(answerText('production', { kind: 'restore', to: '1.0.0' }, done)).toBe('production restored to 1.0.0.');
    expect(answerText('canary', { kind: 'remove' }, done)).toBe('canary removed.');
  });

  test('a started rollout says its version and share as the API answered them', () => {
    const rollout: Rollout = {
      rolloutId: 'ro_1',
      promptId: 'welcome',
      label: 'production',
      from: '1.0.1',
      to: '1.0.2',
      percent: 12.5,
      startedAt: '2025-01-02T10:00:00.000Z',
      startedBy: 'ana@example.com',
      note: null,
      served: { from: 0, to: 0 },
      steps: [],
      guardAlarm: null,
      state: 'active',
    };
    expect(answerText('production', { kind: 'rollout', to: '1.0.2', percent: 12.5 }, { kind: 'done', rollout })).toBe(
      'The rollout of production to 1.0.2 started at 12.5%.',
    );
  });

  test('a change request opened instead says what it asks for', () => {
    const request = { kind: 'requested', request: opened() } as const;
    expect(answerText('production', { kind: 'move', to: '1.0.1' }, request)).toBe('A change request was opened to move production to 1.0.1.');
    expect(answerText('production', { kind: 'point', to: '1.0.1' }, request)).toBe('A change request was opened to point production at 1.0.1.');
    expect(answerText('production', { kind: 'restore', to: '1.0.0' }, request)).toBe('A change request was opened to restore production to 1.0.0.');
    expect(answerText('production', { kind: 'remove' }, { kind: 'requested', request: opened({ to: null }) })).toBe(
      'A change request was opened to remove production.',
    );
    expect(answerText('production', { kind: 'rollout', to: '1.0.1', percent: 5 }, request)).toBe(
      'A change request was opened to roll production out to 1.0.1.',
    );
  });

  test('a protected label, or one under approval, is asked first; an ordinary one, and any removal, is sent at once', () => {
    const move = { kind: 'move', to: '1.0.1' } as const;
    expect(asksFirst(move, true, undefined)).toBe(true);
    expect(asksFirst(move, false, 2)).toBe(true);
    expect(asksFirst(move, false, undefined)).toBe(false);
    expect(asksFirst({ kind: 'remove' }, true, 2)).toBe(false);
  });

  test('the confirmation names the move, a first pointing or a restore, and asks instead where approvals cover the label', () => {
    expect(moveDialogText('production', { kind: 'move', to: '1.0.1' }, '1.0.0', undefined)).toEqual({
      title: 'Move production from 1.0.0 to 1.0.1?',
      confirm: 'Yes, move production to 1.0.1',
      doing: 'Moving production',
    });
    expect(moveDialogText('canary', { kind: 'point', to: '1.0.1' }, undefined, undefined).title).toBe('Point canary at 1.0.1?');
    expect(moveDialogText('production', { kind: 'restore', to: '1.0.0' }, '1.0.1', 1)).toEqual({
      title: 'Restore production to 1.0.0?',
      confirm: 'Yes, ask to restore production to 1.0.0',
      doing: 'Restoring production',
    });
  });

  test("the protected labels are the account's, or production until its settings are read", () => {
    expect(protectedLabelsOf({ protectedLabels: ['live'] })).toEqual(['live']);
    expect(protectedLabelsOf(undefined)).toEqual(['production']);
  });
});
