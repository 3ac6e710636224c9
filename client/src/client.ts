import { InvalidOptionsError, type PromptClientError, ServiceUnavailableError, type UnauthorizedError } from './errors.js';
import { type Answer, type FetchFunction, Http, type Subject } from './http.js';
import { Lru } from './lru.js';
import { createSnapshot, plain, promptProblem, type PromptSnapshot, readSnapshot, versionKey } from './snapshot.js';
import { PromptTemplate } from './template.js';
import type {
  ClientPrompt,
  CompileOptions,
  KnownPromptId,
  PromptData,
  PromptRegistry,
  PromptSource,
  Quota,
  TemplateValues,
  UntypedPrompts,
  VariablesOf,
} from './types.js';

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
}

export interface PromptClient<R = UntypedPrompts> {
  /** The prompt at its latest version. Only the very first call for a prompt waits for the network. */
  get<Id extends string>(
    promptId: KnownPromptId<R, Id>,
    options?: { readonly version?: undefined },
  ): Promise<ClientPrompt<VariablesOf<R, Id, undefined>>>;
  /** A pinned version: fetched once, then served from memory for the life of the process. */
  get<Id extends string, Ver extends string>(
    promptId: KnownPromptId<R, Id>,
    options: { readonly version: Ver },
  ): Promise<ClientPrompt<VariablesOf<R, Id, Ver>>>;
  get<Id extends string>(promptId: KnownPromptId<R, Id>, options?: GetOptions): Promise<ClientPrompt>;
  /** Every prompt at its latest version, in one request; fills the cache for every prompt. */
  list(): Promise<ClientPrompt[]>;
  /** `list()` for its effect: every prompt cached (and then revalidated as a whole) in one request. */
  preload(): Promise<void>;
  /** Every prompt at its latest version and every version fetched so far, as plain JSON. */
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
/** After an outage, a copy is served this long (at most the TTL) before the API is tried again. */
const OUTAGE_RETRY_MS = 5_000;

export function createPromptClient<R extends PromptRegistry<R> = UntypedPrompts>(options: PromptClientOptions): PromptClient<R> {
  // The registry types only what callers see; at run time every prompt is the same kind of object.
  return new CachingPromptClient(options) as unknown as PromptClient<R>;
}

/** One prompt body, read once: the template parsed, and one frozen view per source handed out. */
class Copy {
  readonly data: PromptData;
  readonly #template: PromptTemplate;
  readonly #views: Partial<Record<PromptSource, ClientPrompt>> = {};

  constructor(data: PromptData) {
    this.data = deepFreeze(plain(data));
    this.#template = new PromptTemplate(`prompt ${data.promptId} ${data.version}`, data.systemMessage, data.userMessage);
  }

  view(source: PromptSource): ClientPrompt {
    const existing = this.#views[source];
    if (existing) return existing;
    const template = this.#template;
    const view: ClientPrompt = Object.freeze({
      ...this.data,
      variables: template.variables,
      source,
      compile: (values: TemplateValues, options?: CompileOptions) => template.compile(values, options),
    });
    this.#views[source] = view;
    return view;
  }
}

type Origin = 'network' | 'snapshot';

interface LatestEntry {
  readonly copy: Copy;
  readonly etag: string | undefined;
  readonly origin: Origin;
  /** Its freshness is the list's: it came with `GET /prompts` and is revalidated with it. */
  readonly viaList: boolean;
  freshUntil: number;
}

interface PinnedEntry {
  readonly copy: Copy;
  readonly etag: string | undefined;
  readonly origin: Origin;
}

interface ListState {
  readonly etag: string | undefined;
  readonly ids: readonly string[];
  freshUntil: number;
}

/** What a caller gets from a request: the prompt(s) to return, or the error to throw. */
type Outcome<T> = { readonly value: T } | { readonly error: PromptClientError };

class CachingPromptClient {
  readonly #http: Http;
  readonly #now: () => number;
  readonly #ttlMs: number;
  readonly #latest = new Map<string, LatestEntry>();
  readonly #pinned: Lru<PinnedEntry>;
  #list: ListState | undefined;
  readonly #snapshotLatest = new Map<string, Copy>();
  readonly #snapshotVersions = new Map<string, Copy>();
  /** Requests under way, by what they fetch: concurrent callers share one. */
  readonly #inflight = new Map<string, Promise<unknown>>();
  /** After a 429: no request before this time. */
  #blockedUntil = 0;
  #blockedError: PromptClientError | undefined;
  /** The API's last word on the key was 401: copies are not served until it says otherwise. */
  #unauthorized: UnauthorizedError | undefined;

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
    this.#ttlMs = ttlSeconds * 1000;
    this.#pinned = new Lru(maxVersions);
    this.#http = new Http({ baseUrl, apiKey: options.apiKey, fetch: fetchFunction, timeoutMs, now: this.#now });
    if (options.snapshot !== undefined) {
      const snapshot = readSnapshot(options.snapshot);
      for (const prompt of snapshot.prompts) {
        const copy = new Copy(prompt);
        this.#snapshotLatest.set(prompt.promptId, copy);
        this.#snapshotVersions.set(versionKey(prompt.promptId, prompt.version), copy);
      }
      for (const prompt of snapshot.versions) this.#snapshotVersions.set(versionKey(prompt.promptId, prompt.version), new Copy(prompt));
    }
  }

