import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { EVENT_ID_PATTERN, type EventBody } from '../lambda/domain/events';
import { type DispatchDependencies, dispatchEvents } from '../lambda/event-dispatch/dispatcher';
import { listAccounts } from '../lambda/features/accounts/accounts';
import { eventsAfter, readEventBody } from '../lambda/table/outbox';
import { type Repeating, repeatWithoutOverlap } from './rollout-steps-timer';

/**
 * npm start's stand-in for the table's stream (the embedded store has none): every second, each account's event
 * items newer than a cursor, through the deployed dispatcher (dispatchEvents).
 * docs/local-stack.md "Events and webhooks" says what it decides:
 *
 * - The cursor is an instant: every event before it has been dispatched. It starts where npm start starts (the
 *   events of changes made before are not announced), or, when the data folder holds one (events-cursor.json),
 *   where the last run left it, so a restart announces what changed while it was stopped and resends nothing older.
 * - An event id holds its transaction's time, and a transaction may commit a little after an event with a later id
 *   is read: the cursor stays SETTLE_MS behind the clock, and the events read past it are remembered by id, so each
 *   is dispatched once while it is in that window. A restart may resend the last few seconds' events: receivers
 *   deduplicate on webhook-id, as deployed.
 */

export const LOCAL_EVENTS_INTERVAL_MS = 1_000;
/** How long after its id's instant an event's transaction may still commit, on the local store. */
export const SETTLE_MS = 5_000;
/** Event items read per query. */
const PAGE = 100;
export const EVENTS_CURSOR_FILE = 'events-cursor.json';

/** The largest event id of an instant: every event of that millisecond or before sorts at or below it. */
export const cursorAt = (instant: Date): string => `evt_${instant.toISOString().replace(/\D/g, '')}_ffffffff`;

export interface EventPollerOptions {
  readonly dispatch: DispatchDependencies;
  /** Where the cursor is kept between runs (the data folder's events-cursor.json). */
  readonly cursorFile: string;
  readonly now?: () => Date;
  readonly intervalMs?: number;
  readonly onError: (error: unknown) => void;
}

export function startEventPoller(options: EventPollerOptions): Repeating & { pollNow(): Promise<void> } {
  const now = options.now ?? (() => new Date());
  let cursor = readCursor(options.cursorFile) ?? cursorAt(now());
  /** Events past the cursor already dispatched. */
  const seen = new Set<string>();

  const poll = async (): Promise<void> => {
    const settled = cursorAt(new Date(now().getTime() - SETTLE_MS));
    const accounts = await listAccounts(options.dispatch.table);
    for (const { accountId } of accounts) {
      const fresh: EventBody[] = [];
      for (let after = cursor, page: string[] = []; ; ) {
        const items = await eventsAfter(options.dispatch.table, accountId, after, PAGE);
        page = items.map((item) => item.eventId);
        fresh.push(...items.filter((item) => !seen.has(item.eventId)).map((item) => readEventBody(item)));
        const last = page.at(-1);
        if (items.length < PAGE || last === undefined) break;
        after = last;
      }
      if (fresh.length === 0) continue;
      await dispatchEvents(fresh, options.dispatch);
      for (const event of fresh) seen.add(event.id);
    }
    if (settled > cursor) {
      cursor = settled;
      for (const id of seen) if (id <= cursor) seen.delete(id);
      writeCursor(options.cursorFile, cursor);
    }
  };

  // One chain: the timer's runs and a test's pollNow never overlap.
  let chain: Promise<void> = Promise.resolve();
  const serialized = () => {
    const run = chain.then(poll);
    chain = run.catch(() => undefined);
    return run;
  };
  const repeating = repeatWithoutOverlap(serialized, options.intervalMs ?? LOCAL_EVENTS_INTERVAL_MS, options.onError);
  return { stop: () => repeating.stop().then(() => chain), pollNow: serialized };
}

function readCursor(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    const after = typeof parsed === 'object' && parsed !== null && 'after' in parsed ? parsed.after : undefined;
    // A file that is not ours, or damaged: start from now rather than resend everything or stop npm start.
    return typeof after === 'string' && EVENT_ID_PATTERN.test(after) ? after : undefined;
  } catch {
    return undefined;
  }
}

/** Written aside and renamed: a stop in the middle never leaves half a file. */
function writeCursor(file: string, after: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, `${JSON.stringify({ after })}\n`);
  renameSync(`${file}.tmp`, file);
}
