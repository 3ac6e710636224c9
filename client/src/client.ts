import { answerProblem, Inflight, LATEST, movingEntry, type Outcome, PromptCache, rolloutIn, rolloutOf, type Target, unreadable, unwrap } from './cache.js';
import { InvalidOptionsError, type PromptClientError, ServiceUnavailableError } from './errors.js';
import { SnapshotFallback } from './fallback.js';
import { type FetchFunction, Http } from './http.js';
import { PinnedVersions } from './pinned.js';
import { PromptCopy } from './prompt.js';
import { MAX_SUBJECT_LENGTH } from './rollout.js';
import { RolloutSides } from './sides.js';
import { createSnapshot, type PromptSnapshot } from './snapshot.js';
import type { ClientPrompt, KnownPromptId, LabelVariablesOf, PromptData, PromptRegistry, Quota, UntypedPrompts, VariablesOf } from './types.js';

export interface PromptClientOptions {
  /** The API's base URL, e.g. `https://prompts.example.com` (a trailing slash is fine). */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** How long a latest version is served without asking the API again. Default 60. */
  readonly ttlSeconds?: number;
  /** Copies to serve when the API cannot be reached and nothing is cached: a PromptSnapshot or its JSON. */
  readonly snapshot?: PromptSnapshot | string;
  /** Default: the runtime's global `fetch`. */
  readonly fetch?: FetchFunction;
  /** A request with no answer after this long counts as an outage. Default 5000. */
  readonly timeoutMs?: number;
  /** Milliseconds since the epoch; for tests and simulations. Default `Date.now`. */
  readonly now?: () => number;
  /** Pinned versions kept in memory (least recently used go first). Default 1000. */
  readonly maxCachedVersions?: number;
}

export interface GetOptions {
  /** A published version, `MAJOR.MINOR.PATCH`; omitted, the latest. */
  readonly version?: string;
  /** A label such as `production`: the version it points at, cached and revalidated like latest. Not with `version`. */
  readonly label?: string;
  /**
   * Who the prompt is for (a user, a session; at most 256 characters): while the label rolls out, the
   * subject gets the side the bucket rule picks for it, decided from the cache (docs/rollouts.md).
   */
  readonly subject?: string;
}

export interface ListOptions {
  /** Only the prompts that carry this label, each at the version it points at. */
  readonly label?: string;
  /** As for `get`: at a label that rolls out, each prompt is the side this subject gets. */
  readonly subject?: string;
}

export interface PromptClient<R = UntypedPrompts> {
  /**
   * The prompt at the version a label points at: cached, revalidated and fallen back on like latest, so a
   * moved label is seen within `ttlSeconds`.
   */
  get<Id extends string, L extends string>(
    promptId: KnownPromptId<R, Id>,
    options: { readonly label: L; readonly version?: undefined; readonly subject?: string },
  ): Promise<ClientPrompt<LabelVariablesOf<R, Id, L>>>;
  /** The prompt at its latest version. Only the very first call for a prompt waits for the network. */
  get<Id extends string>(
    promptId: KnownPromptId<R, Id>,
    options?: { readonly version?: undefined; readonly label?: undefined; readonly subject?: string },
  ): Promise<ClientPrompt<VariablesOf<R, Id, undefined>>>;
  /** A pinned version: fetched once, then served from memory for the life of the process. */
  get<Id extends string, Ver extends string>(
    promptId: KnownPromptId<R, Id>,
    options: { readonly version: Ver; readonly subject?: string },
  ): Promise<ClientPrompt<VariablesOf<R, Id, Ver>>>;
  get<Id extends string>(promptId: KnownPromptId<R, Id>, options?: GetOptions): Promise<ClientPrompt>;
  /**
   * Every prompt at its latest version, in one request; fills the cache for every prompt. With a label,
   * the prompts that carry it, each at the version it points at.
   */
  list(options?: ListOptions): Promise<ClientPrompt[]>;
  /**
   * `list()` for its effect: every prompt cached (and then revalidated as a whole) in one request; with a
   * label, every prompt at that label, so `get(id, { label })` is served from memory.
   */
  preload(options?: ListOptions): Promise<void>;
  /** Every prompt at its latest version, every version fetched so far, and where each label fetched points, as plain JSON. */
  snapshot(): Promise<PromptSnapshot>;
  /** The key's monthly quota as of the last answer that carried it; undefined before any. */
  readonly quota: Quota | undefined;
  /**
   * Settles when no request is under way, background revalidations included: for tests, and for
   * runtimes that need to be told about background work (an edge function's `waitUntil`).
   */
  idle(): Promise<void>;
}

const DEFAULT_TTL_SECONDS = 60;
const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_VERSIONS = 1_000;

