import type { ApiKeyItem, WithKeys } from './item-types';
import { ADMIN_INDEX, adminIndexKeys, keys, usageAttribute } from './schema';
import { requireAccount } from './accounts';
import { ConflictError, NotFoundError } from './errors';
import { type AdminApiKey, apiKeyItem, keyHashOf, limitInForce, toApiKey, withFreshDayCounters } from './item-builders';
import { catchUpKeys, indexedKeysOf } from './propagation';
import type { AdminTable } from './admin-table';

export interface NewApiKey {
  keyHash: string;
  keyId: string;
  accountId: string;
  /** What a listing may show of the key: its recognisable prefix and first characters, never the key. */
  displayPrefix: string;
  monthlyLimit?: number;
  revoked?: boolean;
  scope?: readonly string[];
  /** Epoch milliseconds. */
  expiresAt?: number;
  name?: string;
  /** `user:<userId>` or `cli:<operator>`. */
  createdBy?: string;
}

/** What `keys set` and the management API change; `null` clears a scope, an expiry or an own limit. */
export interface ApiKeyChange {
  scope?: readonly string[] | null;
  expiresAt?: number | null;
  enabled?: boolean;
  name?: string;
  monthlyLimit?: number | null;
}

export interface KeyUsage {
  key: AdminApiKey;
  /** As stored; the caller checks it is a known plan. */
  plan: string;
  month: string;
  used: number;
}

export async function createApiKey(table: AdminTable, key: NewApiKey): Promise<AdminApiKey> {
  const account = await requireAccount(table, key.accountId);
  const record = newKeyRecord(table, key, account.plan);
  await table.put(
    'createApiKey',
    { Item: withFreshDayCounters(apiKeyItem(key.keyHash, record), table.timestamp()), ConditionExpression: 'attribute_not_exists(pk)' },
    () => {
      throw new ConflictError(`API key ${key.keyId} already exists`);
    },
  );
  await catchUpKeys(table, [key]);
  return record;
}

/**
 * Every key of the account, ordered by key id; never the key, which is not stored. The index finds
 * them; their items give what the index does not project (scope, expiry).
 */
export async function listApiKeys(table: AdminTable, accountId: string): Promise<AdminApiKey[]> {
  await requireAccount(table, accountId);
  const indexed = await indexedKeysOf(table, 'listApiKeys', accountId);
  const items = await table.batchGet<WithKeys<ApiKeyItem>>(indexed.map((item) => keys.apiKey(keyHashOf(item))));
  const byHash = new Map(items.map((item) => [keyHashOf(item), item]));
  return indexed.map((item) => toApiKey(byHash.get(keyHashOf(item)) ?? item));
}

/** Scope, expiry, disabled or enabled: applies from the key's next request. A revoked key stays as it is. */
export async function updateApiKey(
  table: AdminTable,
  accountId: string,
  keyId: string,
  change: ApiKeyChange,
): Promise<AdminApiKey> {
  const { keyHash, key: stored } = await requireApiKey(table, accountId, keyId);
  const sets: string[] = [];
  const removes: string[] = [];
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = { ':revoked': 'revoked' };
  const field = (name: 'scope' | 'expiresAt', value: unknown) => {
    if (value === undefined) return;
    names[`#${name}`] = name;
    if (value === null) removes.push(`#${name}`);
    else {
      sets.push(`#${name} = :${name}`);
      values[`:${name}`] = value;
    }
  };
  field('scope', change.scope === undefined || change.scope === null ? change.scope : [...change.scope]);
  field('expiresAt', change.expiresAt);
  if (change.name !== undefined) {
    names['#name'] = 'name';
    sets.push('#name = :name');
    values[':name'] = change.name;
  }
  if (change.monthlyLimit !== undefined) {
    // The limit in force follows the key's own limit, else its plan's.
    const own = change.monthlyLimit ?? undefined;
    names['#monthlyLimit'] = 'monthlyLimit';
    names['#limit'] = 'limit';
    if (own === undefined) removes.push('#monthlyLimit');
    else {
      sets.push('#monthlyLimit = :monthlyLimit');
      values[':monthlyLimit'] = own;
    }
    sets.push('#limit = :limit');
    values[':limit'] = limitInForce(stored.plan, own);
  }
  if (change.enabled !== undefined) {
    sets.push('#status = :status');
    values[':status'] = change.enabled ? 'active' : 'disabled';
  }
  if (sets.length + removes.length === 0) return (await requireApiKey(table, accountId, keyId)).key;
  const result = await table.update(
    'updateApiKey',
    {
      Key: keys.apiKey(keyHash),
      UpdateExpression: [sets.length > 0 ? `SET ${sets.join(', ')}` : '', removes.length > 0 ? `REMOVE ${removes.join(', ')}` : '']
        .join(' ')
        .trim(),
      ConditionExpression: 'attribute_exists(pk) AND #status <> :revoked',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    },
    () => {
      throw new ConflictError(`API key ${keyId} of account ${accountId} is revoked, and revocation is final`);
    },
  );
  return toApiKey((result.Attributes ?? {}) as ApiKeyItem);
}

