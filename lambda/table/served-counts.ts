import { randomInt } from 'node:crypto';
import type { AccountItem, ApiKeyItem, WithKeys } from './item-types';
import { holdAttribute, keys, servedAttribute } from './schema';
import { inBatches } from './batch-io';
import { NotFoundError } from './errors';
import { keyHashOf } from './item-builders';
import { indexedKeysOf } from './propagation';
import type { Table } from './table';
import type { TransactionWrite } from './transaction';
import { buildUpdate, type ExpressionNames } from './update-expression';

/**
 * A rollout's served counts (docs/rollouts.md "Served counts"): counters on each key's item, which the read path
 * raises in the write that takes a request's unit, read as their sum over the account's keys while the rollout runs,
 * and frozen when it ends.
 *
 * Freezing them exactly takes three things, because reads keep counting while an end is planned:
 * - the read path counts a side only on the condition that the key still carries the prompt revision the side was
 *   decided under (lambda/read-api/store/dynamo-usage-store.ts), and the ending transaction raises every key's revision
 *   itself: no count decided before the end lands after it, and no answer after it carries the rollout;
 * - the ending transaction holds each key's counters to what the end read (its condition), so a count that landed
 *   between the read and the commit makes the end read again;
 * - before reading, the end holds the counters still for a moment (`hold#<rolloutId>`, HOLD_MS): a read that would
 *   count a side of the rollout meanwhile waits for the end, so that on a busy account the end is not read again and
 *   again by counts landing in its window. A hold is only a courtesy: the transaction's conditions make the counts
 *   exact whether or not every read waited.
 */

/** The read requests each side of a rollout answered. */
export interface ServedCounts {
  from: number;
  to: number;
}

/** How long an end holds its rollout's counters still: a read that would count a side waits, at most this, for the end. */
export const HOLD_MS = 1_000;

/**
 * The keys an end fences in its own transaction, at most: DynamoDB's 100 actions less the end's own (a completion
 * writes the rollout, the head, the label, its history entry, the account, two audit entries and two events).
 * Keys beyond it (an account with more keys that may still read) are fenced after the commit, while the hold lasts.
 */
export const MAX_FENCED_KEYS = 90;

/** A key revoked this long ago has no request under way (each is answered within 5 s): it counts no more. */
const SETTLED_MS = 60_000;

/** A rollout's served counts as they stand: the sum over its account's keys (the admin index finds them). */
export async function servedCounts(table: Table, accountId: string, rolloutId: string): Promise<ServedCounts> {
  const indexed = await indexedKeysOf(table, 'servedCounts', accountId);
  return sumOf(await countsOf(table, indexed.map(keyHashOf), rolloutId));
}

/** A key's counters of one rollout, with what says whether it may still count. */
interface KeyCounts {
  readonly keyHash: string;
  readonly from: number | undefined;
  readonly to: number | undefined;
  readonly revision: number;
  /** Not revoked, or revoked too recently for its last request to have finished. */
  readonly mayCount: boolean;
}

async function countsOf(table: Table, keyHashes: readonly string[], rolloutId: string, now = table.now().getTime()): Promise<KeyCounts[]> {
  const fromName = servedAttribute(rolloutId, 'from');
  const toName = servedAttribute(rolloutId, 'to');
  const items = await table.batchGet<WithKeys<Partial<ApiKeyItem>>>(
    keyHashes.map((keyHash) => keys.apiKey(keyHash)),
    ['pk', 'status', 'revokedAt', 'promptsRevision', fromName, toName],
  );
  return items.map((item) => {
    // Revocation is final; an expired key is not (its expiry may be moved), nor is a disabled one.
    const settled = item.status === 'revoked' && Date.parse(item.revokedAt ?? '') < now - SETTLED_MS;
    return {
      keyHash: keyHashOf(item),
      from: optionalNumber(item[fromName]),
      to: optionalNumber(item[toName]),
      revision: Number(item.promptsRevision ?? 0),
      mayCount: !settled,
    };
  });
}

const optionalNumber = (value: unknown): number | undefined => (value === undefined ? undefined : Number(value));

