import type { AccountItem, ApiKeyItem, WithKeys } from './item-types';
import { ADMIN_INDEX, adminIndexKeys, keys } from './schema';
import { inBatches } from './batch-io';
import { keyHashOf, limitInForce } from './item-builders';
import type { Table } from './table';
import type { TransactionWrite } from './transaction';
import { buildUpdate, type ExpressionNames } from './update-expression';

/**
 * What every key carries a copy of, so that the API admits a request with one read of the key alone:
 * its account's plan (and the limit in force that follows from it) and its account's prompt revision.
 * Each change to the account is copied to its keys; if that is interrupted, running the change again
 * completes it.
 */

/** The account's keys as the admin index holds them: what operators list, not the usage counters. */
export function indexedKeysOf(table: Table, callName: string, accountId: string): Promise<WithKeys<ApiKeyItem>[]> {
  return table.query(callName, {
    IndexName: ADMIN_INDEX,
    KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
    ExpressionAttributeValues: { ':pk': adminIndexKeys.keysOf(accountId), ':prefix': adminIndexKeys.apiKeyPrefix },
  });
}

export async function copyPlanToKeys(table: Table, accountId: string, plan: string): Promise<void> {
  const indexed = await indexedKeysOf(table, 'copyPlanToKeys', accountId);
  for (const item of indexed) {
    const monthlyLimit = typeof item.monthlyLimit === 'number' ? item.monthlyLimit : undefined;
    const limit = limitInForce(plan, monthlyLimit);
    if (item.plan === plan && item.limit === limit) continue;
    await table.setOnExisting('copyPlanToKeys', keys.apiKey(keyHashOf(item)), { plan, limit });
  }
}

/**
 * The account's prompt revision raised, as one write of a change's transaction (operations/commit.ts): the change and
 * the new revision commit together. copyRevisionToKeys then gives it to the account's keys.
 */
export function raiseRevisionWrite(accountId: string, holds?: (e: ExpressionNames) => string): TransactionWrite {
  return {
    Update: {
      Key: keys.account(accountId),
      ...buildUpdate({
        add: { promptsRevision: 1 },
        // What the change read of the account, held to it (operations/commit.ts `accountHolds`): the item takes one action.
        condition: (e) => [`attribute_exists(${e.name('pk')})`, ...(holds ? [holds(e)] : [])].join(' AND '),
      }),
    },
  };
}

/** A new revision on the account item (outside any transaction: imports), then copied to each of its keys. */
export async function bumpPromptsRevision(table: Table, accountId: string): Promise<void> {
  const result = await table.update('bumpPromptsRevision', {
    Key: keys.account(accountId),
    ...buildUpdate({ add: { promptsRevision: 1 }, condition: (e) => `attribute_exists(${e.name('pk')})` }),
    ReturnValues: 'ALL_NEW',
  });
  await copyToKeys(table, accountId, result.Attributes as Partial<AccountItem> | undefined);
}

/** The account's revision, as it stands, copied to each of its keys: after a change's transaction commits. */
export async function copyRevisionToKeys(table: Table, accountId: string): Promise<void> {
  await copyToKeys(table, accountId, await table.get<AccountItem>('copyRevisionToKeys', keys.account(accountId)));
}

/**
 * Copies the account's revision to each of its keys (which only ever take a higher one): the keys the admin
 * index lists, and the keys registered on the account item as created recently.
 *
 * Why both: the index is eventually consistent, so a key written just before this change may be missing
 * from it. Every key's writer registers the key on the account item (`newKeys`) in the transaction that
 * writes the key, conditional on the account's revision being the one it gave the key (keys.ts); this
 * reads the account item after the change's transaction raised it. Whichever of the two committed first,
 * the key carries the new revision: a key written first is in `newKeys` here; a key written after carries
 * the new revision itself (its writer's condition failed on the old one, and it read again). Registered keys
 * that the index lists are then dropped from `newKeys`, which so only holds keys created since.
 */