/**
 * A new key for the same account, with the same limit and scope (and a count of its own, as every
 * key has); the old key keeps working for `graceMs`, then expires (an earlier expiry it had stays).
 * A grace of 0 revokes it at once.
 */
export async function rotateApiKey(
  table: AdminTable,
  accountId: string,
  keyId: string,
  replacement: Pick<NewApiKey, 'keyHash' | 'keyId' | 'displayPrefix' | 'createdBy'>,
  graceMs: number,
): Promise<{ created: AdminApiKey; retired: AdminApiKey }> {
  const { key: old } = await requireApiKey(table, accountId, keyId);
  if (old.status === 'revoked') {
    throw new ConflictError(`API key ${keyId} of account ${accountId} is revoked: create a new key instead`);
  }
  const created = await createApiKey(table, {
    ...replacement,
    accountId,
    ...(old.monthlyLimit === undefined ? {} : { monthlyLimit: old.monthlyLimit }),
    ...(old.scope === undefined ? {} : { scope: old.scope }),
    ...(old.name === undefined ? {} : { name: old.name }),
  });
  if (graceMs === 0) {
    const { key } = await revokeApiKeyById(table, accountId, keyId);
    return { created, retired: { ...key, status: 'revoked' } };
  }
  const expiresAt = Math.min(table.now().getTime() + graceMs, old.expiresAt ?? Number.POSITIVE_INFINITY);
  return { created, retired: await updateApiKey(table, accountId, keyId, { expiresAt }) };
}

export async function revokeApiKey(table: AdminTable, keyHash: string): Promise<void> {
  await table.update(
    'revokeApiKey',
    {
      Key: keys.apiKey(keyHash),
      UpdateExpression: 'SET #status = :revoked, revokedAt = if_not_exists(revokedAt, :at)',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':revoked': 'revoked', ':at': table.timestamp() },
    },
    () => {
      throw new NotFoundError('No such API key');
    },
  );
}

/** Revokes by the key's public id. Revoking twice is not an error: the key stays revoked. */
export async function revokeApiKeyById(
  table: AdminTable,
  accountId: string,
  keyId: string,
): Promise<{ key: AdminApiKey; alreadyRevoked: boolean }> {
  const { keyHash, key } = await requireApiKey(table, accountId, keyId);
  if (key.status === 'revoked') return { key, alreadyRevoked: true };
  await revokeApiKey(table, keyHash);
  return { key: { ...key, status: 'revoked', revokedAt: table.timestamp() }, alreadyRevoked: false };
}

/** The key's count for the month: the counter on its item. */
export async function usage(table: AdminTable, keyHash: string, month: string): Promise<number> {
  const item = await table.get<ApiKeyItem>('usage', keys.apiKey(keyHash));
  return Number(item?.[usageAttribute(month) as `used#${string}`] ?? 0);
}

