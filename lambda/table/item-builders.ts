import { createHash } from 'node:crypto';
import { toStoredContent } from './stored-content';
import type { AccountItem, ApiKeyItem, PromptVersionItem, WithKeys } from './item-types';
import { adminIndexKeys, keys, usageAttribute } from './schema';
import { canonicalJson } from '../domain/canonical-json';
import { type PromptContent, toConfigBody } from '../domain/prompt';
import { isPlan, monthlyLimitFor } from '../domain/plans';

/**
 * The operator tools' side of the stored items (lambda/table/item-types.ts): items built whole for a
 * write, and read back as operators see them.
 */

/**
 * An account and a key as operators see them: their items without what only the API's bookkeeping
 * reads (the prompt revision copies, a key's monthly counters and its limit in force, which commands
 * work out from the plan and the key's own limit). Commands print exactly these fields.
 */
export type AdminAccount = Pick<AccountItem, 'accountId' | 'name' | 'plan' | 'createdAt'>;
export type AdminApiKey = Pick<
  ApiKeyItem,
  'keyId' | 'accountId' | 'plan' | 'displayPrefix' | 'status' | 'monthlyLimit' | 'scope' | 'expiresAt' | 'createdAt' | 'revokedAt' | 'name' | 'createdBy'
>;

export function accountItem(accountId: string, name: string, plan: string, createdAt: string): WithKeys<AccountItem> {
  return {
    ...keys.account(accountId),
    ...adminIndexKeys.account(accountId),
    type: 'account',
    accountId,
    name,
    plan,
    createdAt,
  };
}

/** What the API enforces for a key: its own limit, else its plan's (an unknown plan admits nothing). */
export function limitInForce(plan: string, monthlyLimit: number | undefined): number {
  return isPlan(plan) ? monthlyLimitFor(plan, monthlyLimit) : (monthlyLimit ?? 0);
}

export function apiKeyItem(keyHash: string, key: AdminApiKey): WithKeys<ApiKeyItem> {
  return {
    ...keys.apiKey(keyHash),
    ...adminIndexKeys.apiKey(key.accountId, key.keyId),
    type: 'apiKey',
    keyId: key.keyId,
    accountId: key.accountId,
    plan: key.plan,
    limit: limitInForce(key.plan, key.monthlyLimit),
    status: key.status,
    ...(key.displayPrefix === undefined ? {} : { displayPrefix: key.displayPrefix }),
    ...(key.monthlyLimit === undefined ? {} : { monthlyLimit: key.monthlyLimit }),
    ...(key.scope === undefined ? {} : { scope: key.scope }),
    ...(key.expiresAt === undefined ? {} : { expiresAt: key.expiresAt }),
    ...(key.createdAt === undefined ? {} : { createdAt: key.createdAt }),
    ...(key.revokedAt === undefined ? {} : { revokedAt: key.revokedAt }),
    ...(key.name === undefined ? {} : { name: key.name }),
    ...(key.createdBy === undefined ? {} : { createdBy: key.createdBy }),
  };
}

/**
 * A new key starts with this month's (empty) day counters, so its first requests are counted by the
 * one ordinary write and not by the month's first-request path (docs/data-model.md). Only ever for a
 * key item written for the first time: anything else would reset the counts.
 */
export function withFreshDayCounters(item: WithKeys<ApiKeyItem>, now: string): WithKeys<ApiKeyItem> {
  const month = now.slice(0, 7);
  // The month's counter with them: wherever `daysMonth` is this month, the month's counter exists.
  return { ...item, daysMonth: month, days: {}, [usageAttribute(month)]: 0 };
}

export function versionItem(accountId: string, promptId: string, version: PromptContent & { published: boolean }): WithKeys<PromptVersionItem> {
  return {
    ...keys.promptVersion(accountId, promptId, version.version),
    type: 'promptVersion',
    promptId,
    ...toStoredContent(version),
    published: version.published,
    etag: contentEtag(version),
  };
}

/** A version's strong ETag (without its quotes): the SHA-256 of its canonical content, cut to 32 hex digits. */
export function contentEtag(version: PromptContent): string {
  return createHash('sha256')
    .update(canonicalJson(contentOf(version)))
    .digest('hex')
    .slice(0, 32);
}

/** A version's content and nothing else, its config with the defaults filled in. */
export function contentOf(version: PromptContent): PromptContent {
  return {
    version: version.version,
    systemMessage: version.systemMessage,
    userMessage: version.userMessage,
    config: toConfigBody(version.config),
  };
}

export function toAccount(item: AccountItem): AdminAccount {
  return {
    accountId: String(item.accountId),
    name: String(item.name),
    plan: String(item.plan),
    ...(typeof item.createdAt === 'string' ? { createdAt: item.createdAt } : {}),
  };
}

export function toApiKey(item: ApiKeyItem): AdminApiKey {
  return {
    keyId: String(item.keyId),
    accountId: String(item.accountId),
    plan: String(item.plan),
    status: item.status === 'active' || item.status === 'disabled' ? item.status : 'revoked',
    ...(typeof item.displayPrefix === 'string' ? { displayPrefix: item.displayPrefix } : {}),
    ...(typeof item.monthlyLimit === 'number' ? { monthlyLimit: item.monthlyLimit } : {}),
    ...(Array.isArray(item.scope) ? { scope: item.scope.map(String) } : {}),
    ...(typeof item.expiresAt === 'number' ? { expiresAt: item.expiresAt } : {}),
    ...(typeof item.createdAt === 'string' ? { createdAt: item.createdAt } : {}),
    ...(typeof item.revokedAt === 'string' ? { revokedAt: item.revokedAt } : {}),
    ...(typeof item.name === 'string' ? { name: item.name } : {}),
    ...(typeof item.createdBy === 'string' ? { createdBy: item.createdBy } : {}),
  };
}

const API_KEY_PK_PREFIX = keys.apiKey('').pk;

/** Key items are keyed by the key's hash; it is the only form of the key the store holds. */
export function keyHashOf(item: { pk: string }): string {
  return String(item.pk).slice(API_KEY_PK_PREFIX.length);
}
