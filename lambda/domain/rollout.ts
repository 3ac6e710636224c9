/**
 * A rollout moves one label of one prompt from the version it points at (`from`) to another (`to`) for a
 * share of subjects (docs/rollouts.md). Which side a subject gets is the bucket rule (rollout-bucket.ts). This
 * module imports nothing, so the management API's contracts, which the dashboard shares, can use its rules.
 */

/** `ro_`, the instant it started (UTC, digits only: sorts by time), `_` and 8 hex digits. */
export const ROLLOUT_ID_PATTERN = /^ro_\d{17}_[0-9a-f]{8}$/;

export type RolloutSide = 'from' | 'to';

export type RolloutState = 'active' | 'completed' | 'aborted';

/** One scheduled share: `afterMinutes` after the rollout started, its share becomes `percent`. */
export interface RolloutStep {
  readonly percent: number;
  readonly afterMinutes: number;
}

/** What a reader needs to pick a side: the rollout's id (the bucket's salt) and the share that gets `to`. */
export interface RolloutShare {
  readonly rolloutId: string;
  readonly percent: number;
}

/** The most steps a rollout may schedule, and the latest a step may come (a week). */
export const MAX_ROLLOUT_STEPS = 10;
export const MAX_STEP_MINUTES = 7 * 24 * 60;

/** 0 to 100 with at most two decimals: `12.5` and `33.33` are shares, `33.333` and `-1` are not. */
export function isValidPercent(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 100 && Math.abs(Math.round(value * 100) - value * 100) < 1e-6;
}

export const PERCENT_RULE = 'a number from 0 to 100 with at most two decimals';

/** The request header that names the subject (a user or session id); never stored or logged. */
export const SUBJECT_HEADER = 'x-prompt-subject';
/** The response header every answer at a rolling-out label carries: the rollout's id. */
export const ROLLOUT_HEADER = 'X-Prompt-Rollout';
/** A subject longer than this is refused (400): a user or session id, not a document. */
export const MAX_SUBJECT_LENGTH = 256;