function sumOf(counts: readonly KeyCounts[]): ServedCounts {
  const served: ServedCounts = { from: 0, to: 0 };
  for (const { from, to } of counts) {
    served.from += from ?? 0;
    served.to += to ?? 0;
  }
  return served;
}

/**
 * The holds one end (a complete or an abort, planned again when raced) puts on its account's keys, so that they can
 * be taken off again if the end does not happen. Made per call of the operation (`holdingServedCounts`).
 */
export class ServedCountHolds {
  private readonly placed = new Map<string, { rolloutId: string; until: number; keyHashes: readonly string[] }>();

  constructor(private readonly table: Table) {}

  /**
   * Holds the rollout's counters on each key until HOLD_MS from now, by the wall clock (the read path compares it
   * with its own: a test's clock is no wall clock). A key that is gone is skipped.
   */
  async hold(accountId: string, rolloutId: string, keyHashes: readonly string[]): Promise<void> {
    // The fraction names this end's holds apart from another end's set in the same millisecond.
    const until = Date.now() + HOLD_MS + randomInt(1, 1_000_000) / 1_000_000;
    this.placed.set(accountId, { rolloutId, until, keyHashes });
    await inBatches(keyHashes, async (keyHash) => {
      await this.table.update(
        'holdServedCounts',
        {
          Key: keys.apiKey(keyHash),
          ...buildUpdate({ set: { [holdAttribute(rolloutId)]: until }, condition: (e) => `attribute_exists(${e.name('pk')})` }),
        },
        () => undefined,
      );
    });
  }

  /** Takes off the holds this end still has on its keys (another end's are left): when the end did not happen. */
  async release(): Promise<void> {
    for (const { rolloutId, until, keyHashes } of this.placed.values()) {
      await inBatches(keyHashes, async (keyHash) => {
        await this.table.update(
          'releaseServedCounts',
          {
            Key: keys.apiKey(keyHash),
            ...buildUpdate({ remove: [holdAttribute(rolloutId)], condition: (e) => `${e.name(holdAttribute(rolloutId))} = ${e.value(until)}` }),
          },
          () => undefined,
        );
      });
    }
    this.placed.clear();
  }
}

/**
 * Runs an end of a rollout with holds of its own; when it fails (refused, raced too often, the store down), its holds
 * are taken off as far as the store lets them (one left lapses within HOLD_MS, and the rollout's end removes it).
 */
export async function holdingServedCounts<T>(table: Table, end: (holds: ServedCountHolds) => Promise<T>): Promise<T> {
  const holds = new ServedCountHolds(table);
  try {
    return await end(holds);
  } catch (error) {
    await holds.release().catch(() => undefined);
    throw error;
  }
}

/** What an end writes of its rollout's counts: the counts themselves, and how the account and its keys are fenced. */
export interface FrozenServedCounts {
  readonly served: ServedCounts;
  /**
   * The account's prompt revision set to the one the fenced keys take, on the condition that neither it nor the keys
   * registered on the account changed since they were read (a key created meanwhile is not fenced: read again).
   */
  readonly revisionWrite: TransactionWrite;
  /** Each key that may still count: the new revision, its counters and the hold taken off, on the condition that its counters are as read. */
  readonly keyWrites: readonly TransactionWrite[];
  /** Once committed: the new revision given to the keys outside the transaction, then their counters and holds taken off. */
  readonly followUp: (table: Table) => Promise<void>;
}

/**
 * The end's fence of a rollout's counts (see the top of this file): the account's keys (the admin index's, and those
 * registered since), held, then read; the counts summed; the writes of the ending transaction that freeze them.
 */
