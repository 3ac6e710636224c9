import type { AccountItem, ApiKeyItem, WithKeys } from '../data/table-items';
import { ADMIN_INDEX, adminIndexKeys, keys } from '../data/table-schema';
import { inBatches } from './batch-io';
import { keyHashOf, limitInForce } from './items';
import type { AdminTable } from './table';

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

/** A new revision on the account item, then copied to each of its keys (which only ever take a higher one). */
export async function bumpPromptsRevision(table: AdminTable, accountId: string): Promise<void> {
  const result = await table.update('bumpPromptsRevision', {
    Key: keys.account(accountId),
    UpdateExpression: 'ADD #revision :one',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeNames: { '#revision': 'promptsRevision' },
    ExpressionAttributeValues: { ':one': 1 },
    ReturnValues: 'UPDATED_NEW',
  });
  const revision = Number(result.Attributes?.promptsRevision);
  const keysOf = await indexedKeysOf(table, 'bumpPromptsRevision', accountId);
  await inBatches(keysOf, (item) => raiseKeyRevision(table, keyHashOf(item), revision));
}

/** Keys written after a prompt was deleted take the account's revision too, or they would see older copies. */
export async function catchUpKeys(
  table: AdminTable,
  written: readonly { accountId: string; keyHash: string }[],
): Promise<void> {
  const revisions = new Map<string, number>();
  for (const { accountId } of written) {
    if (revisions.has(accountId)) continue;
    const account = await table.get<AccountItem>('catchUpKeys', keys.account(accountId));
    revisions.set(accountId, Number(account?.promptsRevision ?? 0));
  }
  await inBatches(written, async ({ accountId, keyHash }) => {
    const revision = revisions.get(accountId) ?? 0;
    if (revision > 0) await raiseKeyRevision(table, keyHash, revision);
  });
}

async function raiseKeyRevision(table: AdminTable, keyHash: string, revision: number): Promise<void> {
  await table.update(
    'raiseKeyRevision',
    {
      Key: keys.apiKey(keyHash),
      UpdateExpression: 'SET #revision = :revision',
      ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#revision) OR #revision < :revision)',
      ExpressionAttributeNames: { '#revision': 'promptsRevision' },
      ExpressionAttributeValues: { ':revision': revision },
    },
    // A higher revision is there already (a later delete got there first), or the key is gone.
    () => undefined,
  );
}
