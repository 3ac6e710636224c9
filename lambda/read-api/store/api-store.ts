import type { Prompt, PromptWithVersions } from '../../domain/prompt';
import type { PromptScope } from '../../domain/prompt-scope';
import type { RolloutShare, RolloutSide } from '../../domain/rollout';
import type { HeldAnswers } from './cached-prompt-store';

/** What the API reads and counts. The DynamoDB implementation is dynamo-store.ts; tests may use others. */

/** An active key, as its item stood right after a unit was taken (or refused). */
export interface AdmittedKey {
  readonly keyId: string;
  readonly accountId: string;
  /** The monthly limit in force: the key's own, else its plan's. */
  readonly limit: number;
  /** This month's count, including the unit just taken when admitted. */
  readonly used: number;
  /**
   * Raised by every change to what the API shows of the account's prompts (publish, label, delete,
   * restore; the writers copy it to every key of the account, as they do the plan): what a container
   * remembers of the account's prompts is valid only while it stays the same.
   */
  readonly promptsRevision: number;
  /** The prompts the key may read; absent for a key that reads its whole account. */
  readonly scope?: PromptScope;
}

/** A change to one served counter of a key (`served#<rolloutId>#<side>`, docs/rollouts.md "Served counts"). */
export interface ServedChange {
  readonly rolloutId: string;
  readonly side: RolloutSide;
  /** +1 for a side answered, -1 for one counted but not answered after all. */
  readonly by: number;
}

/**
 * Served counters to change, and the terms they change on (docs/rollouts.md "Served counts"): only while the key
 * still carries the prompt revision the sides were decided under (an end of a rollout raises every key's revision in
 * its own transaction, so no count decided before it lands after it), and, with `heldAt`, only while no end of their
 * rollouts holds the key's counters at that instant.
 */
export interface ServedCount {
  readonly changes: readonly ServedChange[];
  readonly revision: number;
  /** Epoch milliseconds by the wall clock, compared with each hold's end; absent: a hold does not stop the change. */
  readonly heldAt?: number;
}

/** One request's key check: which key, counted in which month and day, at which instant (a key may expire). */
export interface AdmissionRequest {
  readonly keyHash: string;
  readonly month: string;
  /** The UTC day of the month, `01` to `31`. */
  readonly day: string;
  readonly at: Date;
  /**
   * The rollout sides the request is expected to answer, counted with the unit, on the same condition and on their
   * own terms: when those do not hold, the unit is taken without them (Admission.servedCounted).
   */
  readonly served?: ServedCount;
}

/** What a change of served counters found: made, or refused, with the key as it stands (gone, or its revision and holds). */
export type ServedOutcome =
  | { readonly counted: true }
  | { readonly counted: false; readonly gone: true }
  | {
      readonly counted: false;
      readonly gone: false;
      /** The key's prompt revision now. */
      readonly revision: number;
      /** Until when (wall clock) an end holds one of the counters, when one does at the change's `heldAt`. */
      readonly heldUntil?: number;
    };

/** A key check that counts nothing: which key, whose usage of which month to report, at which instant. */
export type KeyCheckRequest = Pick<AdmissionRequest, 'keyHash' | 'month' | 'at'>;

/** Where a unit was counted: the month's counter and the day's. */
export type UsageSlot = Pick<AdmissionRequest, 'month' | 'day'>;

export type Admission =
  /** `servedCounted`: the request's served changes went in with its unit. */
  | { readonly admitted: true; readonly key: AdmittedKey; readonly servedCounted?: boolean }
  /** Unknown, revoked, disabled and expired keys are indistinguishable to callers. */
  | { readonly admitted: false; readonly reason: 'invalid-key' }
  | { readonly admitted: false; readonly reason: 'limit-reached'; readonly key: AdmittedKey };

/** A label's rollout as a read at the label finds it: its share, and the version it moves to. */
export interface RolloutAtLabel extends RolloutShare {
  readonly to: Prompt;
}

/** A prompt at a label: the version the label points at (`from`), and the label's rollout while it has one. */
export type AtLabel<P extends Prompt> = P & { readonly rollout?: RolloutAtLabel };

export type PromptLookup =
  | { readonly found: true; readonly prompt: Prompt; readonly rollout?: RolloutAtLabel }
  | { readonly found: false; readonly reason: 'prompt-not-found' | 'version-not-found' | 'label-not-found' };

/** Every store call of a request takes its deadline: the call gives up (StoreUnavailableError) when it aborts. */
export type Deadline = AbortSignal;

export interface UsageStore {
  /**
   * Verifies the key and takes one unit of its monthly quota in one atomic step: only an active key
   * under its limit (and not expired at `at`) is counted, so no interleaving of requests can pass the
   * limit. Never sent twice unless the first attempt provably did not reach the store: a request costs
   * at most one unit.
   */
  admit(request: AdmissionRequest, deadline: Deadline): Promise<Admission>;
  /**
   * Verifies the key by the same rule as `admit` (active, not expired at `at`) and counts nothing: for a
   * request that reads no prompt. One strongly consistent read, so a revocation applies from the very next
   * request here too. An active key at its limit is valid: only counting requests are refused for that.
   */
  checkKey(request: KeyCheckRequest, deadline: Deadline): Promise<AdmittedKey | undefined>;
  /**
   * Gives back a unit taken for a request that failed on our side, and the served counts taken with it (on their
   * terms: when those no longer hold, the unit alone); sent again on the same terms as admit.
   */
  returnUsageUnit(keyHash: string, slot: UsageSlot, deadline: Deadline, served?: ServedCount): Promise<void>;
  /**
   * Changes the key's served counters alone, on their terms: for a request whose admission could not tell which
   * side it would answer (nothing in memory to decide from), or told another. Counts nothing on a key that is gone.
   */
  countServed(keyHash: string, served: ServedCount, deadline: Deadline): Promise<ServedOutcome>;
}

/** Whose prompts a request reads, as far as the request knows the account, and until when. */
export interface PromptReader {
  readonly accountId: string;
  /** The account's prompt revision (see AdmittedKey): a copy remembered under another revision is not served. */
  readonly promptsRevision: number;
  /** The key's scope: what the handlers show of the account (see domain/prompt-scope.ts). */
  readonly scope?: PromptScope;
  readonly deadline: Deadline;
  /** The answers the request's admission counted the sides of, which it is answered from under their revision. */
  readonly held?: HeldAnswers;
}

export interface PromptStore {
  /** The prompt at its highest published version. */
  findLatestPrompt(reader: PromptReader, promptId: string): Promise<PromptLookup>;
  findPromptVersion(reader: PromptReader, promptId: string, version: string): Promise<PromptLookup>;
  /** The prompt at the version a label points at (never `latest`: that is findLatestPrompt), and the label's rollout. */
  findLabelledPrompt(reader: PromptReader, promptId: string, label: string): Promise<PromptLookup>;
  /** Every visible prompt of the account, ordered by promptId, however many store pages that takes. */
  listPrompts(reader: PromptReader): Promise<Prompt[]>;
  listPromptsWithVersions(reader: PromptReader): Promise<PromptWithVersions[]>;
  /** Every visible prompt that carries the label, at the labelled version (with the label's rollout), ordered by promptId. */
  listLabelledPrompts(reader: PromptReader, label: string): Promise<AtLabel<Prompt>[]>;
  listLabelledPromptsWithVersions(reader: PromptReader, label: string): Promise<AtLabel<PromptWithVersions>[]>;
}

export type ApiStore = UsageStore & PromptStore;