export async function freezeServedCounts(
  table: Table,
  accountId: string,
  rolloutId: string,
  holds: ServedCountHolds,
  options: {
    /** What else the end read of the account item, held by the same write (one action per item in a transaction). */
    readonly accountHolds?: (e: ExpressionNames) => string;
  } = {},
): Promise<FrozenServedCounts> {
  const [account, indexed] = await Promise.all([
    table.get<AccountItem>('freezeServedCounts', keys.account(accountId)),
    indexedKeysOf(table, 'freezeServedCounts', accountId),
  ]);
  if (!account) throw new NotFoundError(`account ${accountId} does not exist`);
  const found = await countsOf(table, [...new Set([...indexed.map(keyHashOf), ...(account.newKeys ?? [])])], rolloutId);
  // A key that counts no more keeps the counters just read; the others are held, then read again.
  const settled = found.filter((key) => !key.mayCount);
  const mayCount = found.filter((key) => key.mayCount).map((key) => key.keyHash);
  await holds.hold(accountId, rolloutId, mayCount);
  const held = await countsOf(table, mayCount, rolloutId);
  // The busiest keys first: a key that counted is the likeliest to count again.
  const fenced = [...held].sort((a, b) => total(b) - total(a) || (a.keyHash < b.keyHash ? -1 : 1)).slice(0, MAX_FENCED_KEYS);
  const followed = [...held.filter((key) => !fenced.includes(key)), ...settled.filter((key) => key.from !== undefined || key.to !== undefined)];
  const read = account.promptsRevision === undefined ? undefined : Number(account.promptsRevision);
  const registrations = account.keyRegistrations === undefined ? undefined : Number(account.keyRegistrations);
  // Never lower than a key's: a key ahead of its account (an import) would keep answering from what it remembers.
  const revision = Math.max(read ?? 0, ...found.map((key) => key.revision), ...held.map((key) => key.revision)) + 1;
  return {
    served: sumOf([...held, ...settled]),
    revisionWrite: {
      Update: {
        Key: keys.account(accountId),
        ...buildUpdate({
          set: { promptsRevision: revision },
          condition: (e) =>
            [
              `attribute_exists(${e.name('pk')})`,
              unchanged(e, 'promptsRevision', read),
              unchanged(e, 'keyRegistrations', registrations),
              ...(options.accountHolds ? [options.accountHolds(e)] : []),
            ].join(' AND '),
        }),
      },
    },
    keyWrites: fenced.map((key) => ({
      Update: {
        Key: keys.apiKey(key.keyHash),
        ...buildUpdate({
          set: { promptsRevision: revision },
          remove: [servedAttribute(rolloutId, 'from'), servedAttribute(rolloutId, 'to'), holdAttribute(rolloutId)],
          condition: (e) =>
            `attribute_exists(${e.name('pk')}) AND ${unchanged(e, servedAttribute(rolloutId, 'from'), key.from)} AND ${unchanged(e, servedAttribute(rolloutId, 'to'), key.to)}`,
        }),
      },
    })),
    followUp: (followUpTable) => clearServedCounts(followUpTable, rolloutId, followed, revision),
  };
}

const total = (key: KeyCounts): number => (key.from ?? 0) + (key.to ?? 0);

/** The attribute still as read: absent, or the number read. */
const unchanged = (e: ExpressionNames, name: string, read: number | undefined): string =>
  read === undefined ? `attribute_not_exists(${e.name(name)})` : `${e.name(name)} = ${e.value(read)}`;

/**
 * The keys an end's transaction did not fence, once it committed: each takes the new revision (unless it holds a
 * higher one), so that its requests read again, and only then loses its counters and its hold, so that a count
 * decided before the end cannot land after it while the hold lasts. Then a key's item, which every read request
 * writes, does not grow with each rollout (its history entry keeps the counts).
 */
async function clearServedCounts(table: Table, rolloutId: string, keysLeft: readonly KeyCounts[], revision: number): Promise<void> {
  await inBatches(keysLeft, async ({ keyHash }) => {
    await table.update(
      'clearServedCounts',
      {
        Key: keys.apiKey(keyHash),
        ...buildUpdate({
          set: { promptsRevision: revision },
          condition: (e) =>
            `attribute_exists(${e.name('pk')}) AND (attribute_not_exists(${e.name('promptsRevision')}) OR ${e.name('promptsRevision')} < ${e.value(revision)})`,
        }),
      },
      () => undefined,
    );
    await table.update(
      'clearServedCounts',
      {
        Key: keys.apiKey(keyHash),
        ...buildUpdate({
          remove: [servedAttribute(rolloutId, 'from'), servedAttribute(rolloutId, 'to'), holdAttribute(rolloutId)],
          condition: (e) => `attribute_exists(${e.name('pk')})`,
        }),
      },
      () => undefined,
    );
  });
}
