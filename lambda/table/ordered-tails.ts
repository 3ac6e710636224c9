import { randomInt } from 'node:crypto';

/** Room above a transaction's random tail to count up in: at most one key per write of it (100). */
const TAIL_ROOM = 256;

/**
 * The random tails of the keys one transaction adds under one instant (its audit entries, its events): a random
 * start, then one more each, so that they sort in the order the change made them (a push: created, then
 * published, then the label moved; a rollout's completion, then the label's move).
 */
export function orderedTails(): (index: number) => string {
  const start = randomInt(0, 2 ** 32 - TAIL_ROOM);
  return (index) => (start + index).toString(16).padStart(8, '0');
}
