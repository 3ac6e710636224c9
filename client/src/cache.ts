import { type PromptClientError, ServiceUnavailableError } from './errors.js';
import { Lru } from './lru.js';
import type { PromptCopy } from './prompt.js';
import { plainRollout, type RolloutShare, type RolloutSide, rolloutProblem } from './rollout.js';
import { promptProblem, versionKey } from './snapshot.js';
import type { PromptRollout } from './types.js';

/** Latest is the moving target without a label; its key is the label's name space of its own. */
export const LATEST = '';
/** LATEST, or a label. */
export type Target = string;

export type Origin = 'network' | 'snapshot';

/**
 * A copy that can move: the latest version of a prompt, or the version a label points at. Both are
 * cached, revalidated and fallen back on alike; only the request differs.
 */
export interface MovingEntry {
  readonly copy: PromptCopy;
  readonly etag: string | undefined;
  readonly origin: Origin;
  /** Its freshness is the list's: it came with `GET /prompts` (at the same label) and is revalidated with it. */
  readonly viaList: boolean;
  freshUntil: number;
  /** The label's rollout as the answer (or the snapshot) gave it: each subject's side is decided from it. */
  readonly rollout: RolloutShare | undefined;
  /** By version: the copies of the rollout's sides held so far (`copy` is one of them). */
  readonly sides: Map<string, PromptCopy>;
}

export interface PinnedEntry {
  readonly copy: PromptCopy;
  readonly etag: string | undefined;
  readonly origin: Origin;
}

export interface ListState {
  readonly etag: string | undefined;
  readonly ids: readonly string[];
  freshUntil: number;
}

/** What a caller gets from a request: the prompt(s) to return, or the error to throw. */
export type Outcome<T> = { readonly value: T } | { readonly error: PromptClientError };

/** After an outage, a copy is served this long (at most the TTL) before the API is tried again. */
const OUTAGE_RETRY_MS = 5_000;

export interface PromptCacheOptions {
  readonly now: () => number;
  readonly ttlSeconds: number;
  readonly maxCachedVersions: number;
}

/**
 * What the client holds: the copies of its three caches (latest and labelled prompts, pinned versions,
 * lists), kept together because a prompt that is gone leaves all three at once, and how long a copy stays
 * fresh. When to ask the API, and what each answer does to these, the caches themselves say.
 */
export class PromptCache {
  readonly now: () => number;
  readonly #ttlMs: number;
  /** By target (LATEST or a label), then by promptId. */
  readonly #moving = new Map<Target, Map<string, MovingEntry>>();
  readonly #pinned: Lru<PinnedEntry>;
  /** By target: the whole list (`GET /prompts`), or the list at a label. */
  readonly #lists = new Map<Target, ListState>();

  constructor(options: PromptCacheOptions) {
    this.now = options.now;
    this.#ttlMs = options.ttlSeconds * 1000;
    this.#pinned = new Lru(options.maxCachedVersions);
  }

  /** How long an answer is served without asking the API again. */
  get ttlMs(): number {
    return this.#ttlMs;
  }

