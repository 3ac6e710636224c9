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
import type { PromptLists } from './lists.js';
import { PromptCopy } from './prompt.js';
import type { RolloutSides } from './sides.js';
import type { ClientPrompt, PromptData } from './types.js';

/**
 * The copies that can move: each prompt's latest version, and the version each label points at. Only the
 * very first call for one waits for the network; after `ttlSeconds` the copy held is still served while it
 * is revalidated in the background (with its ETag), and it is fallen back on, or the snapshot's, when the
 * API cannot be reached or the quota is used up.
 */
export class MovingCopies {
  readonly #cache: PromptCache;
  readonly #http: Http;
  readonly #snapshot: SnapshotFallback;
  readonly #sides: RolloutSides;
  readonly #lists: PromptLists;
  readonly #requests = new Inflight<Outcome<ClientPrompt>>();

  constructor(cache: PromptCache, http: Http, snapshot: SnapshotFallback, sides: RolloutSides, lists: PromptLists) {
    this.#cache = cache;
    this.#http = http;
    this.#snapshot = snapshot;
    this.#sides = sides;
    this.#lists = lists;
  }

  /** The copy held (revalidated in the background once stale), else one request for it, else the fallback; the side its subject gets. */
  async get(promptId: string, target: Target, subject: string | undefined): Promise<ClientPrompt> {
    const entry = this.#cache.entry(target, promptId);
    if (entry && !this.#http.unauthorized) {
      const now = this.#cache.now();
      if (now >= this.#cache.freshUntil(target, entry) && !this.#http.blocked(now)) {
        if (entry.viaList) this.#lists.revalidate(target);
        else void this.#requests.once(movingRequestKey(target, promptId), () => this.#load(promptId, target, subject));
      }
      return this.#sides.decide(promptId, target, entry, subject, entry.origin === 'snapshot' ? 'snapshot' : 'cache');
    }
    if (!this.#http.unauthorized && this.#http.blocked(this.#cache.now())) {
      return this.#sides.decided(promptId, target, subject, unwrap(this.#fallback(promptId, target, this.#http.blockedError)));
    }
    const view = unwrap(await this.#requests.once(movingRequestKey(target, promptId), () => this.#load(promptId, target, subject)));
    return this.#sides.decided(promptId, target, subject, view);
  }

  running(): Promise<unknown>[] {
    return this.#requests.running();
  }

  async #load(promptId: string, target: Target, rolloutSubject: string | undefined): Promise<Outcome<ClientPrompt>> {
    const held = this.#cache.entry(target, promptId);
    const path = `/prompts/${encodeURIComponent(promptId)}${target === LATEST ? '' : `?label=${encodeURIComponent(target)}`}`;
    const subject = target === LATEST ? { promptId } : { promptId, label: target };
    const answer = await this.#http.get(path, held?.origin === 'network' ? held.etag : undefined, subject, target === LATEST ? undefined : rolloutSubject);
    const now = this.#cache.now();
    const current = this.#cache.entry(target, promptId);
    switch (answer.kind) {
      case 'ok': {
        const problem = answerProblem(answer.body, target);
        if (problem !== undefined) return this.#fallback(promptId, target, unreadable(path, problem));
        const copy = new PromptCopy(answer.body as PromptData);
        const entry = movingEntry(copy, answer.etag, 'network', false, now + this.#cache.ttlMs, rolloutIn(answer.body, target), current);
        this.#cache.setEntry(target, promptId, entry);
        this.#cache.rememberVersion(copy, answer.etag);
        this.#sides.prefetch(promptId, target, entry);
        return { value: copy.view('network', rolloutOf(entry)) };
      }
      case 'not-modified':
        // Only the copy whose tag was sent is confirmed; a newer one may have arrived meanwhile.
        if (current && current === held) current.freshUntil = now + this.#cache.ttlMs;
        return current ? { value: current.copy.view('cache', rolloutOf(current)) } : this.#fallback(promptId, target, undefined);
      case 'refused':
        if (answer.error.code === 'NOT_FOUND') this.#cache.forget(promptId);
        // The label was removed: the prompt and its other labels stand.
        if (answer.error.code === 'LABEL_NOT_FOUND') this.#cache.forgetAt(target, promptId);
        if (answer.error.code === 'USAGE_LIMIT_EXCEEDED' || answer.error.status === 429) {
          return this.#fallback(promptId, target, answer.error);
        }
        return { error: answer.error };
      case 'outage':
        if (current && !current.viaList) current.freshUntil = now + this.#cache.outageRetryMs();
        return this.#fallback(promptId, target, answer.error);
    }
  }

  /** The cached copy, else the snapshot's, else the error. */
  #fallback(promptId: string, target: Target, error: PromptClientError | undefined): Outcome<ClientPrompt> {
    if (this.#http.unauthorized) return { error: this.#http.unauthorized };
    const entry = this.#cache.entry(target, promptId);
    if (entry) return { value: entry.copy.view(entry.origin === 'snapshot' ? 'snapshot' : 'cache', rolloutOf(entry)) };
    const copy = this.#snapshot.copy(promptId, target);
    if (copy) {
      const rollout = this.#snapshot.rollout(target, promptId);
      const fallback = movingEntry(copy, undefined, 'snapshot', false, this.#cache.now() + this.#cache.outageRetryMs(), rollout, undefined);
      this.#cache.setEntry(target, promptId, fallback);
      return { value: copy.view('snapshot', rolloutOf(fallback)) };
    }
    const what = target === LATEST ? `prompt ${promptId}` : `prompt ${promptId} at label ${target}`;
    return { error: error ?? new ServiceUnavailableError(`${what}: no copy to serve`) };
  }
}

const movingRequestKey = (target: Target, promptId: string) => (target === LATEST ? `latest:${promptId}` : `label:${target}:${promptId}`);