export function createPromptClient<R extends PromptRegistry<R> = UntypedPrompts>(options: PromptClientOptions): PromptClient<R> {
  // The registry types only what callers see; at run time every prompt is the same kind of object.
  return new CachingPromptClient(options) as unknown as PromptClient<R>;
}

const LABEL_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;

class CachingPromptClient {
  readonly #http: Http;
  readonly #now: () => number;
  readonly #cache: PromptCache;
  readonly #fallback: SnapshotFallback;
  readonly #pinned: PinnedVersions;
  readonly #sides: RolloutSides;
  /** Requests under way, by what they fetch: concurrent callers share one. */
  readonly #movingRequests = new Inflight<Outcome<ClientPrompt>>();
  readonly #listRequests = new Inflight<Outcome<ClientPrompt[]>>();

  constructor(options: PromptClientOptions) {
    if (options === null || typeof options !== 'object') throw new InvalidOptionsError('createPromptClient needs an options object');
    const baseUrl = baseUrlOf(options.baseUrl);
    if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
      throw new InvalidOptionsError('apiKey: must be a non-empty string');
    }
    const ttlSeconds = numberOption('ttlSeconds', options.ttlSeconds, DEFAULT_TTL_SECONDS, 0);
    const timeoutMs = numberOption('timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS, 1);
    const maxVersions = numberOption('maxCachedVersions', options.maxCachedVersions, DEFAULT_MAX_VERSIONS, 1);
    const fetchFunction = options.fetch ?? globalFetch();
    this.#now = options.now ?? Date.now;
    this.#cache = new PromptCache({ now: this.#now, ttlSeconds, maxCachedVersions: maxVersions });
    this.#http = new Http({ baseUrl, apiKey: options.apiKey, fetch: fetchFunction, timeoutMs, now: this.#now });
    this.#fallback = new SnapshotFallback(options.snapshot);
    this.#pinned = new PinnedVersions(this.#cache, this.#http, this.#fallback);
    this.#sides = new RolloutSides(this.#cache, this.#http, this.#fallback, this.#pinned);
  }

  get quota(): Quota | undefined {
    return this.#http.quota;
  }

  async get(promptId: string, options: GetOptions = {}): Promise<ClientPrompt> {
    if (typeof promptId !== 'string') throw new InvalidOptionsError('get: promptId must be a string');
    const version = options?.version;
    const label = labelOption('get', options?.label);
    const subject = subjectOption('get', options?.subject);
    if (version !== undefined && label !== LATEST) throw new InvalidOptionsError('get: give version or label, not both');
    return version === undefined ? this.#getMoving(promptId, label, subject) : this.#pinned.get(promptId, version);
  }

