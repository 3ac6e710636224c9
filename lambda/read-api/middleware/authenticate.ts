import type { MiddlewareObj } from '@middy/core';
import { hashApiKey, isWellFormedApiKey, keyIdFromHash } from '../../domain/api-key';
import { invalidApiKey, invalidAuthorizationFormat, missingAuthorization } from '../../http/api-error';
import type { ApiEvent, ApiResult } from '../../http/http-event';
import type { ApiContext } from '../api-context';

/** The scheme is case-insensitive (RFC 9110); whatever follows it is the key, well formed or not. */
const BEARER = /^Bearer(?:[ \t]+(.*))?$/i;

/**
 * The key from the one `Authorization: Bearer <key>` header, or the 401 that says what is wrong with it.
 * More than one is refused whatever they hold (RFC 9110 allows one): parties that read different ones
 * (a proxy the first, the service the last) must never disagree on who is asking.
 */
export function bearerKeyOf(headers: readonly string[]): string {
  if (headers.length > 1) throw invalidAuthorizationFormat();
  const header = headers[0];
  if (header === undefined || header.trim() === '') throw missingAuthorization();
  const match = BEARER.exec(header.trim());
  const key = match?.[1]?.trim();
  if (!key) throw invalidAuthorizationFormat();
  return key;
}

/**
 * Reads the presented key and keeps only its hash. Whether the key is valid is the store's answer,
 * given together with the quota (see quota.ts); a malformed key never reaches the store.
 */
export const authenticate = (): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  before: (request) => {
    const apiKey = bearerKeyOf(request.context.httpRequest?.authorization ?? []);
    if (!isWellFormedApiKey(apiKey)) throw invalidApiKey();
    const keyHash = hashApiKey(apiKey);
    request.context.keyHash = keyHash;
    request.context.keyId = keyIdFromHash(keyHash);
  },
});
