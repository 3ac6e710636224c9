import { createHash, randomBytes } from 'node:crypto';

/** Recognisable in logs, code and secret scanners; what follows it is 256 random bits. */
export const API_KEY_PREFIX = 'prs_';
const RANDOM_BYTES = 32;

/** RFC 6750 b64token, bounded so a huge header is refused before any hashing or lookup. */
const WELL_FORMED_KEY = /^[A-Za-z0-9\-._~+/]{16,256}=*$/;

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(RANDOM_BYTES).toString('base64url');
}

export function isWellFormedApiKey(key: string): boolean {
  return WELL_FORMED_KEY.test(key);
}

/** The only form of a key that is ever stored or looked up. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A public name for a key, safe for logs and listings: it reveals nothing of the key itself. */
export function keyIdFromHash(keyHash: string): string {
  return `key_${keyHash.slice(0, 16)}`;
}

/** What a listing says of a key's state, at `now`: an active key past its expiry is `expired`. */
export function keyState<Status extends string>(key: { status: Status; expiresAt?: number }, now: Date): Status | 'expired' {
  if (key.status === 'active' && key.expiresAt !== undefined && key.expiresAt <= now.getTime()) return 'expired';
  return key.status;
}
