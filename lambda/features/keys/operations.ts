import { generateApiKey, hashApiKey, keyIdFromHash } from '../../domain/api-key';
import { commitUnaudited } from '../../operations/commit';
import type { OperationContext } from '../../operations/context';
import type { AdminApiKey } from '../../table/item-builders';
import type { Table } from '../../table/table';
import { type ApiKeyChange, type NewApiKey, planCreateApiKey, planRevokeApiKeyById, planRotateApiKey, planUpdateApiKey } from './keys';

/** Enough of a key to recognise it in a listing (`prs_` and four more), nothing to use it with. */
const DISPLAY_PREFIX_LENGTH = 8;

/** An account's API keys (`ops.keys`): the key itself is returned to the caller once and goes nowhere else (not the audit log). */
export class KeyOperations {
  constructor(private readonly context: OperationContext) {}

  create(
    accountId: string,
    settings: { name: string; monthlyLimit?: number; scope?: string[]; expiresAt?: number },
  ): Promise<{ key: AdminApiKey; apiKey: string }> {
    const apiKey = generateApiKey();
    const keyHash = hashApiKey(apiKey);
    return this.context.audited({ accountId, action: 'key.create', target: { name: settings.name }, requested: requestedKeySettings(settings) }, async () => {
      const planned = await planCreateApiKey(this.context.table, {
        keyHash,
        keyId: keyIdFromHash(keyHash),
        accountId,
        displayPrefix: apiKey.slice(0, DISPLAY_PREFIX_LENGTH),
        createdBy: this.context.by,
        ...settings,
      });
      return { ...planned, result: { key: planned.result, apiKey }, after: publicKeyFields(planned.result) };
    });
  }

  update(accountId: string, keyId: string, change: ApiKeyChange): Promise<AdminApiKey> {
    return this.context.audited({ accountId, action: 'key.update', target: { keyId }, requested: requestedKeySettings(change) }, async () => {
      const planned = await planUpdateApiKey(this.context.table, accountId, keyId, change);
      return { ...planned, after: publicKeyFields(planned.result) };
    });
  }

  rotate(accountId: string, keyId: string, graceMs: number): Promise<{ created: AdminApiKey; retired: AdminApiKey; apiKey: string }> {
    const apiKey = generateApiKey();
    const keyHash = hashApiKey(apiKey);
    return this.context.audited({ accountId, action: 'key.rotate', target: { keyId }, requested: { graceSeconds: graceMs / 1000 } }, async () => {
      const planned = await planRotateApiKey(
        this.context.table,
        accountId,
        keyId,
        { keyHash, keyId: keyIdFromHash(keyHash), displayPrefix: apiKey.slice(0, DISPLAY_PREFIX_LENGTH), createdBy: this.context.by },
        graceMs,
      );
      return { ...planned, result: { ...planned.result, apiKey } };
    });
  }

  revoke(accountId: string, keyId: string): Promise<{ key: AdminApiKey; alreadyRevoked: boolean }> {
    return this.context.audited({ accountId, action: 'key.revoke', target: { keyId } }, () => planRevokeApiKeyById(this.context.table, accountId, keyId));
  }
}

/** A key's settings as a person asks for them (the management API's words: an ISO expiry, `disabled`), never the key. */
function requestedKeySettings(change: ApiKeyChange): Record<string, unknown> {
  const { enabled, expiresAt, ...rest } = change;
  return {
    ...rest,
    ...(expiresAt === undefined ? {} : { expiresAt: expiresAt === null ? null : new Date(expiresAt).toISOString() }),
    ...(enabled === undefined ? {} : { disabled: !enabled }),
  };
}

/** What the audit log may say of a key: its settings, never the key. */
function publicKeyFields(key: AdminApiKey): Record<string, unknown> {
  const { keyId, name, status, monthlyLimit, scope, expiresAt, displayPrefix } = key;
  return { keyId, name, status, monthlyLimit, scope, expiresAt, displayPrefix };
}

/** For bulk paths (the CLI's imports, the tests' fixtures): a key written without an audit entry of its own. */
export function createApiKey(table: Table, key: NewApiKey): Promise<AdminApiKey> {
  return commitUnaudited(table, 'createApiKey', () => planCreateApiKey(table, key));
}

/** For bulk paths: a key revoked without an audit entry of its own. */
export async function revokeApiKeyById(table: Table, accountId: string, keyId: string): Promise<{ key: AdminApiKey; alreadyRevoked: boolean }> {
  return commitUnaudited(table, 'revokeApiKey', () => planRevokeApiKeyById(table, accountId, keyId));
}

/** For bulk paths (the tests' fixtures): a key changed without an audit entry of its own. */
export function updateApiKey(table: Table, accountId: string, keyId: string, change: ApiKeyChange): Promise<AdminApiKey> {
  return commitUnaudited(table, 'updateApiKey', () => planUpdateApiKey(table, accountId, keyId, change));
}

/** For bulk paths (the tests' fixtures): a key rotated without an audit entry of its own. */
export function rotateApiKey(
  table: Table,
  accountId: string,
  keyId: string,
  replacement: Pick<NewApiKey, 'keyHash' | 'keyId' | 'displayPrefix' | 'createdBy'>,
  graceMs: number,
): Promise<{ created: AdminApiKey; retired: AdminApiKey }> {
  return commitUnaudited(table, 'rotateApiKey', () => planRotateApiKey(table, accountId, keyId, replacement, graceMs));
}
