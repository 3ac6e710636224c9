import type { AccountItem, ApiKeyItem, WithKeys } from '../../table/item-types';
import { ADMIN_INDEX, adminIndexKeys, keys, usageAttribute } from '../../table/schema';
import { getAccountSettings, requireAccount } from '../accounts/accounts';
import { ConflictError, NotFoundError } from '../../table/errors';
import { type AdminApiKey, apiKeyItem, keyHashOf, limitInForce, toApiKey, withFreshDayCounters } from '../../table/item-builders';
import { indexedKeysOf } from '../../table/propagation';
import type { Table } from '../../table/table';
import type { TransactionWrite } from '../../table/transaction';
import { buildUpdate, type ExpressionNames } from '../../table/update-expression';
import type { PlannedChange } from '../planned-change';

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

/**
 * A new key, at its account's prompt revision and registered on the account item (`newKeys`, and counted in
 * `keyRegistrations`, which the end of a rollout holds still: served-counts.ts) in the same transaction,
 * conditional on that revision being unchanged (propagation.ts says why): a change that raced it makes it read again.
 */
export async function planCreateApiKey(table: Table, key: NewApiKey): Promise<PlannedChange<AdminApiKey>> {
  const account = await requireAccountItem(table, key.accountId);
  const record = newKeyRecord(table, key, account.plan);
  return {
    writes: newKeyWrites(table, key.keyHash, record, account),
    result: record,
    refused: (error) => (error.failedAt(0) ? new ConflictError(`API key ${key.keyId} already exists`) : 'again'),
  };
}

/** The account item itself, with its prompt revision, read strongly consistent. */
async function requireAccountItem(table: Table, accountId: string): Promise<AccountItem> {
  const item = await table.get<AccountItem>('requireAccount', keys.account(accountId));
  if (!item) throw new NotFoundError(`account ${accountId} does not exist`);
  return item;
}