  outageRetryMs(): number {
    return Math.min(this.#ttlMs, OUTAGE_RETRY_MS);
  }

  // Latest and labelled copies

  entry(target: Target, promptId: string): MovingEntry | undefined {
    return this.#moving.get(target)?.get(promptId);
  }

  setEntry(target: Target, promptId: string, entry: MovingEntry): void {
    let entries = this.#moving.get(target);
    if (!entries) {
      entries = new Map();
      this.#moving.set(target, entries);
    }
    entries.set(promptId, entry);
  }

  /** The prompts held at the target, in the order they were first cached there. */
  promptIdsAt(target: Target): string[] {
    return [...(this.#moving.get(target)?.keys() ?? [])];
  }

  entriesAt(target: Target): [string, MovingEntry][] {
    return [...(this.#moving.get(target) ?? [])];
  }

  /** Every label something was fetched at. */
  labels(): Target[] {
    return [...this.#moving.keys()].filter((target) => target !== LATEST);
  }

  freshUntil(target: Target, entry: MovingEntry): number {
    return entry.viaList ? (this.#lists.get(target)?.freshUntil ?? 0) : entry.freshUntil;
  }

  // Pinned versions

  pinned(promptId: string, version: string): PinnedEntry | undefined {
    return this.#pinned.get(versionKey(promptId, version));
  }

  pin(promptId: string, version: string, entry: PinnedEntry): void {
    this.#pinned.set(versionKey(promptId, version), entry);
  }

  /** A latest (or labelled) copy is also that version's copy: published versions never change. */
  rememberVersion(copy: PromptCopy, etag: string | undefined): void {
    this.pin(copy.data.promptId, copy.data.version, { copy, etag, origin: 'network' });
  }

  pinnedEntries(): PinnedEntry[] {
    return [...this.#pinned.values()];
  }

  // Lists

  list(target: Target): ListState | undefined {
    return this.#lists.get(target);
  }

  setList(target: Target, state: ListState): void {
    this.#lists.set(target, state);
  }

  // Forgetting

  /** The prompt is gone (404 NOT_FOUND, or missing from the list): every copy of it goes too, at every label. */
  forget(promptId: string): void {
    for (const target of this.#moving.keys()) this.forgetAt(target, promptId);
    const prefix = versionKey(promptId, '');
    this.#pinned.deleteWhere((key) => key.startsWith(prefix));
  }

  /** The prompt no longer carries the label (or is gone): its copy at the label goes. */
  forgetAt(target: Target, promptId: string): void {
    this.#moving.get(target)?.delete(promptId);
    const state = this.#lists.get(target);
    if (state) this.#lists.set(target, { ...state, ids: state.ids.filter((id) => id !== promptId) });
  }
}

/** Requests under way, by what they fetch: concurrent callers share one. */
export class Inflight<T> {
  readonly #running = new Map<string, Promise<T>>();

  /** Runs the task unless the same one is under way, in which case its result is shared. */
  once(key: string, task: () => Promise<T>): Promise<T> {
    const running = this.#running.get(key);
    if (running) return running;
    const started = task().finally(() => this.#running.delete(key));
    this.#running.set(key, started);
    // Background callers drop the promise; a failure (a bug: outcomes never reject) must not go unhandled.
    started.catch(() => undefined);
    return started;
  }

  running(): Promise<T>[] {
    return [...this.#running.values()];
  }
}

/** A moving entry, with the copies of its rollout's sides that the entry it replaces already held. */
export function movingEntry(
  copy: PromptCopy,
  etag: string | undefined,
  origin: Origin,
  viaList: boolean,
  freshUntil: number,
  rollout: RolloutShare | undefined,
  previous: MovingEntry | undefined,
): MovingEntry {
  const sides = new Map<string, PromptCopy>();
  if (rollout) {
    for (const version of [rollout.from, rollout.to]) {
      const held = copy.data.version === version ? copy : previous?.sides.get(version);
      if (held) sides.set(version, held);
    }
  }
  return { copy, etag, origin, viaList, freshUntil, rollout, sides };
}

/** The entry's own copy as a side of its rollout, if it has one. */
export function rolloutOf(entry: MovingEntry): PromptRollout | undefined {
  return entry.rollout === undefined ? undefined : { ...entry.rollout, side: sideOf(entry.rollout, entry.copy.data.version) };
}

export function sideOf(rollout: RolloutShare, version: string): RolloutSide {
  return version === rollout.to ? 'to' : 'from';
}

export function unwrap<T>(outcome: Outcome<T>): T {
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

// Reading an answer's body

/** A prompt, and at a label its rollout (when it has one) with the version served being one of its sides. */
export function answerProblem(value: unknown, target: Target): string | undefined {
  const problem = promptProblem(value);
  if (problem !== undefined || target === LATEST) return problem;
  const { rollout, version } = value as { rollout?: unknown; version: string };
  if (rollout === undefined || rollout === null) return undefined;
  const wrong = rolloutProblem(rollout);
  if (wrong !== undefined) return `rollout${wrong.startsWith('must') ? ': ' : '.'}${wrong}`;
  const { from, to } = rollout as RolloutShare;
  return version === from || version === to ? undefined : 'rollout: the version served must be its from or its to';
}

/** The rollout of an answer answerProblem accepted; latest never rolls out. */
export function rolloutIn(value: unknown, target: Target): RolloutShare | undefined {
  const { rollout } = value as { rollout?: RolloutShare | null };
  return target === LATEST || rollout === undefined || rollout === null ? undefined : plainRollout(rollout);
}

export function unreadable(path: string, problem: string): ServiceUnavailableError {
  return new ServiceUnavailableError(`GET ${path}: the answer is not a prompt the client can read (${problem})`);
}
