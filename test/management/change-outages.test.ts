import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { hashApiKey, keyIdFromHash } from '../../lambda/domain/api-key';
import type { Operations } from '../../lambda/operations';
import { Table } from '../../lambda/table/table';
import { createStoreClients, type StoreClients } from '../../lambda/table/client';
import { listChangeRequests } from '../../lambda/features/change-requests/change-requests';
import type { EventType } from '../../lambda/domain/events';
import { readEventBody } from '../../lambda/table/outbox';
import { ADMIN_INDEX, adminIndexKeys, keys, prefixes } from '../../lambda/table/schema';
import type { Role } from '../../lambda/table/item-types';
import { type ApiResponse, TEST_SERVICE_NAME } from '../support/api-harness';
import { type Fault, type FaultProxy, startFaultProxy } from '../support/fault-proxy';
import { config, prompt, version } from '../support/fixtures';
import type { PromptInput } from '../support/fixture-store';
import { capturedRequestLines } from '../support/log-capture';
import { ManagementHarness, type Person, type SendOptions } from '../support/management-harness';
import { deletePrompt } from '../../lambda/features/prompts/operations';

/**
 * Issue 36: an outage from each write position of each change a person makes through the management API.
 * Every change is one transaction with its audit entry (lambda/operations/commit.ts), then the account's prompt
 * revision is copied to its keys. Whatever the store does from the k-th write on (throttles every write, or
 * applies the k-th and loses its answer, then throttles the rest), everything read back afterwards shows the
 * change WHOLE (as a clean run makes it, answered as a clean run is) or ABSENT (the account as it was, at most
 * a refused entry more, answered 503), and never an entry `pending`.
 *
 * Each case has an account of its own, set up directly in the store, and a fault proxy of its own in front of
 * it (test/support/fault-proxy.ts): the cases run at once (jest's maxConcurrency, 5).
 */
const api = new ManagementHarness();

beforeAll(async () => {
  await api.start();
}, 30_000);
afterAll(() => api.stop());

/** What the proxy counts as a write: every operation that changes the store. */
const WRITE_OPERATIONS = new Set(['TransactWriteItems', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);

const CASE_TIMEOUT_MS = 30_000;

type Outage = 'throttle' | 'drop-answer';

// The state of an account, set up for one case

interface Account {
  readonly accountId: string;
  readonly people: Readonly<Record<string, Person>>;
  /** The account's key, set up with it. */
  readonly key: { readonly apiKey: string; readonly keyHash: string; readonly keyId: string };
  /** ETags read back in the setup, by `<promptId>@<version>`. */
  readonly etags: Readonly<Record<string, string>>;
}

/** What a change's fixture adds to the new account. */
interface Setup {
  readonly accountId: string;
  /** `<name>@<accountId>.test`, a member with `role`; with `null` a user of the pool who is no member. */
  person(name: string, role: Role | null): Promise<void>;
  /** Imported as an operator would (no audit entry). */
  prompts(...inputs: PromptInput[]): Promise<void>;
  /** Read through the API (a read: nothing the proxy counts), for the change's If-Match. */
  etagOf(promptId: string, versionNumber: string): Promise<void>;
  /** The shared operations as the member `name` (set up with `person`), straight to the store. */
  as(name: string): Operations;
}

let accounts = 0;
/** Fixed width: no account's id is part of another's. */
function nextAccountId(): string {
  accounts += 1;
  return `outage-${String(accounts).padStart(4, '0')}`;
}

/** A new account (plan pro) with its owner and a key, then what the change needs, all written directly to the store. */
async function setUp(fixture: Change['fixture']): Promise<Account> {
  const accountId = nextAccountId();
  await api.fixtures.account(accountId, 'pro');
  const people: Record<string, Person> = { owner: await api.person(`owner@${accountId}.test`, accountId, 'owner') };
  const apiKey = await api.fixtures.apiKey(accountId);
  const keyHash = hashApiKey(apiKey);
  const etags: Record<string, string> = {};
  await fixture?.({
    accountId,
    person: async (name, role) => {
      const email = `${name}@${accountId}.test`;
      people[name] = role === null ? (api.directory.users.get(email) ?? api.directory.add(email)) : await api.person(email, accountId, role);
    },
    prompts: (...inputs) => api.fixtures.prompts(accountId, ...inputs),
    etagOf: async (promptId, versionNumber) => {
      const read = await api.send('GET', `/api/accounts/${accountId}/prompts/${promptId}/versions/${versionNumber}`, { as: people.owner });
      expect(read.status).toBe(200);
      etags[`${promptId}@${versionNumber}`] = read.headers.etag as string;
    },
    as: (name) => {
      const person = people[name];
      if (!person) throw new Error(`no member ${name} in ${accountId}`);
      return api.operations({ type: 'user', userId: person.userId, email: person.email });
    },
  });
  return { accountId, people, key: { apiKey, keyHash, keyId: keyIdFromHash(keyHash) }, etags };
}

// Reading an account back

type Item = Record<string, unknown>;

/** Sets as sorted arrays and every object's names in order: what two reads are compared by. */
function plain(value: unknown): unknown {
  if (value instanceof Set) return [...value].map(plain).sort();
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((name) => [name, plain((value as Record<string, unknown>)[name])]),
    );
  }
  return value;
}