  get quota(): Quota | undefined {
    return this.#http.quota;
  }

  async get(promptId: string, options: GetOptions = {}): Promise<ClientPrompt> {
    if (typeof promptId !== 'string') throw new InvalidOptionsError('get: promptId must be a string');
    const version = options?.version;
    return version === undefined ? this.#getLatest(promptId) : this.#getPinned(promptId, version);
  }

  async list(): Promise<ClientPrompt[]> {
    const state = this.#list;
    if (state && !this.#unauthorized) {
      const now = this.#now();
      if (now >= state.freshUntil && !this.#blocked(now)) this.#revalidateList();
      return this.#listViews(state.ids, 'cache');
    }
    if (!this.#unauthorized && this.#blocked(this.#now())) return unwrap(this.#listFallback(this.#blockedError));
    return unwrap(await this.#once('list', () => this.#loadList()));
  }

  async preload(): Promise<void> {
    await this.list();
  }

  async snapshot(): Promise<PromptSnapshot> {
    const latest = await this.list();
    const versions = [...this.#pinned.values()].map((entry) => entry.copy.data);
    for (const copy of this.#snapshotVersions.values()) versions.push(copy.data);
    return createSnapshot(latest, versions, new Date(this.#now()));
  }

  async idle(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight.values()]);
  }

  // Latest versions

  async #getLatest(promptId: string): Promise<ClientPrompt> {
    const entry = this.#latest.get(promptId);
    if (entry && !this.#unauthorized) {
      const now = this.#now();
      if (now >= this.#freshUntil(entry) && !this.#blocked(now)) {
        if (entry.viaList) this.#revalidateList();
        else void this.#once(`latest:${promptId}`, () => this.#loadLatest(promptId));
      }
      return entry.copy.view(entry.origin === 'snapshot' ? 'snapshot' : 'cache');
    }
    if (!this.#unauthorized && this.#blocked(this.#now())) return unwrap(this.#latestFallback(promptId, this.#blockedError));
    return unwrap(await this.#once(`latest:${promptId}`, () => this.#loadLatest(promptId)));
  }

  async #loadLatest(promptId: string): Promise<Outcome<ClientPrompt>> {
    const held = this.#latest.get(promptId);
    const path = `/prompts/${encodeURIComponent(promptId)}`;
    const answer = await this.#request(path, held?.origin === 'network' ? held.etag : undefined, { promptId });
    const now = this.#now();
    const current = this.#latest.get(promptId);
    switch (answer.kind) {
      case 'ok': {
        const problem = promptProblem(answer.body);
        if (problem !== undefined) return this.#latestFallback(promptId, unreadable(path, problem));
        const copy = new Copy(answer.body as PromptData);
        this.#latest.set(promptId, { copy, etag: answer.etag, origin: 'network', viaList: false, freshUntil: now + this.#ttlMs });
        this.#rememberVersion(copy, answer.etag);
        return { value: copy.view('network') };
      }
      case 'not-modified':
        // Only the copy whose tag was sent is confirmed; a newer one may have arrived meanwhile.
        if (current && current === held) current.freshUntil = now + this.#ttlMs;
        return current ? { value: current.copy.view('cache') } : this.#latestFallback(promptId, undefined);
      case 'refused':
        if (answer.error.code === 'NOT_FOUND') this.#forget(promptId);
        if (answer.error.code === 'USAGE_LIMIT_EXCEEDED' || answer.error.status === 429) return this.#latestFallback(promptId, answer.error);
        return { error: answer.error };
      case 'outage':
        if (current && !current.viaList) current.freshUntil = now + this.#outageRetryMs();
        return this.#latestFallback(promptId, answer.error);
    }
  }

  /** The cached copy, else the snapshot's, else the error. */
  #latestFallback(promptId: string, error: PromptClientError | undefined): Outcome<ClientPrompt> {
    if (this.#unauthorized) return { error: this.#unauthorized };
    const entry = this.#latest.get(promptId);
    if (entry) return { value: entry.copy.view(entry.origin === 'snapshot' ? 'snapshot' : 'cache') };
    const copy = this.#snapshotLatest.get(promptId);
    if (copy) {
      this.#latest.set(promptId, { copy, etag: undefined, origin: 'snapshot', viaList: false, freshUntil: this.#now() + this.#outageRetryMs() });
      return { value: copy.view('snapshot') };
    }
    return { error: error ?? new ServiceUnavailableError(`prompt ${promptId}: no copy to serve`) };
  }

  #freshUntil(entry: LatestEntry): number {
    return entry.viaList ? (this.#list?.freshUntil ?? 0) : entry.freshUntil;
  }

  // Pinned versions

  async #getPinned(promptId: string, version: string): Promise<ClientPrompt> {
    const key = versionKey(promptId, version);
    if (!this.#unauthorized) {
      const entry = this.#pinned.get(key);
      if (entry) return entry.copy.view(entry.origin === 'snapshot' ? 'snapshot' : 'cache');
      if (this.#blocked(this.#now())) return unwrap(this.#pinnedFallback(promptId, version, this.#blockedError));
    }
    return unwrap(await this.#once(`version:${key}`, () => this.#loadPinned(promptId, version)));
  }

  async #loadPinned(promptId: string, version: string): Promise<Outcome<ClientPrompt>> {
    const key = versionKey(promptId, version);
    const held = this.#pinned.get(key);
    const path = `/prompts/${encodeURIComponent(promptId)}?version=${encodeURIComponent(version)}`;
    const answer = await this.#request(path, held?.etag, { promptId, version });
    switch (answer.kind) {
      case 'ok': {
        const problem = promptProblem(answer.body);
        if (problem !== undefined) return this.#pinnedFallback(promptId, version, unreadable(path, problem));
        const copy = new Copy(answer.body as PromptData);
        this.#pinned.set(key, { copy, etag: answer.etag, origin: 'network' });
        return { value: copy.view('network') };
      }
      case 'not-modified':
        return held ? { value: held.copy.view('cache') } : this.#pinnedFallback(promptId, version, undefined);
      case 'refused':
        if (answer.error.code === 'NOT_FOUND') this.#forget(promptId);
        if (answer.error.code === 'USAGE_LIMIT_EXCEEDED' || answer.error.status === 429) return this.#pinnedFallback(promptId, version, answer.error);
        return { error: answer.error };
      case 'outage':
        return this.#pinnedFallback(promptId, version, answer.error);
    }
  }

  #pinnedFallback(promptId: string, version: string, error: PromptClientError | undefined): Outcome<ClientPrompt> {
    if (this.#unauthorized) return { error: this.#unauthorized };
    const key = versionKey(promptId, version);
    const entry = this.#pinned.get(key);
    if (entry) return { value: entry.copy.view(entry.origin === 'snapshot' ? 'snapshot' : 'cache') };
    const copy = this.#snapshotVersions.get(key);
    if (copy) {
      // A published version never changes, so the snapshot's copy is as good as the API's.
      this.#pinned.set(key, { copy, etag: undefined, origin: 'snapshot' });
      return { value: copy.view('snapshot') };
    }
    return { error: error ?? new ServiceUnavailableError(`prompt ${promptId} ${version}: no copy to serve`) };
  }

  /** A latest copy is also that version's copy: published versions never change. */
  #rememberVersion(copy: Copy, etag: string | undefined): void {
    this.#pinned.set(versionKey(copy.data.promptId, copy.data.version), { copy, etag, origin: 'network' });
  }

  // The whole list

  #revalidateList(): void {
    void this.#once('list', () => this.#loadList());
  }

  async #loadList(): Promise<Outcome<ClientPrompt[]>> {
    const held = this.#list;
    const answer = await this.#request('/prompts', held?.etag, {});
    const now = this.#now();
    switch (answer.kind) {
      case 'ok': {
        if (!Array.isArray(answer.body)) return this.#listFallback(unreadable('/prompts', 'must be an array'));
        const problem = answer.body.map(promptProblem).find((found) => found !== undefined);
        if (problem !== undefined) return this.#listFallback(unreadable('/prompts', problem));
        const copies = (answer.body as PromptData[]).map((prompt) => new Copy(prompt));
        const ids = copies.map((copy) => copy.data.promptId);
        // Whatever the list no longer has is deleted or unpublished: no copy of it may outlive that.
        const listed = new Set(ids);
        for (const promptId of [...this.#latest.keys()]) if (!listed.has(promptId)) this.#forget(promptId);
        for (const copy of copies) {
          this.#latest.set(copy.data.promptId, { copy, etag: undefined, origin: 'network', viaList: true, freshUntil: 0 });
          this.#rememberVersion(copy, undefined);
        }
        this.#list = { etag: answer.etag, ids, freshUntil: now + this.#ttlMs };
        return { value: this.#listViews(ids, 'network') };
      }
      case 'not-modified':
        if (this.#list && this.#list === held) this.#list.freshUntil = now + this.#ttlMs;
        return this.#list ? { value: this.#listViews(this.#list.ids, 'cache') } : this.#listFallback(undefined);
      case 'refused':
        if (answer.error.code === 'USAGE_LIMIT_EXCEEDED' || answer.error.status === 429) return this.#listFallback(answer.error);
        return { error: answer.error };
      case 'outage':
        if (this.#list) this.#list.freshUntil = now + this.#outageRetryMs();
        return this.#listFallback(answer.error);
    }
  }

  /** The cached list, else every cached prompt with the snapshot's for the others, else the error. */
  #listFallback(error: PromptClientError | undefined): Outcome<ClientPrompt[]> {
    if (this.#unauthorized) return { error: this.#unauthorized };
    if (this.#list) return { value: this.#listViews(this.#list.ids, 'cache') };
    if (this.#snapshotLatest.size === 0) return { error: error ?? new ServiceUnavailableError('the prompt list: no copy to serve') };
    const retryAt = this.#now() + this.#outageRetryMs();
    for (const [promptId, copy] of this.#snapshotLatest) {
      if (!this.#latest.has(promptId)) {
        this.#latest.set(promptId, { copy, etag: undefined, origin: 'snapshot', viaList: true, freshUntil: 0 });
      }
    }
    const ids = [...this.#latest.keys()].sort();
    this.#list = { etag: undefined, ids, freshUntil: retryAt };
    return { value: this.#listViews(ids, 'cache') };
  }

  #listViews(ids: readonly string[], fresh: 'network' | 'cache'): ClientPrompt[] {
    const views: ClientPrompt[] = [];
    for (const promptId of ids) {
      const entry = this.#latest.get(promptId);
      if (entry) views.push(entry.copy.view(entry.origin === 'snapshot' ? 'snapshot' : fresh));
    }
    return views;
  }

  // Requests

  async #request(path: string, etag: string | undefined, subject: Subject): Promise<Answer> {
    const answer = await this.#http.get(path, etag, subject);
    if (answer.kind === 'refused' && answer.error.code === 'UNAUTHORIZED') {
      this.#unauthorized = answer.error as UnauthorizedError;
    } else if (keyAccepted(answer)) {
      this.#unauthorized = undefined;
    }
    if (answer.kind === 'refused' && answer.retryAfterMs !== undefined) {
      this.#blockedUntil = this.#now() + answer.retryAfterMs;
      this.#blockedError = answer.error;
    }
    return answer;
  }

  /** Runs the task unless the same one is under way, in which case its result is shared. */
  #once<T>(key: string, task: () => Promise<T>): Promise<T> {
    const running = this.#inflight.get(key);
    if (running) return running as Promise<T>;
    const started = task().finally(() => this.#inflight.delete(key));
    this.#inflight.set(key, started);
    // Background callers drop the promise; a failure (a bug: outcomes never reject) must not go unhandled.
    started.catch(() => undefined);
    return started;
  }

  #blocked(now: number): boolean {
    return now < this.#blockedUntil;
  }

  #outageRetryMs(): number {
    return Math.min(this.#ttlMs, OUTAGE_RETRY_MS);
  }

  /** The prompt is gone (404 NOT_FOUND, or missing from the list): every copy of it goes too. */
  #forget(promptId: string): void {
    this.#latest.delete(promptId);
    const prefix = versionKey(promptId, '');
    this.#pinned.deleteWhere((key) => key.startsWith(prefix));
    if (this.#list) this.#list = { ...this.#list, ids: this.#list.ids.filter((id) => id !== promptId) };
  }
}

/**
 * The API checks the key before the quota and the parameters, so a 200, 304, 400, 404 or quota 429 means
 * it accepted the key. The gateway's own throttle (429 without a code) and other failures say nothing of it.
 */
function keyAccepted(answer: Answer): boolean {
  if (answer.kind === 'ok' || answer.kind === 'not-modified') return true;
  if (answer.kind === 'outage') return false;
  return ['NOT_FOUND', 'VERSION_NOT_FOUND', 'BAD_REQUEST', 'USAGE_LIMIT_EXCEEDED'].includes(answer.error.code);
}

function unwrap<T>(outcome: Outcome<T>): T {
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

function unreadable(path: string, problem: string): ServiceUnavailableError {
  return new ServiceUnavailableError(`GET ${path}: the answer is not a prompt the client can read (${problem})`);
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

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
