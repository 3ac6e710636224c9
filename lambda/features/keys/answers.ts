import { keyState } from '../../domain/api-key';
import type { AdminApiKey } from '../../table/item-builders';

/** A key as people see it: never the key itself, which is not stored anywhere. */
export function keyAnswer(key: AdminApiKey, now: Date, extra: { limit?: number; usedThisMonth?: number } = {}) {
  return {
    keyId: key.keyId,
    name: key.name ?? null,
    displayPrefix: key.displayPrefix ?? null,
    state: keyState(key, now),
    ...(extra.limit === undefined ? {} : { limit: extra.limit }),
    monthlyLimit: key.monthlyLimit ?? null,
    scope: key.scope ?? null,
    expiresAt: key.expiresAt === undefined ? null : new Date(key.expiresAt).toISOString(),
    createdAt: key.createdAt ?? null,
    createdBy: key.createdBy ?? null,
    ...(extra.usedThisMonth === undefined ? {} : { usedThisMonth: extra.usedThisMonth }),
  };
}
