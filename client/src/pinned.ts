import { Inflight, type Outcome, type PromptCache, unreadable, unwrap } from './cache.js';
import { type PromptClientError, ServiceUnavailableError } from './errors.js';
import type { SnapshotFallback } from './fallback.js';
import type { Http } from './http.js';
import { PromptCopy } from './prompt.js';
import { promptProblem, versionKey } from './snapshot.js';
import type { ClientPrompt, PromptData } from './types.js';

/**
 * Pinned versions (`get(id, { version })`): a published version never changes, so it is fetched once and
 * then served from memory for the life of the process (the least recently used go first, past the bound).
 */
export class PinnedVersions {
  readonly #cache: PromptCache;
  readonly #http: Http;
  readonly #snapshot: SnapshotFallback;
  readonly #requests = new Inflight<Outcome<ClientPrompt>>();

  constructor(cache: PromptCache, http: Http, snapshot: SnapshotFallback) {
    this.#cache = cache;
    this.#http = http;
    this.#snapshot = snapshot;
  }

  async get(promptId: string, version: string): Promise<ClientPrompt> {
    if (!this.#http.unauthorized) {
      const entry = this.#cache.pinned(promptId, version);
      if (entry) return entry.copy.view(entry.origin === 'snapshot' ? 'snapshot' : 'cache');
      if (this.#http.blocked(this.#cache.now())) return unwrap(this.fallback(promptId, version, this.#http.blockedError));
    }
    return unwrap(await this.load(promptId, version));
  }

  /** The version from the API, sharing any request for it under way. */
  load(promptId: string, version: string): Promise<Outcome<ClientPrompt>> {
    return this.#requests.once(versionKey(promptId, version), () => this.#load(promptId, version));
  }

  /** The copy held, else the snapshot's (kept from then on), else the error. */
  fallback(promptId: string, version: string, error: PromptClientError | undefined): Outcome<ClientPrompt> {
    if (this.#http.unauthorized) return { error: this.#http.unauthorized };
    const entry = this.#cache.pinned(promptId, version);
    if (entry) return { value: entry.copy.view(entry.origin === 'snapshot' ? 'snapshot' : 'cache') };
    const copy = this.#snapshot.version(promptId, version);
    if (copy) {
      // A published version never changes, so the snapshot's copy is as good as the API's.
      this.#cache.pin(promptId, version, { copy, etag: undefined, origin: 'snapshot' });
      return { value: copy.view('snapshot') };
    }
    return { error: error ?? new ServiceUnavailableError(`prompt ${promptId} ${version}: no copy to serve`) };
  }

  running(): Promise<unknown>[] {
    return this.#requests.running();
  }

  async #load(promptId: string, version: string): Promise<Outcome<ClientPrompt>> {
    const held = this.#cache.pinned(promptId, version);
    const path = `/prompts/${encodeURIComponent(promptId)}?version=${encodeURIComponent(version)}`;
    const answer = await this.#http.get(path, held?.etag, { promptId, version });
    switch (answer.kind) {
      case 'ok': {
        const problem = promptProblem(answer.body);
        if (problem !== undefined) return this.fallback(promptId, version, unreadable(path, problem));
        const copy = new PromptCopy(answer.body as PromptData);
        this.#cache.pin(promptId, version, { copy, etag: answer.etag, origin: 'network' });
        return { value: copy.view('network') };
      }
      case 'not-modified':
        return held ? { value: held.copy.view('cache') } : this.fallback(promptId, version, undefined);
      case 'refused':
        if (answer.error.code === 'NOT_FOUND') this.#cache.forget(promptId);
        if (answer.error.code === 'USAGE_LIMIT_EXCEEDED' || answer.error.status === 429) return this.fallback(promptId, version, answer.error);
        return { error: answer.error };
      case 'outage':
        return this.fallback(promptId, version, answer.error);
    }
  }
}
