import {
  answerProblem,
  Inflight,
  LATEST,
  movingEntry,
  type Outcome,
  type PromptCache,
  rolloutIn,
  rolloutOf,
  type Target,
  unreadable,
  unwrap,
} from './cache.js';
import { type PromptClientError, ServiceUnavailableError } from './errors.js';
import type { SnapshotFallback } from './fallback.js';
import type { Http } from './http.js';
import { PromptCopy } from './prompt.js';
import type { RolloutSides } from './sides.js';
import type { ClientPrompt, PromptData } from './types.js';

/**
 * Whole lists (`list()`, `preload()`): every prompt at its latest version, or every prompt at a label, in
 * one request that fills the cache for each of them. Their entries are then fresh, and revalidated, with
 * the list; what a new list no longer has goes from the cache.
 */
export class PromptLists {
  readonly #cache: PromptCache;
  readonly #http: Http;
  readonly #snapshot: SnapshotFallback;
  readonly #sides: RolloutSides;
  readonly #requests = new Inflight<Outcome<ClientPrompt[]>>();

  constructor(cache: PromptCache, http: Http, snapshot: SnapshotFallback, sides: RolloutSides) {
    this.#cache = cache;
    this.#http = http;
    this.#snapshot = snapshot;
    this.#sides = sides;
  }

  /** The list held (revalidated in the background once stale), else one request for it, else the fallback. */
  async get(target: Target, subject: string | undefined): Promise<ClientPrompt[]> {
    const state = this.#cache.list(target);
    if (state && !this.#http.unauthorized) {
      const now = this.#cache.now();
      if (now >= state.freshUntil && !this.#http.blocked(now)) this.revalidate(target);
      return this.#views(target, state.ids, 'cache');
    }
    if (!this.#http.unauthorized && this.#http.blocked(this.#cache.now())) return unwrap(this.#fallback(target, this.#http.blockedError));
    return unwrap(await this.#requests.once(target, () => this.#load(target, subject)));
  }

  /** The list asked for again in the background (unless already asked), with every entry that came with it. */
  revalidate(target: Target): void {
    void this.#requests.once(target, () => this.#load(target));
  }

  running(): Promise<unknown>[] {
    return this.#requests.running();
  }

  async #load(target: Target, rolloutSubject?: string): Promise<Outcome<ClientPrompt[]>> {
    const held = this.#cache.list(target);
    const path = target === LATEST ? '/prompts' : `/prompts?label=${encodeURIComponent(target)}`;
    const answer = await this.#http.get(path, held?.etag, target === LATEST ? {} : { label: target }, target === LATEST ? undefined : rolloutSubject);
    const now = this.#cache.now();
    switch (answer.kind) {
      case 'ok': {
        if (!Array.isArray(answer.body)) return this.#fallback(target, unreadable(path, 'must be an array'));
        const problem = answer.body.map((item: unknown) => answerProblem(item, target)).find((found) => found !== undefined);
        if (problem !== undefined) return this.#fallback(target, unreadable(path, problem));
        const bodies: unknown[] = answer.body;
        const copies = bodies.map((prompt) => new PromptCopy(prompt as PromptData));
        const ids = copies.map((copy) => copy.data.promptId);
        // Whatever the list no longer has is deleted or unpublished (or, at a label, no longer carries
        // it): no copy of it may outlive that.
        const listed = new Set(ids);
        for (const promptId of this.#cache.promptIdsAt(target)) {
          if (listed.has(promptId)) continue;
          if (target === LATEST) this.#cache.forget(promptId);
          else this.#cache.forgetAt(target, promptId);
        }
        copies.forEach((copy, index) => {
          const promptId = copy.data.promptId;
          const entry = movingEntry(copy, undefined, 'network', true, 0, rolloutIn(bodies[index], target), this.#cache.entry(target, promptId));
          this.#cache.setEntry(target, promptId, entry);
          this.#cache.rememberVersion(copy, undefined);
          this.#sides.prefetch(promptId, target, entry);
        });
        this.#cache.setList(target, { etag: answer.etag, ids, freshUntil: now + this.#cache.ttlMs });
        return { value: this.#views(target, ids, 'network') };
      }
      case 'not-modified': {
        const state = this.#cache.list(target);
        if (state && state === held) state.freshUntil = now + this.#cache.ttlMs;
        return state ? { value: this.#views(target, state.ids, 'cache') } : this.#fallback(target, undefined);
      }
      case 'refused':
        if (answer.error.code === 'USAGE_LIMIT_EXCEEDED' || answer.error.status === 429) return this.#fallback(target, answer.error);
        return { error: answer.error };
      case 'outage': {
        const state = this.#cache.list(target);
        if (state) state.freshUntil = now + this.#cache.outageRetryMs();
        return this.#fallback(target, answer.error);
      }
    }
  }

  /** The cached list, else every cached prompt with the snapshot's for the others, else the error. */
  #fallback(target: Target, error: PromptClientError | undefined): Outcome<ClientPrompt[]> {
    if (this.#http.unauthorized) return { error: this.#http.unauthorized };
    const state = this.#cache.list(target);
    if (state) return { value: this.#views(target, state.ids, 'cache') };
    const fromSnapshot = this.#snapshot.promptIds(target);
    if (fromSnapshot.length === 0) {
      const what = target === LATEST ? 'the prompt list' : `the prompt list at label ${target}`;
      return { error: error ?? new ServiceUnavailableError(`${what}: no copy to serve`) };
    }
    const retryAt = this.#cache.now() + this.#cache.outageRetryMs();
    for (const promptId of fromSnapshot) {
      const copy = this.#snapshot.copy(promptId, target);
      if (copy && !this.#cache.entry(target, promptId)) {
        this.#cache.setEntry(target, promptId, movingEntry(copy, undefined, 'snapshot', true, 0, this.#snapshot.rollout(target, promptId), undefined));
      }
    }
    const ids = this.#cache.promptIdsAt(target).sort();
    this.#cache.setList(target, { etag: undefined, ids, freshUntil: retryAt });
    return { value: this.#views(target, ids, 'cache') };
  }

  #views(target: Target, ids: readonly string[], fresh: 'network' | 'cache'): ClientPrompt[] {
    const views: ClientPrompt[] = [];
    for (const promptId of ids) {
      const entry = this.#cache.entry(target, promptId);
      if (entry) views.push(entry.copy.view(entry.origin === 'snapshot' ? 'snapshot' : fresh, rolloutOf(entry)));
    }
    return views;
  }
}