  async list(options: ListOptions = {}): Promise<ClientPrompt[]> {
    const target = labelOption('list', options?.label);
    const subject = subjectOption('list', options?.subject);
    const views = await this.#listed(target, subject);
    if (!views.some((view) => view.rollout !== undefined)) return views;
    return Promise.all(views.map((view) => this.#sides.decided(view.promptId, target, subject, view)));
  }

  async #listed(target: Target, subject: string | undefined): Promise<ClientPrompt[]> {
    const state = this.#cache.list(target);
    if (state && !this.#http.unauthorized) {
      const now = this.#now();
      if (now >= state.freshUntil && !this.#http.blocked(now)) this.#revalidateList(target);
      return this.#listViews(target, state.ids, 'cache');
    }
    if (!this.#http.unauthorized && this.#http.blocked(this.#now())) return unwrap(this.#listFallback(target, this.#http.blockedError));
    return unwrap(await this.#listRequests.once(target, () => this.#loadList(target, subject)));
  }

  async preload(options: ListOptions = {}): Promise<void> {
    const target = labelOption('preload', options?.label);
    await this.#listed(target, subjectOption('preload', options?.subject));
    // Both sides of every rollout at the label, so that every subject's get is answered from memory.
    await this.#sides.complete(target);
  }

  async snapshot(): Promise<PromptSnapshot> {
    const latest = await this.list();
    for (const target of this.#cache.labels()) await this.#sides.complete(target);
    const versions = this.#cache.pinnedEntries().map((entry) => entry.copy.data);
    versions.push(...this.#fallback.versions());
    // Where each label pointed (and how it rolled out) as the snapshot given said, then as this client has since learnt.
    const labels = this.#fallback.labels();
    const rollouts = this.#fallback.rollouts();
    for (const target of this.#cache.labels()) {
      for (const [promptId, entry] of this.#cache.entriesAt(target)) {
        const targets = labels[target] ?? Object.create(null);
        const rolling = rollouts[target] ?? Object.create(null);
        // While it rolls out, the label points at `from`, whichever side this client happened to be given.
        targets[promptId] = entry.rollout?.from ?? entry.copy.data.version;
        if (entry.rollout) rolling[promptId] = entry.rollout;
        else delete rolling[promptId];
        labels[target] = targets;
        rollouts[target] = rolling;
        versions.push(entry.copy.data);
        for (const side of entry.sides.values()) versions.push(side.data);
      }
    }
    return createSnapshot(latest, versions, new Date(this.#now()), labels, rollouts);
  }

  async idle(): Promise<void> {
    const running = () => [...this.#movingRequests.running(), ...this.#listRequests.running(), ...this.#pinned.running()];
    for (let underWay = running(); underWay.length > 0; underWay = running()) await Promise.allSettled(underWay);
  }

  // Moving targets: latest, and labels

  async #getMoving(promptId: string, target: Target, subject: string | undefined): Promise<ClientPrompt> {
    const entry = this.#cache.entry(target, promptId);
    if (entry && !this.#http.unauthorized) {
      const now = this.#now();
      if (now >= this.#cache.freshUntil(target, entry) && !this.#http.blocked(now)) {
        if (entry.viaList) this.#revalidateList(target);
        else void this.#movingRequests.once(movingRequestKey(target, promptId), () => this.#loadMoving(promptId, target, subject));
      }
      return this.#sides.decide(promptId, target, entry, subject, entry.origin === 'snapshot' ? 'snapshot' : 'cache');
    }
    if (!this.#http.unauthorized && this.#http.blocked(this.#now())) {
      return this.#sides.decided(promptId, target, subject, unwrap(this.#movingFallback(promptId, target, this.#http.blockedError)));
    }
    const view = unwrap(await this.#movingRequests.once(movingRequestKey(target, promptId), () => this.#loadMoving(promptId, target, subject)));
    return this.#sides.decided(promptId, target, subject, view);
  }

  async #loadMoving(promptId: string, target: Target, rolloutSubject: string | undefined): Promise<Outcome<ClientPrompt>> {
    const held = this.#cache.entry(target, promptId);
    const path = `/prompts/${encodeURIComponent(promptId)}${target === LATEST ? '' : `?label=${encodeURIComponent(target)}`}`;
    const subject = target === LATEST ? { promptId } : { promptId, label: target };
    const answer = await this.#http.get(path, held?.origin === 'network' ? held.etag : undefined, subject, target === LATEST ? undefined : rolloutSubject);
    const now = this.#now();
    const current = this.#cache.entry(target, promptId);
    switch (answer.kind) {
      case 'ok': {
        const problem = answerProblem(answer.body, target);
        if (problem !== undefined) return this.#movingFallback(promptId, target, unreadable(path, problem));
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
        return current ? { value: current.copy.view('cache', rolloutOf(current)) } : this.#movingFallback(promptId, target, undefined);
      case 'refused':
        if (answer.error.code === 'NOT_FOUND') this.#cache.forget(promptId);
        // The label was removed: the prompt and its other labels stand.
        if (answer.error.code === 'LABEL_NOT_FOUND') this.#cache.forgetAt(target, promptId);
        if (answer.error.code === 'USAGE_LIMIT_EXCEEDED' || answer.error.status === 429) {
          return this.#movingFallback(promptId, target, answer.error);
        }
        return { error: answer.error };
      case 'outage':
        if (current && !current.viaList) current.freshUntil = now + this.#cache.outageRetryMs();
        return this.#movingFallback(promptId, target, answer.error);
    }
  }

  /** The cached copy, else the snapshot's, else the error. */
  #movingFallback(promptId: string, target: Target, error: PromptClientError | undefined): Outcome<ClientPrompt> {
    if (this.#http.unauthorized) return { error: this.#http.unauthorized };
    const entry = this.#cache.entry(target, promptId);
    if (entry) return { value: entry.copy.view(entry.origin === 'snapshot' ? 'snapshot' : 'cache', rolloutOf(entry)) };
    const copy = this.#fallback.copy(promptId, target);
    if (copy) {
      const rollout = this.#fallback.rollout(target, promptId);
      const fallback = movingEntry(copy, undefined, 'snapshot', false, this.#now() + this.#cache.outageRetryMs(), rollout, undefined);
      this.#cache.setEntry(target, promptId, fallback);
      return { value: copy.view('snapshot', rolloutOf(fallback)) };
    }
    const what = target === LATEST ? `prompt ${promptId}` : `prompt ${promptId} at label ${target}`;
    return { error: error ?? new ServiceUnavailableError(`${what}: no copy to serve`) };
  }

  // Whole lists: every prompt at latest, or every prompt at a label

  #revalidateList(target: Target): void {
    void this.#listRequests.once(target, () => this.#loadList(target));
  }

  async #loadList(target: Target, rolloutSubject?: string): Promise<Outcome<ClientPrompt[]>> {
    const held = this.#cache.list(target);
    const path = target === LATEST ? '/prompts' : `/prompts?label=${encodeURIComponent(target)}`;
    const answer = await this.#http.get(path, held?.etag, target === LATEST ? {} : { label: target }, target === LATEST ? undefined : rolloutSubject);
    const now = this.#now();
    switch (answer.kind) {
      case 'ok': {
        if (!Array.isArray(answer.body)) return this.#listFallback(target, unreadable(path, 'must be an array'));
        const problem = answer.body.map((item: unknown) => answerProblem(item, target)).find((found) => found !== undefined);
        if (problem !== undefined) return this.#listFallback(target, unreadable(path, problem));
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
        return { value: this.#listViews(target, ids, 'network') };
      }
      case 'not-modified': {
        const state = this.#cache.list(target);
        if (state && state === held) state.freshUntil = now + this.#cache.ttlMs;
        return state ? { value: this.#listViews(target, state.ids, 'cache') } : this.#listFallback(target, undefined);
      }
      case 'refused':
        if (answer.error.code === 'USAGE_LIMIT_EXCEEDED' || answer.error.status === 429) return this.#listFallback(target, answer.error);
        return { error: answer.error };
      case 'outage': {
        const state = this.#cache.list(target);
        if (state) state.freshUntil = now + this.#cache.outageRetryMs();
        return this.#listFallback(target, answer.error);
      }
    }
  }

  /** The cached list, else every cached prompt with the snapshot's for the others, else the error. */
  #listFallback(target: Target, error: PromptClientError | undefined): Outcome<ClientPrompt[]> {
    if (this.#http.unauthorized) return { error: this.#http.unauthorized };
    const state = this.#cache.list(target);
    if (state) return { value: this.#listViews(target, state.ids, 'cache') };
    const fromSnapshot = this.#fallback.promptIds(target);
    if (fromSnapshot.length === 0) {
      const what = target === LATEST ? 'the prompt list' : `the prompt list at label ${target}`;
      return { error: error ?? new ServiceUnavailableError(`${what}: no copy to serve`) };
    }
    const retryAt = this.#now() + this.#cache.outageRetryMs();
    for (const promptId of fromSnapshot) {
      const copy = this.#fallback.copy(promptId, target);
      if (copy && !this.#cache.entry(target, promptId)) {
        this.#cache.setEntry(target, promptId, movingEntry(copy, undefined, 'snapshot', true, 0, this.#fallback.rollout(target, promptId), undefined));
      }
    }
    const ids = this.#cache.promptIdsAt(target).sort();
    this.#cache.setList(target, { etag: undefined, ids, freshUntil: retryAt });
    return { value: this.#listViews(target, ids, 'cache') };
  }

  #listViews(target: Target, ids: readonly string[], fresh: 'network' | 'cache'): ClientPrompt[] {
    const views: ClientPrompt[] = [];
    for (const promptId of ids) {
      const entry = this.#cache.entry(target, promptId);
      if (entry) views.push(entry.copy.view(entry.origin === 'snapshot' ? 'snapshot' : fresh, rolloutOf(entry)));
    }
    return views;
  }
}

const movingRequestKey = (target: Target, promptId: string) => (target === LATEST ? `latest:${promptId}` : `label:${target}:${promptId}`);

/** `latest` names what no label does; any other label must be a label name, as the API would refuse it. */
function labelOption(method: string, label: unknown): Target {
  if (label === undefined || label === 'latest') return LATEST;
  if (typeof label !== 'string' || !LABEL_PATTERN.test(label)) {
    throw new InvalidOptionsError(`${method}: label must be 1 to 32 characters of a-z, 0-9, "-" or "_", starting with a letter`);
  }
  return label;
}

/** Any string up to the API's bound; whether it can travel in a header is the request's concern. */
function subjectOption(method: string, subject: unknown): string | undefined {
  if (subject === undefined) return undefined;
  if (typeof subject !== 'string' || subject.length > MAX_SUBJECT_LENGTH) {
    throw new InvalidOptionsError(`${method}: subject must be a string of at most ${MAX_SUBJECT_LENGTH} characters`);
  }
  return subject;
}

function baseUrlOf(value: unknown): string {
  if (typeof value !== 'string') throw new InvalidOptionsError('baseUrl: must be a string');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidOptionsError(`baseUrl: must be an absolute http or https URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidOptionsError(`baseUrl: must be an http or https URL, got "${value}"`);
  }
  return value.replace(/\/+$/, '');
}

function numberOption(name: string, value: unknown, fallback: number, minimum: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < minimum) {
    throw new InvalidOptionsError(`${name}: must be a number, ${minimum} or more`);
  }
  return value;
}

function globalFetch(): FetchFunction {
  if (typeof globalThis.fetch !== 'function') {
    throw new InvalidOptionsError('fetch: this runtime has no global fetch; pass one as the fetch option');
  }
  // Called unbound, some runtimes' fetch throws "Illegal invocation".
  return (url, init) => globalThis.fetch(url, init);
}
