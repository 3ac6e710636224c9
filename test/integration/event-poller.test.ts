import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { EventBody } from '../../lambda/domain/events';
import { eventWrite } from '../../lambda/table/outbox';
import { Table } from '../../lambda/table/table';
import type { DeliveryJob } from '../../lambda/webhook-delivery/delivery-job';
import { cursorAt, EVENTS_CURSOR_FILE, SETTLE_MS, startEventPoller } from '../../local/event-poller';
import { FixtureStore } from '../support/fixture-store';
import { type LocalStore, startLocalStore } from '../support/local-store';

/**
 * npm start's stand-in for the stream (docs/local-stack.md "Events and webhooks"): each event once, from the moment
 * it starts, and after a restart only what came since the cursor it kept.
 */

let store: LocalStore;
let table: Table;
let dataDir: string;
/** The test's clock: the poller reads it, the events' times are set from it. */
let clock = new Date('2026-11-27T06:00:00.000Z');
let tail = 0;

beforeAll(async () => {
  store = await startLocalStore('event-poller-test');
  table = new Table(store.client, store.tableName, () => clock);
  await new FixtureStore(store.client, store.tableName).putAccount({ accountId: 'acme', name: 'Acme', plan: 'free' });
});
afterAll(() => store.close());
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'event-poller-'));
});
afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

async function announce(at: Date): Promise<string> {
  tail += 1;
  const { write, body } = eventWrite(
    { accountId: 'acme', type: 'key.created', time: at.toISOString(), actor: { type: 'cli', operator: 'test' }, data: { keyId: `k${tail}`, name: 'k' } },
    tail.toString(16).padStart(8, '0'),
  );
  await table.transact('test', [write]);
  return body.id;
}

function poller() {
  const published: EventBody[] = [];
  const bus = { publish: async (events: readonly EventBody[]) => void published.push(...events) };
  const queue = { enqueue: async (_jobs: readonly DeliveryJob[]) => undefined };
  const running = startEventPoller({
    dispatch: { table, bus, queue },
    cursorFile: path.join(dataDir, EVENTS_CURSOR_FILE),
    now: () => clock,
    intervalMs: 60_000,
    onError: (error) => {
      throw error;
    },
  });
  return { published: () => published.map((event) => event.id), ...running };
}

const later = (ms: number) => {
  clock = new Date(clock.getTime() + ms);
  return clock;
};

it('announces what changed after it started, once, though the event is read again while it settles', async () => {
  const before = await announce(later(1_000));
  const running = poller();
  const after = await announce(later(1_000));
  await running.pollNow();
  await running.pollNow();
  later(SETTLE_MS + 1_000);
  await running.pollNow();
  await running.stop();
  expect(running.published()).toEqual([after]);
  expect(running.published()).not.toContain(before);
});

it('announces an event that committed after a later one was read, while it is within the settling time', async () => {
  const running = poller();
  const late = later(1_000);
  const first = await announce(later(500));
  await running.pollNow();
  const second = await announce(late);
  await running.pollNow();
  await running.stop();
  expect(running.published()).toEqual([first, second]);
});

it('after a restart, announces what changed while it was stopped and nothing it had announced', async () => {
  const first = poller();
  const announced = await announce(later(1_000));
  await first.pollNow();
  later(SETTLE_MS + 1_000);
  await first.pollNow();
  await first.stop();
  expect(JSON.parse(fs.readFileSync(path.join(dataDir, EVENTS_CURSOR_FILE), 'utf8'))).toEqual({ after: cursorAt(new Date(clock.getTime() - SETTLE_MS)) });

  const whileStopped = await announce(later(1_000));
  const second = poller();
  await second.pollNow();
  await second.stop();
  expect(first.published()).toEqual([announced]);
  expect(second.published()).toEqual([whileStopped]);
});
