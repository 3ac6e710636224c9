import { EVENT_ID_PATTERN, EVENT_TYPES, type EventType } from '../../lambda/domain/events';
import { MAX_DESCRIPTION_LENGTH, MAX_PROMPT_NAME_LENGTH, MAX_TAGS } from '../../lambda/domain/prompt-details';
import { announcementOf, EVENT_OF_ACTION } from '../../lambda/operations/announcements';
import type { EventItem, WithKeys } from '../../lambda/table/item-types';
import { EVENT_KEPT_SECONDS, eventTails, eventWrite, MalformedEventError, type NewEvent, readEventBody } from '../../lambda/table/outbox';
import { prefixes } from '../../lambda/table/schema';

/** docs/events.md and docs/data-model.md: an event item's body, its id, how long it is kept, what it costs to write. */

const TIME = '2026-11-27T05:42:00.123Z';
const actor = { type: 'user', email: 'ana@example.com' } as const;

function itemOf(event: NewEvent, tail = '0000002a'): WithKeys<EventItem> {
  const { write } = eventWrite(event, tail);
  if (!('Put' in write)) throw new Error('an event is a put');
  return write.Put.Item as WithKeys<EventItem>;
}

test("an event's id is evt_, its time's 17 digits and the tail; it is kept 30 days from its time (epoch seconds)", () => {
  const item = itemOf({ accountId: 'acme', type: 'prompt.deleted', time: TIME, actor, data: { promptId: 'welcome' } });
  expect(item.eventId).toBe('evt_20261127054200123_0000002a');
  expect(item.eventId).toMatch(EVENT_ID_PATTERN);
  expect(item.sk).toBe(`EVENT#${item.eventId}`);
  expect(item.ttl).toBe(Math.floor(Date.parse(TIME) / 1000) + EVENT_KEPT_SECONDS);
  expect(item.ttl).toBeLessThan(1e11);
});

test("one change's events count up from a random start: they sort in the order the change made them", () => {
  const tail = eventTails();
  const tails = [0, 1, 2, 3].map(tail);
  expect(tails.every((each) => /^[0-9a-f]{8}$/.test(each))).toBe(true);
  expect([...tails].sort()).toEqual(tails);
  expect(new Set(tails).size).toBe(4);
});

test('names in data such as constructor and __proto__ round-trip as data, and pollute nothing', () => {
  const data = JSON.parse('{"promptId":"welcome","before":{"__proto__":{"polluted":true},"constructor":"c","toString":1}}') as Record<string, unknown>;
  const item = itemOf({ accountId: 'acme', type: 'prompt.updated', time: TIME, actor, data });
  const body = readEventBody(item);
  const before = body.data.before as Record<string, unknown>;
  expect(Object.keys(before)).toEqual(['__proto__', 'constructor', 'toString']);
  expect(Object.getPrototypeOf(before)).toBeNull();
  expect(before.constructor).toBe('c');
  expect(before.toString).toBe(1);
  expect(Object.getOwnPropertyDescriptor(before, '__proto__')?.value).toEqual({ polluted: true });
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(JSON.parse(JSON.stringify(body))).toEqual(JSON.parse(item.body));
});

test.each([
  ['no body', {}],
  ['a body that is not JSON', { body: '{' }],
  ['a body of another kind', { body: JSON.stringify({ id: 'evt_1', type: 'prompt.created' }) }],
  ['an unknown type', { body: JSON.stringify({ id: 'evt_20261127054200123_0000002a', type: 'prompt.exploded', time: TIME, accountId: 'a', actor, data: {} }) }],
  [
    'an actor without a name',
    { body: JSON.stringify({ id: 'evt_20261127054200123_0000002a', type: 'prompt.created', time: TIME, accountId: 'a', actor: { type: 'user' }, data: {} }) },
  ],
])('an item with %s is no event: MalformedEventError', (_name, item) => {
  expect(() => readEventBody(item)).toThrow(MalformedEventError);
});

test('every event type but webhook.test is announced by some change, and only those', () => {
  const announced = new Set(EVENT_OF_ACTION.values());
  expect(EVENT_TYPES.filter((type) => !announced.has(type))).toEqual(['webhook.test']);
  for (const action of ['draft.save', 'draft.create', 'draft.delete', 'account.update', 'key.update', 'member.set-role', 'account.create', 'import']) {
    expect(announcementOf({ action, target: {} })).toBeUndefined();
  }
  expect(announcementOf({ action: '__proto__', target: {} })).toBeUndefined();
});

test("a key's event names it by id and name, whatever else the entry holds (its display prefix, never the key)", () => {
  const announced = announcementOf({
    action: 'key.create',
    target: { name: 'ci' },
    after: { keyId: 'key_0123456789abcdef', name: 'ci', displayPrefix: 'prs_AbCd', status: 'active' },
  });
  expect(announced).toEqual({ type: 'key.created', data: { keyId: 'key_0123456789abcdef', name: 'ci' } });
});

// Costs (docs/data-model.md "One change, one transaction"): a transaction writes each item for 2 write units per KB.

/** DynamoDB's size of an item: each attribute's name and value (UTF-8), a number at most 21 bytes. */
function itemSize(item: object): number {
  return Object.entries(item).reduce(
    (size, [name, value]) => size + Buffer.byteLength(name) + (typeof value === 'number' ? 21 : Buffer.byteLength(String(value))),
    0,
  );
}

