/**
 * The rollout bucket rule (docs/rollouts.md), exactly as the server's lambda/domain/rollout-bucket.ts applies it,
 * so that a subject gets the same side from the service, from this client's cache and from the Python
 * client (test/client/bucket-agreement.test.ts holds the three to each other).
 *
 * SHA-256 is written out here rather than taken from the runtime: this entry runs in browsers, edge
 * runtimes and Node alike with no Node module, and WebCrypto's `crypto.subtle` is asynchronous (in Node a
 * thread-pool round trip per digest) and absent from pages not served over HTTPS. A decision from the cache
 * is then one synchronous hash of a few dozen bytes, wherever the client runs.
 */

export type RolloutSide = 'from' | 'to';

/** What the API says of a label's rollout in each answer at the label: enough to pick any subject's side. */
export interface RolloutShare {
  readonly rolloutId: string;
  /** The share of subjects that get `to`, 0 to 100. */
  readonly percent: number;
  /** The version the label points at, served to the rest. */
  readonly from: string;
  /** The version the label moves to. */
  readonly to: string;
}

/** The request header that names the subject (a user or session id). */
export const SUBJECT_HEADER = 'x-prompt-subject';
/** The API refuses a longer subject (400). */
export const MAX_SUBJECT_LENGTH = 256;

/**
 * The subject's bucket in [0, 100): the first 4 bytes of SHA-256(`<rolloutId>:<subject>`, UTF-8) as an
 * unsigned big-endian integer, over 2^32, times 100.
 */
export function bucketOf(rolloutId: string, subject: string): number {
  const digest = sha256(new TextEncoder().encode(`${rolloutId}:${subject}`));
  return ((digest[0] ?? 0) / 2 ** 32) * 100;
}

/** `to` when the subject's bucket is below the share; without a subject, drawn with the same odds. */
export function sideFor(share: Pick<RolloutShare, 'rolloutId' | 'percent'>, subject: string | undefined, random: () => number = Math.random): RolloutSide {
  const bucket = subject === undefined ? random() * 100 : bucketOf(share.rolloutId, subject);
  return bucket < share.percent ? 'to' : 'from';
}

/** Reads the `rollout` field of an answer (or a snapshot's); undefined, or what does not fit, by field. */
export function rolloutProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'must be an object';
  const { rolloutId, percent, from, to } = value as Record<string, unknown>;
  if (typeof rolloutId !== 'string' || rolloutId === '') return 'rolloutId: must be a string';
  if (typeof percent !== 'number' || !(percent >= 0 && percent <= 100)) return 'percent: must be a number from 0 to 100';
  if (typeof from !== 'string' || typeof to !== 'string') return 'from and to: must be versions';
  return undefined;
}

/** Only the rollout's own fields: nothing else of an answer travels into a cache or a snapshot. */
export function plainRollout(value: RolloutShare): RolloutShare {
  const { rolloutId, percent, from, to } = value;
  return { rolloutId, percent, from, to };
}

// SHA-256, FIPS 180-4.

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74,
  0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d,
  0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e,
  0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
  0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** The digest as eight big-endian 32-bit words. */
export function sha256(message: Uint8Array): Uint32Array {
  // The message, a 1 bit, zeros, and its length in bits as a 64-bit big-endian number: whole 64-byte blocks.
  const blocks = Math.ceil((message.length + 9) / 64);
  const padded = new Uint8Array(blocks * 64);
  padded.set(message);
  padded[message.length] = 0x80;
  const view = new DataView(padded.buffer);
  const bits = message.length * 8;
  view.setUint32(padded.length - 8, Math.floor(bits / 2 ** 32));
  view.setUint32(padded.length - 4, bits >>> 0);

  const hash = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  for (let block = 0; block < blocks; block += 1) {
    for (let t = 0; t < 16; t += 1) w[t] = view.getUint32(block * 64 + t * 4);
    for (let t = 16; t < 64; t += 1) {
      const a = w[t - 15] ?? 0;
      const b = w[t - 2] ?? 0;
      const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3);
      const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10);
      w[t] = (w[t - 16] ?? 0) + s0 + (w[t - 7] ?? 0) + s1;
    }
    let [a, b, c, d, e, f, g, h] = [hash[0] ?? 0, hash[1] ?? 0, hash[2] ?? 0, hash[3] ?? 0, hash[4] ?? 0, hash[5] ?? 0, hash[6] ?? 0, hash[7] ?? 0];
    for (let t = 0; t < 64; t += 1) {
      const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + (K[t] ?? 0) + (w[t] ?? 0)) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    const sums = [a, b, c, d, e, f, g, h];
    for (let i = 0; i < 8; i += 1) hash[i] = (hash[i] ?? 0) + (sums[i] ?? 0);
  }
  return hash;
}

function rotr(value: number, bits: number): number {
  return (value >>> bits) | (value << (32 - bits));
}
