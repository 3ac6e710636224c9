import { type MovingEntry, type Outcome, type PromptCache, sideOf, type Target } from './cache.js';
import { ServiceUnavailableError } from './errors.js';
import type { SnapshotFallback } from './fallback.js';
import type { Http } from './http.js';
import type { PinnedVersions } from './pinned.js';
import type { PromptCopy } from './prompt.js';
import { sideFor } from './rollout.js';
import { versionKey } from './snapshot.js';
import type { ClientPrompt, PromptSource } from './types.js';

/**
 * Rollouts: the side each subject gets at a label that rolls out, decided from the cache by the bucket
 * rule (rollout.ts) so that a call answered from memory gives a subject the side the API would. Both
 * sides are pinned versions: the one not held is fetched once, then kept on the label's entry.
 */
export class RolloutSides {
  readonly #cache: PromptCache;
  readonly #http: Http;
  readonly #snapshot: SnapshotFallback;
  readonly #pinned: PinnedVersions;
  /** By version key: a side that could not be fetched is not asked for again before this time. */
  readonly #retryAt = new Map<string, number>();

  constructor(cache: PromptCache, http: Http, snapshot: SnapshotFallback, pinned: PinnedVersions) {
    this.#cache = cache;
    this.#http = http;
    this.#snapshot = snapshot;
    this.#pinned = pinned;
  }

  /** A view from a request or a fallback, made the side this caller's subject gets when its label rolls out. */
  async decided(promptId: string, target: Target, subject: string | undefined, view: ClientPrompt): Promise<ClientPrompt> {
    if (view.rollout === undefined) return view;
    const entry = this.#cache.entry(target, promptId);
    return entry?.rollout === undefined ? view : this.decide(promptId, target, entry, subject, view.source);
  }

  /**
   * What a subject gets from an entry: its copy, or at a rolling-out label the side the bucket rule picks,
   * from memory when that side is held. The other side is a pinned version: fetched once, then kept.
   */
  async decide(promptId: string, target: Target, entry: MovingEntry, subject: string | undefined, source: PromptSource): Promise<ClientPrompt> {
    const rollout = entry.rollout;
    if (rollout === undefined) return entry.copy.view(source);
    const side = sideFor(rollout, subject);
    const held = this.#sideCopy(promptId, entry, rollout[side]);
    if (held) return held.view(held === entry.copy || entry.origin === 'snapshot' ? source : 'cache', { ...rollout, side });
    const key = versionKey(promptId, rollout[side]);
    if ((this.#retryAt.get(key) ?? 0) <= this.#cache.now()) {
      const fetched = await this.#fetchSide(promptId, target, rollout[side]);
      if ('value' in fetched) return fetched.value.copy.view(fetched.value.source, { ...rollout, side });
      // The key refused, or the prompt gone, is said as any call would say it; an outage or the quota is not.
      if (fetched.error.code === 'UNAUTHORIZED' || fetched.error.code === 'NOT_FOUND') throw fetched.error;
    }
    // That side cannot be had just now and no snapshot holds it: the side held is served, and says which it is.
    return entry.copy.view(source, { ...rollout, side: sideOf(rollout, entry.copy.data.version) });
  }

  #sideCopy(promptId: string, entry: MovingEntry, version: string): PromptCopy | undefined {
    const held = entry.sides.get(version);
    if (held) return held;
    const found = this.#cache.pinned(promptId, version)?.copy ?? this.#snapshot.version(promptId, version);
    if (found) entry.sides.set(version, found);
    return found;
  }

  /** One side as a pinned version (shared with any request for it under way), kept on the label's entry. */
  async #fetchSide(promptId: string, target: Target, version: string): Promise<Outcome<{ copy: PromptCopy; source: PromptSource }>> {
    const key = versionKey(promptId, version);
    const outcome = this.#http.blocked(this.#cache.now())
      ? this.#pinned.fallback(promptId, version, this.#http.blockedError)
      : await this.#pinned.load(promptId, version);
    const copy = 'error' in outcome ? undefined : (this.#cache.pinned(promptId, version)?.copy ?? this.#snapshot.version(promptId, version));
    if (!copy) {
      this.#retryAt.set(key, this.#cache.now() + this.#cache.outageRetryMs());
      return { error: 'error' in outcome ? outcome.error : new ServiceUnavailableError(`prompt ${promptId} ${version}: no copy to serve`) };
    }
    this.#retryAt.delete(key);
    const current = this.#cache.entry(target, promptId);
    if (current?.rollout && (current.rollout.from === version || current.rollout.to === version)) current.sides.set(version, copy);
    return { value: { copy, source: 'value' in outcome ? outcome.value.source : 'cache' } };
  }

  /** A rollout some subjects get each side of: the side not held is fetched now, in the background. */
  prefetch(promptId: string, target: Target, entry: MovingEntry): void {
    const rollout = entry.rollout;
    if (rollout === undefined || rollout.percent <= 0 || rollout.percent >= 100) return;
    for (const version of [rollout.from, rollout.to]) {
      if (!this.#sideCopy(promptId, entry, version)) void this.#fetchSide(promptId, target, version);
    }
  }

  /** Both sides of every rollout at the label held (as far as the API can be reached). */
  async complete(target: Target): Promise<void> {
    const fetches: Promise<unknown>[] = [];
    for (const [promptId, entry] of this.#cache.entriesAt(target)) {
      const rollout = entry.rollout;
      if (rollout === undefined) continue;
      for (const version of [rollout.from, rollout.to]) {
        if (!this.#sideCopy(promptId, entry, version)) fetches.push(this.#fetchSide(promptId, target, version));
      }
    }
    await Promise.all(fetches);
  }
}