/** A note as people write them; one may be 500 characters. */
const NOTE = 'Ship the shorter subject line: opens went up 4% in the test.';
const REQUEST = 'req_20261127054200123_1a2b3c4d';
const ROLLOUT = 'ro_20261127054200123_1a2b3c4d';
const move = { requestId: REQUEST, promptId: 'welcome-email', label: 'production', from: '1.2.0', to: '1.3.0' };
const rollout = { rolloutId: ROLLOUT, promptId: 'welcome-email', label: 'production', from: '1.2.0', to: '1.3.0', percent: 25 };
const details = { promptName: 'Welcome email', description: 'The first email a new customer gets.', tags: ['onboarding', 'email'] };

/** Each type's data as changes make it, with long names (a 64-character email, a 100-character key name). */
const TYPICAL: Record<Exclude<EventType, 'webhook.test'>, Record<string, unknown>> = {
  'prompt.created': { promptId: 'welcome-email', promptName: 'Welcome email' },
  'prompt.updated': { promptId: 'welcome-email', before: details, after: { ...details, promptName: 'Welcome' } },
  'prompt.deleted': { promptId: 'welcome-email' },
  'prompt.restored': { promptId: 'welcome-email' },
  'prompt.version.published': { promptId: 'welcome-email', version: '1.3.0', note: NOTE },
  'prompt.label.moved': { promptId: 'welcome-email', label: 'production', from: '1.2.0', to: '1.3.0', reason: `restore: ${NOTE}` },
  'prompt.label.removed': { promptId: 'welcome-email', label: 'production', from: '1.2.0', reason: `request ${REQUEST}` },
  'request.opened': { ...move, state: 'open' },
  'request.approved': { ...move, state: 'applied' },
  'request.applied': { ...move, state: 'applied' },
  'request.rejected': { ...move, state: 'rejected' },
  'request.withdrawn': { ...move, state: 'withdrawn' },
  'request.stale': { ...move, state: 'stale' },
  'rollout.started': { ...rollout, requestId: REQUEST },
  'rollout.changed': { ...rollout, previousPercent: 10 },
  'rollout.completed': { ...rollout, served: { from: 123456789, to: 123456789 } },
  'rollout.aborted': { ...rollout, served: { from: 123456789, to: 123456789 }, reason: 'n'.repeat(200) },
  'key.created': { keyId: 'key_0123456789abcdef', name: 'n'.repeat(100), rotatedFrom: 'key_fedcba9876543210' },
  'key.revoked': { keyId: 'key_0123456789abcdef', name: 'n'.repeat(100) },
  'member.added': { userId: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0', email: `${'n'.repeat(64)}@example.com`, role: 'editor' },
  'member.removed': { userId: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0', email: `${'n'.repeat(64)}@example.com`, role: 'editor' },
};

const sizeOf = (type: EventType, data: Record<string, unknown>) =>
  itemSize(itemOf({ accountId: 'acme-corporation', type, time: TIME, actor: { type: 'user', email: `${'n'.repeat(64)}@example.com` }, data }));

test.each(Object.entries(TYPICAL))('a %s event item is under 1 KB: 2 write units in its transaction', (type, data) => {
  expect(sizeOf(type as EventType, data)).toBeLessThan(1024);
});

test('a note or reason at its longest (500 characters) may take an event past 1 KB, never past 2 KB: 4 write units', () => {
  const longest = 'n'.repeat(500);
  const sizes = [
    sizeOf('prompt.version.published', { promptId: 'p'.repeat(128), version: '1.3.0', note: longest }),
    sizeOf('prompt.label.moved', { promptId: 'p'.repeat(128), label: 'l'.repeat(32), from: '1.2.0', to: '1.3.0', reason: `restore: ${longest}` }),
  ];
  expect(Math.max(...sizes)).toBeGreaterThan(1024);
  expect(Math.max(...sizes)).toBeLessThan(2 * 1024);
});

test('prompt.updated with a name, a description and tags at their longest, before and after, stays under 5 KB: 10 write units', () => {
  const longest = {
    promptName: 'n'.repeat(MAX_PROMPT_NAME_LENGTH),
    description: 'd'.repeat(MAX_DESCRIPTION_LENGTH),
    tags: Array(MAX_TAGS).fill('t'.repeat(32)),
  };
  const size = sizeOf('prompt.updated', { promptId: 'p'.repeat(128), before: longest, after: longest });
  expect(size).toBeGreaterThan(4 * 1024);
  expect(size).toBeLessThan(5 * 1024);
});

test('an event item is in the account partition under EVENT#, a prefix no other list of the partition begins with or is begun by', () => {
  const item = itemOf({ accountId: 'acme', type: 'prompt.deleted', time: TIME, actor, data: { promptId: 'welcome' } });
  expect(item.pk).toBe(prefixes.accountPartition('acme'));
  const others = [
    prefixes.promptHeads,
    prefixes.promptVersions,
    prefixes.versionsOf('EVENT'),
    prefixes.members,
    prefixes.auditEntries,
    prefixes.labelled('e'),
    prefixes.labelHistoryOf('EVENT', 'e'),
    prefixes.changeRequests,
    prefixes.openChangeRequests,
    prefixes.rollouts,
    prefixes.webhooks,
    prefixes.deliveriesOf('wh_0123456789abcdef'),
  ];
  for (const prefix of others) {
    expect(item.sk.startsWith(prefix)).toBe(false);
    expect(prefix.startsWith(prefixes.events)).toBe(false);
  }
});