/** A key's item and its registration on the account, as two writes of one transaction. */
function newKeyWrites(table: Table, keyHash: string, record: AdminApiKey, account: Pick<AccountItem, 'promptsRevision'>): TransactionWrite[] {
  const revision = account.promptsRevision;
  const item = { ...withFreshDayCounters(apiKeyItem(keyHash, record), table.timestamp()), ...(revision === undefined ? {} : { promptsRevision: revision }) };
  return [
    { Put: { Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
    {
      Update: {
        Key: keys.account(record.accountId),
        ...buildUpdate({
          add: { newKeys: new Set([keyHash]), keyRegistrations: 1 },
          condition: (e) =>
            `attribute_exists(${e.name('pk')}) AND ${
              revision === undefined ? `attribute_not_exists(${e.name('promptsRevision')})` : `${e.name('promptsRevision')} = ${e.value(revision)}`
            }`,
        }),
      },
    },
  ];
}

/** For bulk paths (the tests' fixtures): a key revoked by its hash, without an audit entry of its own. */
export async function revokeApiKey(table: Table, keyHash: string): Promise<void> {
  const item = await table.get<ApiKeyItem>('revokeApiKey', keys.apiKey(keyHash));
  if (!item) throw new NotFoundError('No such API key');
  await table.transact('revokeApiKey', revocation(table, keyHash, toApiKey(item)).writes);
}

/**
 * Every key of the account, ordered by key id; never the key, which is not stored. The index finds
 * them; their items give what the index does not project (scope, expiry).
 */
export async function listApiKeys(table: Table, accountId: string): Promise<AdminApiKey[]> {
  await requireAccount(table, accountId);
  const indexed = await indexedKeysOf(table, 'listApiKeys', accountId);
  const items = await table.batchGet<WithKeys<ApiKeyItem>>(indexed.map((item) => keys.apiKey(keyHashOf(item))));
  const byHash = new Map(items.map((item) => [keyHashOf(item), item]));
  return indexed.map((item) => toApiKey(byHash.get(keyHashOf(item)) ?? item));
}

/** Scope, expiry, disabled or enabled: applies from the key's next request. A revoked key stays as it is. */
export async function planUpdateApiKey(table: Table, accountId: string, keyId: string, change: ApiKeyChange): Promise<PlannedChange<AdminApiKey>> {
  const { keyHash, key } = await requireApiKey(table, accountId, keyId);
  return { ...keyChange(keyHash, key, change, accountId), refused: () => revokedError(accountId, keyId) };
}

function keyChange(keyHash: string, stored: AdminApiKey, change: ApiKeyChange, accountId: string): { writes: TransactionWrite[]; result: AdminApiKey } {
  const scope = change.scope === undefined || change.scope === null ? change.scope : [...change.scope];
  // The limit in force follows the key's own limit, else its plan's.
  const own = change.monthlyLimit === undefined ? undefined : (change.monthlyLimit ?? undefined);
  const set: Record<string, unknown> = {
    ...(scope ? { scope } : {}),
    ...(typeof change.expiresAt === 'number' ? { expiresAt: change.expiresAt } : {}),
    ...(change.name === undefined ? {} : { name: change.name }),
    ...(own === undefined ? {} : { monthlyLimit: own }),
    ...(change.monthlyLimit === undefined ? {} : { limit: limitInForce(stored.plan, own) }),
    ...(change.enabled === undefined ? {} : { status: change.enabled ? 'active' : 'disabled' }),
  };
  const remove = [
    ...(change.scope === null ? ['scope'] : []),
    ...(change.expiresAt === null ? ['expiresAt'] : []),
    ...(change.monthlyLimit === null ? ['monthlyLimit'] : []),
  ];
  const { scope: _scope, expiresAt: _expiresAt, monthlyLimit: _limit, ...kept } = stored;
  const result: AdminApiKey = {
    ...kept,
    ...(remove.includes('scope') ? {} : scope ? { scope } : stored.scope ? { scope: stored.scope } : {}),
    ...(remove.includes('expiresAt')
      ? {}
      : typeof change.expiresAt === 'number'
        ? { expiresAt: change.expiresAt }
        : stored.expiresAt === undefined
          ? {}
          : { expiresAt: stored.expiresAt }),
    ...(remove.includes('monthlyLimit')
      ? {}
      : own !== undefined
        ? { monthlyLimit: own }
        : stored.monthlyLimit === undefined
          ? {}
          : { monthlyLimit: stored.monthlyLimit }),
    ...(change.name === undefined ? {} : { name: change.name }),
    ...(change.enabled === undefined ? {} : { status: change.enabled ? 'active' : 'disabled' }),
  };
  if (Object.keys(set).length + remove.length === 0) return { writes: [], result: stored };
  return {
    writes: [
      {
        Update: {
          Key: keys.apiKey(keyHash),
          ...buildUpdate({ set, remove, condition: (e) => `attribute_exists(${e.name('pk')}) AND ${e.name('status')} <> ${e.value('revoked')}` }),
        },
      },
    ],
    result: { ...result, accountId },
  };
}

const revokedError = (accountId: string, keyId: string) => new ConflictError(`API key ${keyId} of account ${accountId} is revoked, and revocation is final`);

/**
 * A new key for the same account, with the same limit and scope (and a count of its own, as every
 * key has); the old key keeps working for `graceMs`, then expires (an earlier expiry it had stays).
 * A grace of 0 revokes it at once. One transaction: the new key, its registration and the old key's end.
 */
export async function planRotateApiKey(
  table: Table,
  accountId: string,
  keyId: string,
  replacement: Pick<NewApiKey, 'keyHash' | 'keyId' | 'displayPrefix' | 'createdBy'>,
  graceMs: number,
): Promise<PlannedChange<{ created: AdminApiKey; retired: AdminApiKey }>> {
  const [{ keyHash: oldHash, key: old }, account] = await Promise.all([requireApiKey(table, accountId, keyId), requireAccountItem(table, accountId)]);
  if (old.status === 'revoked') throw new ConflictError(`API key ${keyId} of account ${accountId} is revoked: create a new key instead`);
  const created = newKeyRecord(
    table,
    {
      ...replacement,
      accountId,
      ...(old.monthlyLimit === undefined ? {} : { monthlyLimit: old.monthlyLimit }),
      ...(old.scope === undefined ? {} : { scope: old.scope }),
      ...(old.name === undefined ? {} : { name: old.name }),
    },
    account.plan,
  );
  const retirement =
    graceMs === 0
      ? revocation(table, oldHash, old)
      : keyChange(oldHash, old, { expiresAt: Math.min(table.now().getTime() + graceMs, old.expiresAt ?? Number.POSITIVE_INFINITY) }, accountId);
  return {
    writes: [...newKeyWrites(table, replacement.keyHash, created, account), ...retirement.writes],
    result: { created, retired: retirement.result },
    after: { newKeyId: created.keyId, name: created.name ?? null, graceMs },
    refused: (error) => (error.failedAt(0) ? new ConflictError(`API key ${replacement.keyId} already exists`) : 'again'),
  };
}

function revocation(table: Table, keyHash: string, key: AdminApiKey): { writes: TransactionWrite[]; result: AdminApiKey } {
  const at = table.timestamp();
  return {
    writes: [
      {
        Update: {
          Key: keys.apiKey(keyHash),
          ...buildUpdate({
            // A key revoked before keeps the time it was first revoked.
            set: { status: 'revoked', revokedAt: (e: ExpressionNames) => `if_not_exists(${e.name('revokedAt')}, ${e.value(at)})` },
            condition: (e) => `attribute_exists(${e.name('pk')})`,
          }),
        },
      },
    ],
    result: { ...key, status: 'revoked', revokedAt: key.revokedAt ?? at },
  };
}

/** Revokes by the key's public id. Revoking twice is not an error: the key stays revoked. */
export async function planRevokeApiKeyById(
  table: Table,
  accountId: string,
  keyId: string,
): Promise<PlannedChange<{ key: AdminApiKey; alreadyRevoked: boolean }>> {
  const { keyHash, key } = await requireApiKey(table, accountId, keyId);
  const after = { status: 'revoked', name: key.name ?? null };
  if (key.status === 'revoked') return { writes: [], result: { key, alreadyRevoked: true }, after };
  const { writes, result } = revocation(table, keyHash, key);
  return { writes, result: { key: result, alreadyRevoked: false }, after };
}

/** The key's count for the month: the counter on its item. */
export async function usage(table: Table, keyHash: string, month: string): Promise<number> {
  const item = await table.get<ApiKeyItem>('usage', keys.apiKey(keyHash));
  return Number(item?.[usageAttribute(month) as `used#${string}`] ?? 0);
}

export async function keyUsage(table: Table, accountId: string, keyId: string, month: string): Promise<KeyUsage> {
  const account = await requireAccount(table, accountId);
  const { keyHash, key } = await requireApiKey(table, accountId, keyId);
  return { key, plan: account.plan, month, used: await usage(table, keyHash, month) };
}

/** Key items hold the usage counters too: a key is written field by field, never replaced whole. */
export async function upsertApiKey(table: Table, item: WithKeys<ApiKeyItem>): Promise<void> {
  const fields = Object.fromEntries(Object.entries(item).filter(([name]) => name !== 'pk' && name !== 'sk'));
  await table.update('upsertApiKey', { Key: { pk: String(item.pk), sk: String(item.sk) }, ...buildUpdate({ set: fields }) });
}

export function newKeyRecord(table: Table, key: NewApiKey, plan: string): AdminApiKey {
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
async function requireApiKey(table: Table, accountId: string, keyId: string): Promise<{ keyHash: string; key: AdminApiKey }> {
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
export async function listKeyUsage(table: Table, accountId: string, month: string): Promise<KeyMonthUsage[]> {
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

/** The account's plan and the monthly limit it grants a key that sets none of its own. */
export async function planLimitOf(table: Table, accountId: string): Promise<{ plan: string; limit: number }> {
  const { plan } = await getAccountSettings(table, accountId);
  return { plan, limit: limitInForce(plan, undefined) };
}