async function copyToKeys(table: Table, accountId: string, account: Partial<AccountItem> | undefined): Promise<void> {
  if (!account) return;
  const revision = Number(account.promptsRevision ?? 0);
  const registered = [...(account.newKeys ?? [])];
  const indexed = (await indexedKeysOf(table, 'copyRevisionToKeys', accountId)).map(keyHashOf);
  const keyHashes = [...new Set([...indexed, ...registered])];
  const ahead = await raiseKeyRevisions(table, keyHashes, revision);
  // A key ahead of its account (an import replaced the account item, and its revision, before imports
  // updated accounts field by field): the account moves past it, or its keys would never change again.
  if (ahead !== undefined) {
    await table.update(
      'copyRevisionToKeys',
      {
        Key: keys.account(accountId),
        ...buildUpdate({ set: { promptsRevision: ahead + 1 }, condition: (e) => `${e.name('promptsRevision')} < ${e.value(ahead + 1)}` }),
      },
      () => undefined,
    );
    await raiseKeyRevisions(table, keyHashes, ahead + 1);
  }
  const listed = registered.filter((keyHash) => indexed.includes(keyHash));
  if (listed.length > 0) {
    await table.update('copyRevisionToKeys', { Key: keys.account(accountId), ...buildUpdate({ delete: { newKeys: new Set(listed) } }) });
  }
}

/**
 * Every written key is registered on its account item (see bumpPromptsRevision), which returns the
 * account's revision read in the same atomic step: the key takes it, or it would see older copies.
 */
export async function catchUpKeys(table: Table, written: readonly { accountId: string; keyHash: string }[]): Promise<void> {
  const byAccount = new Map<string, string[]>();
  for (const { accountId, keyHash } of written) byAccount.set(accountId, [...(byAccount.get(accountId) ?? []), keyHash]);
  for (const [accountId, keyHashes] of byAccount) {
    const result = await table.update('catchUpKeys', {
      Key: keys.account(accountId),
      ...buildUpdate({ add: { newKeys: new Set(keyHashes), keyRegistrations: keyHashes.length }, condition: (e) => `attribute_exists(${e.name('pk')})` }),
      ReturnValues: 'ALL_NEW',
    });
    const revision = Number((result.Attributes as Partial<AccountItem> | undefined)?.promptsRevision ?? 0);
    if (revision > 0) await raiseKeyRevisions(table, keyHashes, revision);
  }
}

/** Raises each key to the revision; says the highest revision a key held at or above it, if one did. */
async function raiseKeyRevisions(table: Table, keyHashes: readonly string[], revision: number): Promise<number | undefined> {
  let ahead: number | undefined;
  await inBatches(keyHashes, async (keyHash) => {
    const held = await raiseKeyRevision(table, keyHash, revision);
    if (held !== undefined && held >= revision) ahead = Math.max(ahead ?? held, held);
  });
  return ahead;
}

/** Says the revision the key already held when it was not lower (undefined when raised, or when the key is gone). */
async function raiseKeyRevision(table: Table, keyHash: string, revision: number): Promise<number | undefined> {
  return table
    .update(
      'raiseKeyRevision',
      {
        Key: keys.apiKey(keyHash),
        ...buildUpdate({
          set: { promptsRevision: revision },
          condition: (e) =>
            `attribute_exists(${e.name('pk')}) AND (attribute_not_exists(${e.name('promptsRevision')}) OR ${e.name('promptsRevision')} < ${e.value(revision)})`,
        }),
      },
      // A higher revision is there already (a later change got there first, or the key is ahead of its
      // account), or the key is gone.
      async () => (await table.get<ApiKeyItem>('raiseKeyRevision', keys.apiKey(keyHash)))?.promptsRevision,
    )
    .then((result) => (typeof result === 'number' ? result : undefined));
}
