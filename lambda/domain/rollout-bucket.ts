import { createHash } from 'node:crypto';
import type { RolloutShare, RolloutSide } from './rollout';

/**
 * Which side of a rollout a subject gets: the bucket rule, the same in every process, client and language
 * (client/src/rollout.ts and client-python's rollout.py implement it too, and test/client/bucket-agreement.test.ts
 * holds all three to each other). Apart from rollout.ts because it hashes with Node's crypto.
 */

/**
 * The subject's bucket in [0, 100): the first 4 bytes of SHA-256(`<rolloutId>:<subject>`) as an unsigned
 * big-endian integer, over 2^32, times 100. Salted by the rollout so that one subject's side in one rollout
 * says nothing of its side in the next.
 */
export function bucketOf(rolloutId: string, subject: string): number {
  const digest = createHash('sha256').update(`${rolloutId}:${subject}`, 'utf8').digest();
  return (digest.readUInt32BE(0) / 2 ** 32) * 100;
}

/**
 * The side a subject gets: `to` when its bucket is below the share. Without a subject the side is drawn at
 * random with the same odds (`random` returns a number in [0, 1), as Math.random does).
 */
export function sideFor(share: RolloutShare, subject: string | undefined, random: () => number = Math.random): RolloutSide {
  const bucket = subject === undefined ? random() * 100 : bucketOf(share.rolloutId, subject);
  return bucket < share.percent ? 'to' : 'from';
}
