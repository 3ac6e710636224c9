/**
 * What a run may be asked and what it answers (docs/runs.md "Runs"), as words and numbers with no I/O: the run
 * operation applies them, the run routes' contracts say them, and the dashboard shows them.
 */

export const PROVIDERS = ['bedrock', 'openai', 'local'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** Why a model stopped writing, in Converse's words (an OpenAI-compatible endpoint's `finish_reason` is mapped onto them). */
export const STOP_REASONS = ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'content_filtered', 'guardrail_intervened', 'other'] as const;
export type StopReason = (typeof STOP_REASONS)[number];

/** What a model did to a run that failed: 502, 503 and 504. */
export const MODEL_ERROR_CODES = ['MODEL_ERROR', 'MODEL_THROTTLED', 'MODEL_TIMEOUT'] as const;
export type ModelErrorCode = (typeof MODEL_ERROR_CODES)[number];

export const DEFAULT_MAX_TOKENS = 1_024;
export const MAX_TOKENS = 8_192;
export const MAX_STOP_SEQUENCES = 4;
export const MAX_STOP_LENGTH = 100;

/** The most variables a run takes, and the longest value: far past any prompt's, short of a body a function refuses. */
export const MAX_RUN_VARIABLES = 200;
export const MAX_VARIABLE_LENGTH = 100_000;

/** A run's id: `run_`, the instant it started (to the millisecond, so ids sort by time), and eight hex digits. */
export const RUN_ID_PATTERN = /^run_\d{8}T\d{9}Z_[0-9a-f]{8}$/;
