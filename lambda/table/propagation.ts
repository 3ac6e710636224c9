import type { AccountItem, ApiKeyItem, WithKeys } from './item-types';
import { ADMIN_INDEX, adminIndexKeys, keys } from './schema';
import { inBatches } from './batch-io';
import { keyHashOf, limitInForce } from './item-builders';
import type { AdminTable } from './admin-table';

/**
 * What every key carries a copy of, so that the API admits a request with one read of the key alone:
 * its account's plan (and the limit in force that follows from it) and its account's prompt revision.
 * Each change to the account is copied to its keys; if that is interrupted, running the change again
 * completes it.
 */

/** The account's keys as the admin index holds them: what operators list, not the usage counters. */
export function indexedKeysOf(table: AdminTable, operation: string, accountId: string): Promise<WithKeys<ApiKeyItem>[]> {
  return table.query(operation, {
    IndexName: ADMIN_INDEX,
    KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
    ExpressionAttributeValues: { ':pk': adminIndexKeys.keysOf(accountId), ':prefix': adminIndexKeys.apiKeyPrefix },
  });
}

export async function copyPlanToKeys(table: AdminTable, accountId: string, plan: string): Promise<void> {
  const indexed = await indexedKeysOf(table, 'copyPlanToKeys', accountId);
  for (const item of indexed) {
    const monthlyLimit = typeof item.monthlyLimit === 'number' ? item.monthlyLimit : undefined;
    const limit = limitInForce(plan, monthlyLimit);
    if (item.plan === plan && item.limit === limit) continue;
    await table.setOnExisting('copyPlanToKeys', keys.apiKey(keyHashOf(item)), { plan, limit });
  }
}

/**
 * A new revision on the account item, then copied to each of its keys (which only ever take a higher one):
 * the keys the admin index lists, and the keys registered on the account item as created recently.
 *
 * Why both: the index is eventually consistent, so a key written just before this change may be missing
 * from it. Every key's writer registers the key on the account item after writing it (catchUpKeys),
 * and both that registration and this raise are single atomic updates of the one account item, so one of
 * them comes first. If the raise comes first, the registration returns the new revision and the writer
 * raises its key itself. If the registration comes first, the raise returns the key among `newKeys` and
 * raises it here, whatever the index says. Either way the key carries the new revision before this change
 * returns, or before the key's creation returns, whichever is later. Registered keys that the index lists
 * are then dropped from `newKeys`, which so only holds keys created since the last raise.
 */
export async function bumpPromptsRevision(table: AdminTable, accountId: string): Promise<void> {
  const result = await table.update('bumpPromptsRevision', {
    Key: keys.account(accountId),
    UpdateExpression: 'ADD #revision :one',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeNames: { '#revision': 'promptsRevision' },
    ExpressionAttributeValues: { ':one': 1 },
    ReturnValues: 'ALL_NEW',
  });
  const account = result.Attributes as Partial<AccountItem> | undefined;
  const revision = Number(account?.promptsRevision);
  const registered = [...(account?.newKeys ?? [])];
  const indexed = (await indexedKeysOf(table, 'bumpPromptsRevision', accountId)).map(keyHashOf);
  const keyHashes = [...new Set([...indexed, ...registered])];
  const ahead = await raiseKeyRevisions(table, keyHashes, revision);
  // A key ahead of its account (an import replaced the account item, and its revision, before imports
  // updated accounts field by field): the account moves past it, or its keys would never change again.
  if (ahead !== undefined) {
    await table.update(
      'bumpPromptsRevision',
      {
        Key: keys.account(accountId),
        UpdateExpression: 'SET #revision = :revision',
        ConditionExpression: '#revision < :revision',
        ExpressionAttributeNames: { '#revision': 'promptsRevision' },
        ExpressionAttributeValues: { ':revision': ahead + 1 },
      },
      () => undefined,
    );
    await raiseKeyRevisions(table, keyHashes, ahead + 1);
  }
  const listed = registered.filter((keyHash) => indexed.includes(keyHash));
  if (listed.length > 0) {
    await table.update('bumpPromptsRevision', {
      Key: keys.account(accountId),
      UpdateExpression: 'DELETE #newKeys :listed',
      ExpressionAttributeNames: { '#newKeys': 'newKeys' },
      ExpressionAttributeValues: { ':listed': new Set(listed) },
    });
  }
}

/**
 * Every written key is registered on its account item (see bumpPromptsRevision), which returns the
 * account's revision read in the same atomic step: the key takes it, or it would see older copies.
 */
export async function catchUpKeys(
  table: AdminTable,
  written: readonly { accountId: string; keyHash: string }[],
): Promise<void> {
  const byAccount = new Map<string, string[]>();
  for (const { accountId, keyHash } of written) byAccount.set(accountId, [...(byAccount.get(accountId) ?? []), keyHash]);
  for (const [accountId, keyHashes] of byAccount) {
    const result = await table.update('catchUpKeys', {
      Key: keys.account(accountId),
      UpdateExpression: 'ADD #newKeys :written',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#newKeys': 'newKeys' },
      ExpressionAttributeValues: { ':written': new Set(keyHashes) },
      ReturnValues: 'ALL_NEW',
    });
    const revision = Number((result.Attributes as Partial<AccountItem> | undefined)?.promptsRevision ?? 0);
    if (revision > 0) await raiseKeyRevisions(table, keyHashes, revision);
  }
}

/** Raises each key to the revision; says the highest revision a key held at or above it, if one did. */
async function raiseKeyRevisions(table: AdminTable, keyHashes: readonly string[], revision: number): Promise<number | undefined> {
  let ahead: number | undefined;
  await inBatches(keyHashes, async (keyHash) => {
    const held = await raiseKeyRevision(table, keyHash, revision);
    if (held !== undefined && held >= revision) ahead = Math.max(ahead ?? held, held);
  });
  return ahead;
}

/** Says the revision the key already held when it was not lower (undefined when raised, or when the key is gone). */
async function raiseKeyRevision(table: AdminTable, keyHash: string, revision: number): Promise<number | undefined> {
  return table.update(
    'raiseKeyRevision',
    {
      Key: keys.apiKey(keyHash),
      UpdateExpression: 'SET #revision = :revision',
      ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#revision) OR #revision < :revision)',
      ExpressionAttributeNames: { '#revision': 'promptsRevision' },
      ExpressionAttributeValues: { ':revision': revision },
    },
    // A higher revision is there already (a later change got there first, or the key is ahead of its
    // account), or the key is gone.
    async () => (await table.get<ApiKeyItem>('raiseKeyRevision', keys.apiKey(keyHash)))?.promptsRevision,
  ).then((result) => (typeof result === 'number' ? result : undefined));
}
