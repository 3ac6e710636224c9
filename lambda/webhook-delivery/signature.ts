import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Signatures per the Standard Webhooks specification (https://www.standardwebhooks.com/, docs/events.md
 * "Verifying a delivery"): `v1,` and the base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`, keyed by the bytes the
 * secret's base64 (after `whsec_`) stands for. The receiver holds the same secret and computes the same thing.
 */

export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;
const VERSION = 'v1';
/** As the specification's reference verifiers: a delivery older or newer than this is refused (a replay). */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

export class SignatureError extends Error {
  override readonly name = 'SignatureError';
}

/** A new signing secret: `whsec_` and the base64 of 32 random bytes. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The key bytes a secret stands for; without the prefix, as the reference libraries also take it. */
function keyOf(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  // Buffer.from skips what is not base64, so an empty or mangled secret would otherwise key an HMAC with nothing.
  if (key.length === 0) throw new SignatureError('a signing secret must hold base64 after whsec_');
  return key;
}

export interface SignedContent {
  /** The `webhook-id`: the event id, the same on every attempt. */
  readonly id: string;
  /** The `webhook-timestamp`, Unix seconds. */
  readonly timestamp: number;
  /** The body exactly as sent. */
  readonly body: string;
}

/** The timestamp as its header spells it: a receiver signs the text it was sent, not a number it parsed. */
function digest(key: Buffer, id: string, timestamp: string, body: string): Buffer {
  return createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest();
}

/** The `webhook-signature` value: one `v1,<base64>` per secret, space-separated (two during a rotation). */
export function sign(content: SignedContent, secrets: readonly string[]): string {
  if (secrets.length === 0) throw new SignatureError('a delivery is signed with at least one secret');
  return secrets.map((secret) => `${VERSION},${digest(keyOf(secret), content.id, String(content.timestamp), content.body).toString('base64')}`).join(' ');
}

export interface VerifyInput {
  readonly id: string | undefined;
  readonly timestamp: string | undefined;
  readonly signature: string | undefined;
  readonly body: string;
}

/**
 * What a receiver does (tests and docs use it): the timestamp within 5 minutes of `now`, and one of the
 * header's `v1` signatures equal, compared in constant time, to the one computed with `secret`. Throws
 * SignatureError saying which check failed.
 */
export function verify(input: VerifyInput, secret: string, now: Date = new Date()): void {
  if (!input.id || !input.timestamp || !input.signature) throw new SignatureError('missing webhook-id, webhook-timestamp or webhook-signature');
  if (!/^\d+$/.test(input.timestamp)) throw new SignatureError('webhook-timestamp is not Unix seconds');
  if (Math.abs(now.getTime() / 1000 - Number(input.timestamp)) > TIMESTAMP_TOLERANCE_SECONDS) throw new SignatureError('webhook-timestamp is too far from now');
  const expected = digest(keyOf(secret), input.id, input.timestamp, input.body);
  const matches = input.signature.split(' ').some((entry) => {
    const [version, encoded] = entry.split(',', 2);
    if (version !== VERSION || !encoded) return false;
    const given = Buffer.from(encoded, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new SignatureError('no signature matches');
}
