import type { MiddlewareObj } from '@middy/core';
import type { KeyStore } from '../data/store';
import { hashApiKey, isWellFormedApiKey } from '../domain/api-key';
import { monthlyLimitFor } from '../domain/plans';
import { invalidApiKey, invalidAuthorizationFormat, missingAuthorization } from '../http/api-error';
import type { ApiEvent, ApiResult } from '../http/http-event';
import type { ApiContext, Principal } from './api-context';

/** The scheme is case-insensitive (RFC 9110); whatever follows it is the key, well formed or not. */
const BEARER = /^Bearer(?:[ \t]+(.*))?$/i;

/** The key from `Authorization: Bearer <key>`, or the 401 that says what is wrong with the header. */
export function bearerKeyOf(header: string | undefined): string {
  if (header === undefined || header.trim() === '') throw missingAuthorization();
  const match = BEARER.exec(header.trim());
  const key = match?.[1]?.trim();
  if (!key) throw invalidAuthorizationFormat();
  return key;
}

export async function resolvePrincipal(store: KeyStore, apiKey: string): Promise<Principal> {
  if (!isWellFormedApiKey(apiKey)) throw invalidApiKey();
  const keyHash = hashApiKey(apiKey);
  const key = await store.findApiKey(keyHash);
  if (!key || key.status !== 'active') throw invalidApiKey();
  const account = await store.findAccount(key.accountId);
  // A key whose account is gone is as dead as a revoked one.
  if (!account) throw invalidApiKey();
  return {
    keyId: key.keyId,
    keyHash,
    accountId: key.accountId,
    monthlyLimit: monthlyLimitFor(account.plan, key.monthlyLimit),
  };
}

export const authenticate = (store: KeyStore): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  before: async (request) => {
    const header = request.context.httpRequest?.headers.authorization;
    request.context.principal = await resolvePrincipal(store, bearerKeyOf(header));
  },
});