export async function keyUsage(table: AdminTable, accountId: string, keyId: string, month: string): Promise<KeyUsage> {
  const account = await requireAccount(table, accountId);
  const { keyHash, key } = await requireApiKey(table, accountId, keyId);
  return { key, plan: account.plan, month, used: await usage(table, keyHash, month) };
}

/** Key items hold the usage counters too: a key is written field by field, never replaced whole. */
export async function upsertApiKey(table: AdminTable, item: WithKeys<ApiKeyItem>): Promise<void> {
  const fields = Object.entries(item).filter(([name]) => name !== 'pk' && name !== 'sk');
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets = fields.map(([name, value], index) => {
    names[`#f${index}`] = name;
    values[`:f${index}`] = value;
    return `#f${index} = :f${index}`;
  });
  await table.update('upsertApiKey', {
    Key: { pk: String(item.pk), sk: String(item.sk) },
    UpdateExpression: `SET ${sets.join(', ')}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  });
}

export function newKeyRecord(table: AdminTable, key: NewApiKey, plan: string): AdminApiKey {
  const now = table.timestamp();
  return {
    keyId: key.keyId,
    accountId: key.accountId,
    plan,
    displayPrefix: key.displayPrefix,
    status: key.revoked ? 'revoked' : 'active',
    ...(key.monthlyLimit === undefined ? {} : { monthlyLimit: key.monthlyLimit }),
    ...(key.scope === undefined ? {} : { scope: [...key.scope] }),
    ...(key.expiresAt === undefined ? {} : { expiresAt: key.expiresAt }),
    ...(key.name === undefined ? {} : { name: key.name }),
    ...(key.createdBy === undefined ? {} : { createdBy: key.createdBy }),
    createdAt: now,
    ...(key.revoked ? { revokedAt: now } : {}),
  };
}

/** Finds the key through the admin index, then reads its item for the current status. */
async function requireApiKey(
  table: AdminTable,
  accountId: string,
  keyId: string,
): Promise<{ keyHash: string; key: AdminApiKey }> {
  const [indexed] = await table.query<WithKeys<ApiKeyItem>>('findApiKey', {
    IndexName: ADMIN_INDEX,
    KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk = :sk',
    ExpressionAttributeValues: {
      ':pk': adminIndexKeys.keysOf(accountId),
      ':sk': adminIndexKeys.apiKey(accountId, keyId).gsi1sk,
    },
  });
  if (!indexed) throw new NotFoundError(`account ${accountId} has no API key ${keyId}`);
  const keyHash = keyHashOf(indexed);
  const item = await table.get<ApiKeyItem>('findApiKey', keys.apiKey(keyHash));
  if (!item) throw new NotFoundError(`account ${accountId} has no API key ${keyId}`);
  return { keyHash, key: toApiKey(item) };
}

/** A key's count for one month, in all and per UTC day (days are kept for this month and the one before). */
export interface KeyMonthUsage {
  key: AdminApiKey;
  /** The limit in force now. */
  limit: number;
  used: number;
  /** Count per day `01`-`31` of the month; null when the month is older than the days kept. */
  days: Record<string, number> | null;
}

/** Every key of the account with its usage in `month`: the key items hold it all. */
export async function listKeyUsage(table: AdminTable, accountId: string, month: string): Promise<KeyMonthUsage[]> {
  await requireAccount(table, accountId);
  const indexed = await indexedKeysOf(table, 'listKeyUsage', accountId);
  const items = await table.batchGet<WithKeys<ApiKeyItem>>(indexed.map((item) => keys.apiKey(keyHashOf(item))));
  return items
    .map((item) => ({
      key: toApiKey(item),
      limit: Number(item.limit ?? 0),
      used: Number(item[usageAttribute(month) as `used#${string}`] ?? 0),
      days: item.daysMonth === month ? { ...item.days } : item.prevDaysMonth === month ? { ...item.prevDays } : null,
    }))
    .sort((a, b) => (a.key.keyId < b.key.keyId ? -1 : a.key.keyId > b.key.keyId ? 1 : 0));
}
