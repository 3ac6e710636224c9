import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { denial } from '../../../dashboard/src/logic/roles';
import { PYTHON_VERIFICATION, TYPESCRIPT_VERIFICATION } from '../../../dashboard/src/features/webhooks/webhook-verification';
import {
  choiceOf,
  delivered,
  deliveryStatusInWords,
  durationInWords,
  eventGroups,
  eventsInWords,
  eventsToSend,
  groupState,
  SUBSCRIBABLE_EVENTS,
  withGroup,
  withType,
} from '../../../dashboard/src/features/webhooks/webhooks';
import { EVENT_TYPES } from '../../../lambda/domain/events';

describe('the events a webhook takes, as the Webhooks page picks them', () => {
  test('every type of the service is offered, grouped by its first word, except webhook.test', () => {
    const groups = eventGroups();
    expect(groups.map((group) => group.prefix)).toEqual(['prompt', 'request', 'rollout', 'key', 'member']);
    expect(groups.flatMap((group) => group.types)).toEqual(EVENT_TYPES.filter((type) => type !== 'webhook.test'));
    expect(groups.find((group) => group.prefix === 'rollout')?.types).toEqual(['rollout.started', 'rollout.changed', 'rollout.completed', 'rollout.aborted']);
  });

  test('every event is sent as ["*"], whatever types were ticked before', () => {
    expect(eventsToSend({ every: true, types: ['prompt.created'] })).toEqual({ events: ['*'] });
  });

  test('picked types are sent in the service’s order, not the order they were ticked', () => {
    let choice = { every: false, types: [] as readonly string[] };
    choice = withType(choice, 'member.added', true);
    choice = withType(choice, 'prompt.label.moved', true);
    expect(eventsToSend(choice)).toEqual({ events: ['prompt.label.moved', 'member.added'] });
  });

  test('nothing picked is refused before sending, with what to do', () => {
    expect(eventsToSend({ every: false, types: [] })).toEqual({ problem: 'Pick at least one event, or every event (*).' });
  });

  test('a type the service no longer sends, kept from a webhook made before, is refused before sending, by name', () => {
    expect(eventsToSend({ every: false, types: ['prompt.created', 'prompt.archived'] })).toEqual({
      problem: 'Untick prompt.archived: the service no longer sends it.',
    });
  });

  test('a group’s box ticks and unticks its types, and says when only some are ticked', () => {
    const request = eventGroups().find((group) => group.prefix === 'request');
    if (!request) throw new Error('no request group');
    const all = withGroup({ every: false, types: ['key.created'] }, request, true);
    expect(groupState(all, request)).toBe('all');
    expect(all.types).toEqual([...request.types, 'key.created']);
    const some = withType(all, 'request.stale', false);
    expect(groupState(some, request)).toBe('some');
    const none = withGroup(some, request, false);
    expect(groupState(none, request)).toBe('none');
    expect(none.types).toEqual(['key.created']);
  });

  test('a stored webhook’s events read back as the form’s choice', () => {
    expect(choiceOf(['*'])).toEqual({ every: true, types: [] });
    expect(choiceOf(['prompt.created', 'key.revoked'])).toEqual({ every: false, types: ['prompt.created', 'key.revoked'] });
  });

  test('the list says every event in words, and types as they are', () => {
    expect(eventsInWords(['*'])).toBe('every event (*)');
    expect(eventsInWords(['prompt.created', 'key.revoked'])).toBe('prompt.created, key.revoked');
  });

  test('webhook.test is never offered: a test goes to the webhook tested, whatever it lists', () => {
    expect(SUBSCRIBABLE_EVENTS).not.toContain('webhook.test');
  });
});

describe('a delivery in the list', () => {
  test('an attempt with no answer says so instead of a status', () => {
    expect(deliveryStatusInWords(null)).toBe('no answer');
    expect(deliveryStatusInWords(503)).toBe('503');
  });

  test('only a 2xx counts as delivered', () => {
    expect([200, 204, 299].every(delivered)).toBe(true);
    expect([null, 199, 301, 404, 500].some(delivered)).toBe(false);
  });

  test('durations read in ms under a second, else in seconds', () => {
    expect(durationInWords(42)).toBe('42 ms');
    expect(durationInWords(1234)).toBe('1.2 s');
    expect(durationInWords(10_000)).toBe('10.0 s');
  });
});

describe('who sees the Webhooks page', () => {
  test('admins and owners manage webhooks; editors and viewers are told who may', () => {
    expect(denial('admin', 'manage webhooks')).toBeUndefined();
    expect(denial('owner', 'manage webhooks')).toBeUndefined();
    expect(denial('editor', 'manage webhooks')).toBe('Editors cannot manage webhooks: that needs an admin of this account.');
    expect(denial('viewer', 'manage webhooks')).toBe('Viewers cannot manage webhooks: that needs an admin of this account.');
  });
});

describe('the verification code shown beside a new secret', () => {
  const doc = readFileSync(join(__dirname, '../../../docs/events.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Verifying a delivery'));
  const block = (language: string) => new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(section)?.[1];

  test('the TypeScript is docs/events.md’s, which its test runs against signed deliveries', () => {
    expect(TYPESCRIPT_VERIFICATION).toBe(block('ts'));
  });

  test('the Python is docs/events.md’s, which its test runs against signed deliveries', () => {
    expect(PYTHON_VERIFICATION).toBe(block('python'));
  });
});