/** The account's partition (Query pk = ACCOUNT#<id>, strongly consistent) and its key items, straight from the store. */
async function readAccount(accountId: string): Promise<Item[]> {
  const client = api.local.client;
  const query = async (input: ConstructorParameters<typeof QueryCommand>[0]) => {
    const items: Item[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await client.send(new QueryCommand({ ...input, ...(start ? { ExclusiveStartKey: start } : {}) }));
      items.push(...((page.Items ?? []) as Item[]));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  };
  const partition = await query({
    TableName: api.local.tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': prefixes.accountPartition(accountId) },
    ConsistentRead: true,
  });
  const indexed = await query({
    TableName: api.local.tableName,
    IndexName: ADMIN_INDEX,
    KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
    ExpressionAttributeValues: { ':pk': adminIndexKeys.keysOf(accountId), ':prefix': adminIndexKeys.apiKeyPrefix },
  });
  const keyItems = await Promise.all(
    indexed.map(async ({ pk, sk }) => {
      const read = await client.send(new GetCommand({ TableName: api.local.tableName, Key: { pk, sk }, ConsistentRead: true }));
      return read.Item as Item;
    }),
  );
  return [...partition, ...keyItems.filter((item) => item !== undefined).map(withoutHolds)].map((item) => plain(item) as Item);
}

/**
 * A key item without the holds an end of a rollout puts on it while it reads the served counts (served-counts.ts):
 * one that an end failing under an outage could not take off lapses within a second, changes nothing anybody reads,
 * and goes when the rollout ends. The end's own transaction takes them off.
 */
const withoutHolds = (item: Item): Item => Object.fromEntries(Object.entries(item).filter(([name]) => !name.startsWith('hold#')));

const text = (item: unknown) => JSON.stringify(item);
const isAudit = (item: Item) => item.type === 'audit';
const isEvent = (item: Item) => item.type === 'event';

/** What is in `after` and not in `before`, and the other way round (as multisets of items). */
function difference(before: readonly Item[], after: readonly Item[]): { added: Item[]; removed: Item[] } {
  const left = new Map<string, number>();
  for (const item of before) left.set(text(item), (left.get(text(item)) ?? 0) + 1);
  const added: Item[] = [];
  for (const item of after) {
    const count = left.get(text(item)) ?? 0;
    if (count > 0) left.set(text(item), count - 1);
    else added.push(item);
  }
  const removed = before.filter((item) => {
    const count = left.get(text(item)) ?? 0;
    if (count === 0) return false;
    left.set(text(item), count - 1);
    return true;
  });
  return { added, removed };
}

const ISO_INSTANT = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g;
const API_KEY = /prs_[A-Za-z0-9_-]{43}/g;
const KEY_HASH = /[0-9a-f]{64}/g;
const KEY_ID = /key_[0-9a-f]{16}/g;
/** A change request's id: its time and a random tail. */
const REQUEST_ID = /req_\d{17}_[0-9a-f]{8}/g;
/** A rollout's id, alike. */
const ROLLOUT_ID = /ro_\d{17}_[0-9a-f]{8}/g;
/** An event's id, alike (in its key and in its body). */
const EVENT_ID = /evt_\d{17}_[0-9a-f]{8}/g;
const DISPLAY_PREFIX = /^prs_[A-Za-z0-9_-]{4}$/;
/** Epoch milliseconds (a key's expiry): a time, not a setting. */
const EPOCH_MS = 1e12;

/**
 * The account as compared with a clean run's, made on another account: its id, its people's and its key's
 * generated ids named by their role, and what a run cannot repeat left out (times, the new key's ids, the
 * audit entries' random tails), as are the keys' copies of the revision (a copy after the commit may fail:
 * the next change makes it) and the account's `newKeys`, the bookkeeping of those copies (propagation.ts). The
 * random tails of audit entries and label history entries, and change requests' and rollouts' ids, are named alike.
 */
function normalized(value: unknown, account: Account): unknown {
  const names: [string, string][] = [
    [account.key.keyHash, 'KEY-HASH'],
    [account.key.keyId, 'KEY-ID'],
    [account.accountId, 'ACCOUNT'],
    ...Object.entries(account.people).map(([name, person]): [string, string] => [person.userId, `USER-${name}`]),
  ];
  const prefix = account.key.apiKey.slice(0, 8);
  const rename = (current: unknown): unknown => {
    if (typeof current === 'string') {
      if (current === prefix) return 'KEY-PREFIX';
      if (DISPLAY_PREFIX.test(current)) return 'NEW-KEY-PREFIX';
      let renamed = current.replace(API_KEY, 'SECRET');
      for (const [from, to] of names) renamed = renamed.split(from).join(to);
      return renamed
        .replace(KEY_HASH, 'NEW-KEY-HASH')
        .replace(KEY_ID, 'NEW-KEY-ID')
        .replace(REQUEST_ID, 'REQUEST-ID')
        .replace(ROLLOUT_ID, 'ROLLOUT-ID')
        .replace(EVENT_ID, 'EVENT-ID')
        .replace(ISO_INSTANT, 'TIME')
        .replace(/#TIME#[0-9a-f]{8}/g, '#TIME#TAIL');
    }
    if (typeof current === 'number') return current >= EPOCH_MS ? 'EPOCH-MS' : current;
    if (Array.isArray(current)) return current.map(rename);
    if (current !== null && typeof current === 'object') {
      return Object.fromEntries(Object.entries(current).map(([name, inner]) => [rename(name) as string, rename(inner)]));
    }
    return current;
  };
  return rename(value);
}

function comparable(items: readonly Item[], account: Account): unknown[] {
  return items
    .map((item) => {
      if (item.type === 'apiKey') {
        const { promptsRevision: _copy, ...rest } = item;
        return rest;
      }
      // An event is kept 30 days from its time: a time, as its body's.
      if (item.type === 'event') return { ...item, ttl: 'TTL' };
      if (item.sk === keys.account(account.accountId).sk) {
        const { newKeys: _copies, ...rest } = item;
        return rest;
      }
      return item;
    })
    .map((item) => normalized(item, account))
    .sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
}

// A door to the management API with a fault proxy of its own in front of the store

interface Lane {
  readonly door: ManagementHarness;
  readonly proxy: FaultProxy;
  /** The writes the proxy saw, in order: each once, however many times it was sent (see `writeSeen`). */
  readonly writes: string[];
  /** Each write's request, as sent: an SDK retry of a write sends the same request (a transaction, the same token). */
  readonly bodies: string[];
  close(): Promise<void>;
}

async function openLane(): Promise<Lane> {
  const proxy = await startFaultProxy(api.local.endpoint);
  const clients: StoreClients = createStoreClients({ region: 'us-east-1', endpoint: proxy.endpoint });
  const door = new ManagementHarness();
  door.local = api.local;
  door.fixtures = api.fixtures;
  door.useDependencies({ ...api.deps, table: new Table(clients.reads, api.local.tableName, () => new Date(), { writeClient: clients.writes }) });
  return {
    door,
    proxy,
    writes: [],
    bodies: [],
    close: async () => {
      clients.destroy();
      await proxy.close();
    },
  };
}

/**
 * The write's position (1, 2, ...) and whether this is the first time it is sent. Positions count writes, not
 * attempts: on a slow machine an attempt can outlast its 1 s and be sent again, which must not move the outage.
 */
function writeSeen(lane: Lane, operation: string, body: string): { position: number; first: boolean } {
  const known = lane.bodies.indexOf(body);
  if (known !== -1) return { position: known + 1, first: false };
  lane.writes.push(operation);
  lane.bodies.push(body);
  return { position: lane.writes.length, first: true };
}

/** Passes every call, counting the writes. */
function counting(lane: Lane): FaultProxy['rule'] {
  return (operation, body) => {
    if (WRITE_OPERATIONS.has(operation)) writeSeen(lane, operation, body);
    return 'pass';
  };
}

/** Reads pass; writes pass up to the k-th; from it on every write is throttled (`drop-answer`: the k-th is applied, its answer lost). */
function outage(lane: Lane, kind: Outage, k: number): FaultProxy['rule'] {
  return (operation, body): Fault => {
    if (!WRITE_OPERATIONS.has(operation)) return 'pass';
    const { position, first } = writeSeen(lane, operation, body);
    if (position < k) return 'pass';
    return position === k && first && kind === 'drop-answer' ? 'drop-answer' : 'throttle';
  };
}

interface Run {
  readonly account: Account;
  readonly before: Item[];
  readonly after: Item[];
  readonly response: ApiResponse;
  readonly writes: readonly string[];
}

/** A fresh account, its state before, the change sent with the proxy's rule on, then everything read back with the store healthy. */
async function run(change: Change, rule: (lane: Lane) => FaultProxy['rule']): Promise<Run> {
  const account = await setUp(change.fixture);
  const before = await readAccount(account.accountId);
  const lane = await openLane();
  try {
    lane.proxy.rule = rule(lane);
    const response = await change.send((method, path, options) => lane.door.send(method, `/api/accounts/${account.accountId}${path}`, options), account);
    lane.proxy.rule = () => 'pass';
    return { account, before, after: await readAccount(account.accountId), response, writes: [...lane.writes] };
  } finally {
    await lane.close();
  }
}

const bodyOf = (outcome: Run) => normalized(plain(outcome.response.body), outcome.account);
const entriesAdded = (outcome: Run) => difference(outcome.before, outcome.after).added.filter(isAudit);
/** The EVENT# items the run added, read back from the store and parsed, oldest first. */
const eventsAdded = (outcome: Run) =>
  difference(outcome.before, outcome.after)
    .added.filter(isEvent)
    .sort((a, b) => (String(a.sk) < String(b.sk) ? -1 : 1))
    .map(readEventBody);

function expectNoPending(outcome: Run): void {
  expect(outcome.after.filter((item) => isAudit(item) && item.outcome === 'pending')).toEqual([]);
}

/** As the clean run made it, and answered as it was: its events too, exactly one for each it announces. */
function expectWhole(outcome: Run, clean: Run, change: Pick<Change, 'entries' | 'events'>): void {
  expect(outcome.response.status).toBe(clean.response.status);
  expect(bodyOf(outcome)).toEqual(bodyOf(clean));
  expect(comparable(outcome.after, outcome.account)).toEqual(comparable(clean.after, clean.account));
  expect(entriesAdded(outcome).map((entry) => entry.outcome)).toEqual(Array(change.entries ?? 1).fill('succeeded'));
  expect(eventsAdded(outcome).map((event) => event.type)).toEqual(change.events);
}

/** The account as it was but for at most one refused entry, answered 503. */
function expectAbsent(outcome: Run): void {
  expect(outcome.response.status).toBe(503);
  expect(outcome.response.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  const { added, removed } = difference(outcome.before, outcome.after);
  expect(removed).toEqual([]);
  expect(added.filter((item) => !(isAudit(item) && item.outcome === 'refused'))).toEqual([]);
  expect(added.length).toBeLessThanOrEqual(1);
  // A change that did not happen announces nothing.
  expect(eventsAdded(outcome)).toEqual([]);
}

/** Refused as the clean run was (nothing changed), its entry there or not (a refusal the store cannot record is still answered). */
function expectRefused(outcome: Run, clean: Run): void {
  expect(outcome.response.status).toBe(clean.response.status);
  expect(bodyOf(outcome)).toEqual(bodyOf(clean));
  const { added, removed } = difference(outcome.before, outcome.after);
  expect(removed).toEqual([]);
  expect(added.map((item) => item.outcome)).toEqual(added.length === 0 ? [] : ['refused']);
  expect(eventsAdded(outcome)).toEqual([]);
}

// The changes

type Send = (method: string, path: string, options: SendOptions) => Promise<ApiResponse>;

interface Change {
  readonly name: string;
  /**
   * The store writes a clean run makes, as the proxy sees them: the holds an end of a rollout puts on the keys before
   * it reads their counts, the transaction, then the copies to the keys.
   */
  readonly writes: readonly string[];
  readonly fixture?: (setup: Setup) => Promise<void>;
  readonly send: (send: Send, account: Account) => Promise<ApiResponse>;
  /** Refused by a condition the store holds (409): nothing is changed, and the attempt is recorded. */
  readonly refused?: boolean;
  /** The audit entries its transaction writes (1 unless a change records several steps). */
  readonly entries?: number;
  /** The events its transaction writes (docs/events.md), in the order the change makes them: one per entry that announces one. */
  readonly events: readonly EventType[];
}

const TX = 'TransactWriteItems';
/** After a change the read API sees: the account's revision copied to its one key (propagation.ts). */
const COPY = 'UpdateItem';
/** Before an end of a rollout reads the served counts: its hold on the account's one key (served-counts.ts). */
const HOLD = 'UpdateItem';

const content = { systemMessage: 'Be brief.', userMessage: 'Hello ${name}', config: config({ temperature: 0.2 }) };
const welcome = (overrides: Partial<PromptInput> = {}, versions = [version('1.0.0'), version('1.1.0', { published: false })]) =>
  prompt('welcome', versions, overrides);
const labelled = (labels: Record<string, string>) => welcome({ labels }, [version('1.0.0'), version('1.1.0')]);

const CHANGES: readonly Change[] = [
  {
    name: 'create prompt',
    events: ['prompt.created'],
    writes: [TX],
    send: (send, { people }) => send('POST', '/prompts', { as: people.owner, body: { promptId: 'fresh', promptName: 'Fresh' } }),
  },
  {
    name: 'create draft',
    events: [],
    writes: [TX],
    fixture: (setup) => setup.prompts(welcome()),
    send: (send, { people }) => send('PUT', '/prompts/welcome/versions/2.0.0', { as: people.owner, headers: { 'If-None-Match': '*' }, body: content }),
  },
  {
    name: 'save draft',
    events: [],
    writes: [TX],
    fixture: async (setup) => {
      await setup.prompts(welcome());
      await setup.etagOf('welcome', '1.1.0');
    },
    send: (send, { people, etags }) =>
      send('PUT', '/prompts/welcome/versions/1.1.0', { as: people.owner, headers: { 'If-Match': etags['welcome@1.1.0'] as string }, body: content }),
  },
  {
    name: 'delete draft',
    events: [],
    writes: [TX],
    fixture: async (setup) => {
      await setup.prompts(welcome());
      await setup.etagOf('welcome', '1.1.0');
    },
    send: (send, { people, etags }) =>
      send('DELETE', '/prompts/welcome/versions/1.1.0', { as: people.owner, headers: { 'If-Match': etags['welcome@1.1.0'] as string } }),
  },
  {
    name: 'publish a first version',
    events: ['prompt.version.published'],
    writes: [TX, COPY],
    fixture: async (setup) => {
      await setup.prompts(prompt('fresh', [version('1.0.0', { published: false })]));
      await setup.etagOf('fresh', '1.0.0');
    },
    send: (send, { people, etags }) =>
      send('POST', '/prompts/fresh/versions/1.0.0/publish', {
        as: people.owner,
        headers: { 'If-Match': etags['fresh@1.0.0'] as string },
        body: { note: 'first' },
      }),
  },
  {
    name: 'publish a lower version after a higher one',
    events: ['prompt.version.published'],
    writes: [TX, COPY],
    fixture: async (setup) => {
      await setup.prompts(welcome({}, [version('2.0.0'), version('1.5.0', { published: false })]));
      await setup.etagOf('welcome', '1.5.0');
    },
    send: (send, { people, etags }) =>
      send('POST', '/prompts/welcome/versions/1.5.0/publish', {
        as: people.owner,
        headers: { 'If-Match': etags['welcome@1.5.0'] as string },
        body: { note: 'a fix' },
      }),
  },
  {
    name: 'label set',
    events: ['prompt.label.moved'],
    writes: [TX, COPY],
    fixture: (setup) => setup.prompts(welcome()),
    send: (send, { people }) => send('PUT', '/prompts/welcome/labels/staging', { as: people.owner, body: { version: '1.0.0' } }),
  },
  {
    name: 'label move',
    events: ['prompt.label.moved'],
    writes: [TX, COPY],
    fixture: (setup) => setup.prompts(labelled({ production: '1.0.0' })),
    send: (send, { people }) => send('PUT', '/prompts/welcome/labels/production', { as: people.owner, body: { version: '1.1.0' } }),
  },
  {
    name: 'label removal',
    events: ['prompt.label.removed'],
    writes: [TX, COPY],
    fixture: (setup) => setup.prompts(labelled({ staging: '1.0.0' })),
    send: (send, { people }) => send('DELETE', '/prompts/welcome/labels/staging', { as: people.owner }),
  },
  {
    name: 'rename a prompt (its label copies with it)',
    events: ['prompt.updated'],
    writes: [TX, COPY],
    fixture: (setup) => setup.prompts(labelled({ production: '1.0.0', staging: '1.1.0' })),
    send: (send, { people }) => send('PATCH', '/prompts/welcome', { as: people.owner, body: { promptName: 'Welcome again', tags: ['mail'] } }),
  },
  {
    name: 'delete a prompt with labels',
    events: ['prompt.deleted'],
    writes: [TX, COPY],
    fixture: (setup) => setup.prompts(labelled({ production: '1.0.0', staging: '1.1.0' })),
    send: (send, { people }) => send('POST', '/prompts/welcome/delete', { as: people.owner }),
  },
  {
    name: 'restore a prompt with labels',
    events: ['prompt.restored'],
    writes: [TX, COPY],
    fixture: async (setup) => {
      await setup.prompts(labelled({ production: '1.0.0', staging: '1.1.0' }));
      await deletePrompt(api.table, setup.accountId, 'welcome');
    },
    send: (send, { people }) => send('POST', '/prompts/welcome/restore', { as: people.owner }),
  },
  {
    name: 'a label under approval asked for (a change request opened: 202)',
    events: ['request.opened'],
    writes: [TX],
    fixture: async (setup) => {
      await setup.prompts(labelled({ production: '1.0.0' }));
      await underApproval(setup, 1);
    },
    send: (send, { people }) => send('PUT', '/prompts/welcome/labels/production', { as: people.owner, body: { version: '1.1.0', note: 'ship it' } }),
  },
  {
    name: 'a change request approved, one of the two it needs',
    events: ['request.approved'],
    writes: [TX],
    fixture: (setup) => requested(setup, 2),
    send: async (send, account) => send('POST', `/requests/${await openRequestOf(account)}/approve`, { as: account.people.owner, body: { comment: 'fine' } }),
  },
  {
    name: 'a change request approved by the approval that applies it (the label moved with it)',
    events: ['request.approved', 'request.applied', 'prompt.label.moved'],
    writes: [TX, COPY],
    entries: 3,
    fixture: (setup) => requested(setup, 1),
    send: async (send, account) => send('POST', `/requests/${await openRequestOf(account)}/approve`, { as: account.people.owner, body: { comment: 'fine' } }),
  },
  {
    name: 'a change request rejected',
    events: ['request.rejected'],
    writes: [TX],
    fixture: (setup) => requested(setup, 1),
    send: async (send, account) => send('POST', `/requests/${await openRequestOf(account)}/reject`, { as: account.people.owner }),
  },
  {
    name: 'a rollout started',
    events: ['rollout.started'],
    writes: [TX, COPY],
    fixture: (setup) => setup.prompts(labelled({ production: '1.0.0' })),
    send: (send, { people }) =>
      send('PUT', '/prompts/welcome/labels/production/rollout', {
        as: people.owner,
        body: { to: '1.1.0', percent: 10, note: 'careful', steps: [{ percent: 50, afterMinutes: 60 }] },
      }),
  },
  {
    name: "a rollout's share changed",
    events: ['rollout.changed'],
    writes: [TX, COPY],
    fixture: rollingOut,
    send: (send, { people }) => send('PATCH', '/prompts/welcome/labels/production/rollout', { as: people.owner, body: { percent: 25 } }),
  },
  {
    name: 'a rollout completed (the label moved with it)',
    events: ['rollout.completed', 'prompt.label.moved'],
    entries: 2,
    // The end gives the revision to the key in its own transaction: no copy after it.
    writes: [HOLD, TX],
    fixture: rollingOut,
    send: (send, { people }) => send('POST', '/prompts/welcome/labels/production/rollout/complete', { as: people.owner }),
  },
  {
    name: 'a rollout aborted',
    events: ['rollout.aborted'],
    writes: [HOLD, TX],
    fixture: rollingOut,
    send: (send, { people }) => send('POST', '/prompts/welcome/labels/production/rollout/abort', { as: people.owner, body: { reason: 'errors' } }),
  },
  {
    name: 'a change request that carries a rollout approved (the rollout started with it)',
    events: ['request.approved', 'request.applied', 'rollout.started'],
    writes: [TX, COPY],
    entries: 3,
    fixture: async (setup) => {
      await setup.prompts(labelled({ production: '1.0.0' }));
      await setup.person('asker', 'admin');
      await underApproval(setup, 1);
      await setup.as('asker').rollouts.start(setup.accountId, 'welcome', 'production', { to: '1.1.0', percent: 10 });
    },
    send: async (send, account) => send('POST', `/requests/${await openRequestOf(account)}/approve`, { as: account.people.owner }),
  },
  {
    name: 'account settings',
    events: [],
    writes: [TX],
    send: (send, { people }) => send('PATCH', '', { as: people.owner, body: { name: 'Renamed', protectedLabels: ['production', 'release'] } }),
  },
  {
    name: 'member add (an existing user)',
    events: ['member.added'],
    writes: [TX],
    fixture: (setup) => setup.person('newcomer', null),
    send: (send, { people, accountId }) => send('POST', '/members', { as: people.owner, body: { email: `newcomer@${accountId}.test`, role: 'editor' } }),
  },
  {
    name: 'member role change',
    events: [],
    writes: [TX],
    fixture: (setup) => setup.person('editor', 'editor'),
    send: (send, { people }) => send('PATCH', `/members/${people.editor?.userId}`, { as: people.owner, body: { role: 'admin' } }),
  },
  {
    name: 'owner demotion (another owner stays)',
    events: [],
    writes: [TX],
    fixture: (setup) => setup.person('second', 'owner'),
    send: (send, { people }) => send('PATCH', `/members/${people.second?.userId}`, { as: people.owner, body: { role: 'admin' } }),
  },
  {
    name: "the last owner's demotion (refused)",
    events: [],
    writes: [TX, 'PutItem'],
    refused: true,
    send: (send, { people }) => send('PATCH', `/members/${people.owner?.userId}`, { as: people.owner, body: { role: 'admin' } }),
  },
  {
    name: 'member removal',
    events: ['member.removed'],
    writes: [TX],
    fixture: (setup) => setup.person('editor', 'editor'),
    send: (send, { people }) => send('DELETE', `/members/${people.editor?.userId}`, { as: people.owner }),
  },
  {
    name: 'key create',
    events: ['key.created'],
    writes: [TX],
    send: (send, { people }) => send('POST', '/keys', { as: people.owner, body: { name: 'ci', scope: ['welcome'] } }),
  },
  {
    name: 'key update',
    events: [],
    writes: [TX],
    send: (send, { people, key }) =>
      send('PATCH', `/keys/${key.keyId}`, { as: people.owner, body: { name: 'renamed', scope: ['welcome'], monthlyLimit: 500 } }),
  },
  {
    name: 'key rotate (grace 1 h)',
    events: ['key.created'],
    writes: [TX],
    send: (send, { people, key }) => send('POST', `/keys/${key.keyId}/rotate`, { as: people.owner, body: { graceSeconds: 3600 } }),
  },
  {
    name: 'key rotate (grace 0)',
    events: ['key.created'],
    writes: [TX],
    send: (send, { people, key }) => send('POST', `/keys/${key.keyId}/rotate`, { as: people.owner, body: { graceSeconds: 0 } }),
  },
  {
    name: 'key revoke',
    events: ['key.revoked'],
    writes: [TX],
    send: (send, { people, key }) => send('POST', `/keys/${key.keyId}/revoke`, { as: people.owner }),
  },
];

/** Production under approval (`required` approvals), set by the owner. */
async function underApproval(setup: Setup, required: number): Promise<void> {
  await setup.as('owner').accounts.updateSettings(setup.accountId, { approvals: { labels: ['production'], required } });
}

/** A request to move production from 1.0.0 to 1.1.0, opened by an admin (`asker`) of an account that needs `required` approvals. */
async function requested(setup: Setup, required: number): Promise<void> {
  await setup.prompts(labelled({ production: '1.0.0' }));
  await setup.person('asker', 'admin');
  await underApproval(setup, required);
  await setup.as('asker').labels.set(setup.accountId, 'welcome', 'production', '1.1.0', { note: 'ship it' });
}

/** Production rolling out from 1.0.0 to 1.1.0 for 10%, started by the owner. */
async function rollingOut(setup: Setup): Promise<void> {
  await setup.prompts(labelled({ production: '1.0.0' }));
  await setup.as('owner').rollouts.start(setup.accountId, 'welcome', 'production', { to: '1.1.0', percent: 10 });
}

/** The account's one open request (read straight from the store: nothing the proxy sees). */
async function openRequestOf(account: Account): Promise<string> {
  const { requests } = await listChangeRequests(api.table, account.accountId, { state: 'open' });
  const [request] = requests;
  if (!request) throw new Error(`no open request in ${account.accountId}`);
  return request.requestId;
}

/** Every write position of every change, under each outage. */
const CASES = CHANGES.flatMap((change) =>
  change.writes.flatMap((operation, index) =>
    (['throttle', 'drop-answer'] as const).map((kind) => ({ name: change.name, change, k: index + 1, of: change.writes.length, operation, kind })),
  ),
);

/** Each change made once on a healthy store, on an account of its own: what a whole change is compared with. */
const cleanRuns = new Map<Change, Run>();
/** Clean runs made at once: a few, as the cases are (each answer must come within its budget on a shared machine). */
const CLEAN_RUNS_AT_ONCE = 4;
beforeAll(async () => {
  const queue = [...CHANGES];
  const worker = async () => {
    for (let change = queue.shift(); change; change = queue.shift()) cleanRuns.set(change, await run(change, counting));
  };
  await Promise.all(Array.from({ length: CLEAN_RUNS_AT_ONCE }, worker));
}, 60_000);
const cleanRunOf = (change: Change): Run => cleanRuns.get(change) as Run;

describe('a clean run of each change', () => {
  test.each(
    CHANGES.map((change) => ({ name: change.name, change, answer: change.refused ? 'refused (409)' : 'answered 2xx', writes: change.writes.join(', ') })),
  )('$name: $answer, with the writes $writes', ({ change }) => {
    const clean = cleanRunOf(change);
    expect(clean.writes).toEqual(change.writes);
    expectNoPending(clean);
    if (change.refused) {
      expect(clean.response.status).toBe(409);
      expect(entriesAdded(clean).map((entry) => entry.outcome)).toEqual(['refused']);
      expect(difference(clean.before, clean.after).added).toHaveLength(1);
    } else {
      expect(clean.response.status).toBeGreaterThanOrEqual(200);
      expect(clean.response.status).toBeLessThan(300);
      expect(entriesAdded(clean).map((entry) => entry.outcome)).toEqual(Array(change.entries ?? 1).fill('succeeded'));
    }
    // One event per entry that announces one, at that entry's time, by the person who made the change.
    const events = eventsAdded(clean);
    expect(events.map((event) => event.type)).toEqual(change.events);
    const times = entriesAdded(clean).map((entry) => entry.at);
    for (const event of events) {
      expect(times).toContain(event.time);
      expect(event.actor).toEqual({ type: 'user', email: clean.account.people.owner?.email });
    }
  });
});

describe('an outage from each write of each change', () => {
  test.concurrent.each(CASES)(
    '$name: write $k of $of ($operation) $kind, every write after it throttled',
    async ({ change, k, kind }) => {
      const clean = cleanRunOf(change);
      const outcome = await run(change, (lane) => outage(lane, kind, k));
      expectNoPending(outcome);
      // The transaction is the change: throttled, nothing is made; applied with its answer lost, the proof read
      // finds its audit entry. What follows it (the copies to the keys, a refusal's record) cannot undo it, and what
      // comes before it (an end's holds) makes nothing: the change is never sent.
      const atTransaction = change.writes[k - 1] === TX;
      const beforeTransaction = k - 1 < change.writes.indexOf(TX);
      if (beforeTransaction || (atTransaction && (kind === 'throttle' || change.refused))) expectAbsent(outcome);
      else if (change.refused) expectRefused(outcome, clean);
      else expectWhole(outcome, clean, change);
    },
    CASE_TIMEOUT_MS,
  );
});

describe('a transaction still in progress', () => {
  /**
   * The transaction is applied but its answer is lost; the SDK sends it again with the same ClientRequestToken
   * and DynamoDB, still applying the first, answers TransactionInProgressException. Sent again with that token
   * it answers the first one's outcome; a transaction with a new token would be a second one, refused by what
   * the first wrote (the change answered as refused), or planned again on top of it (a second entry).
   */
  test.concurrent.each(CHANGES.filter((change) => !change.refused).map((change) => ({ name: change.name, change })))(
    '$name: applied, its answer lost, its retry told "in progress": whole, answered as a clean run',
    async ({ change }) => {
      const tokens: string[] = [];
      const outcome = await run(change, () => (operation, body) => {
        if (operation !== TX) return 'pass';
        tokens.push(String((JSON.parse(body) as { ClientRequestToken?: unknown }).ClientRequestToken));
        return tokens.length === 1 ? 'drop-answer' : tokens.length === 2 ? 'in-progress' : 'pass';
      });
      expectNoPending(outcome);
      expectWhole(outcome, cleanRunOf(change), change);
      expect(new Set(tokens).size).toBe(1);
    },
    CASE_TIMEOUT_MS,
  );
});

describe('after the commit', () => {
  const labelSet: Change = CHANGES.find((change) => change.name === 'label set') as Change;
  const keyRevision = async (account: Account) => {
    const items = await readAccount(account.accountId);
    const revisionOf = (item: Item | undefined) => Number(item?.promptsRevision ?? 0);
    return {
      account: revisionOf(items.find((item) => item.sk === keys.account(account.accountId).sk)),
      key: revisionOf(items.find((item) => item.pk === keys.apiKey(account.key.keyHash).pk)),
    };
  };

  test(
    'the transaction applied, its answer lost, then no write gets through: 2xx, since the proof read (GetItem) finds its audit entry',
    async () => {
      const seen: { operation: string; body: string }[] = [];
      const outcome = await run(labelSet, (lane) => {
        const rule = outage(lane, 'drop-answer', 1);
        return (operation, body) => {
          seen.push({ operation, body });
          return rule(operation, body);
        };
      });
      expect(outcome.response.status).toBe(200);
      const transaction = seen.findIndex((call) => call.operation === TX);
      const entry = entriesAdded(outcome)[0] as Item;
      expect(entry).toMatchObject({ action: 'label.set', outcome: 'succeeded' });
      // After the lost answer (its retries throttled), the entry's own key is read.
      const proof = seen.slice(transaction + 1).find((call) => call.operation === 'GetItem' && call.body.includes(entry.sk as string));
      expect(proof).toBeDefined();
      expect(JSON.parse(proof?.body as string)).toMatchObject({ ConsistentRead: true, Key: { sk: { S: entry.sk } } });
    },
    CASE_TIMEOUT_MS,
  );

  test(
    'the copy to the keys fails after the commit: 2xx and whole, and the next change copies the revision to the key',
    async () => {
      const [clean, outcome] = await Promise.all([run(labelSet, counting), run(labelSet, (lane) => outage(lane, 'throttle', 2))]);
      expectWhole(outcome, clean, labelSet);
      const held = await keyRevision(outcome.account);
      expect(held.key).toBeLessThan(held.account);
      // Until a later change copies it, the read API may serve the account's prompts as they were: its line says so.
      const line = capturedRequestLines(TEST_SERVICE_NAME).find((record) => record.accountId === outcome.account.accountId && record.status === 200);
      expect(line).toMatchObject({
        level: 'WARN',
        route: 'PUT /api/accounts/{accountId}/prompts/{promptId}/labels/{label}',
        keysCopyFailure: 'StoreUnavailableError',
      });

      const lane = await openLane();
      try {
        lane.proxy.rule = counting(lane);
        const next = await lane.door.send('PUT', `/api/accounts/${outcome.account.accountId}/prompts/welcome/labels/beta`, {
          as: outcome.account.people.owner,
          body: { version: '1.0.0' },
        });
        expect(next.status).toBe(200);
        expect(lane.writes).toEqual([TX, 'UpdateItem']);
      } finally {
        await lane.close();
      }
      const copied = await keyRevision(outcome.account);
      expect(copied.account).toBe(held.account + 1);
      expect(copied.key).toBe(copied.account);
    },
    CASE_TIMEOUT_MS,
  );
});
