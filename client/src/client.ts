import { LATEST, PromptCache, type Target } from './cache.js';
import { InvalidOptionsError } from './errors.js';
import { SnapshotFallback } from './fallback.js';
import { type FetchFunction, Http } from './http.js';
import { PromptLists } from './lists.js';
import { MovingCopies } from './moving.js';
import { PinnedVersions } from './pinned.js';
import { MAX_SUBJECT_LENGTH } from './rollout.js';
import { RolloutSides } from './sides.js';
import { createSnapshot, type PromptSnapshot } from './snapshot.js';
import type { ClientPrompt, KnownPromptId, LabelVariablesOf, PromptRegistry, Quota, UntypedPrompts, VariablesOf } from './types.js';

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

/**
 * The client a caller holds: its options checked once, and each call handed to the cache that answers it
 * (moving.ts for latest and labels, pinned.ts for versions, lists.ts for lists), with the side of a rollout
 * its subject gets (sides.ts).
 */
class CachingPromptClient {
  readonly #http: Http;
  readonly #cache: PromptCache;
  readonly #fallback: SnapshotFallback;
  readonly #pinned: PinnedVersions;
  readonly #sides: RolloutSides;
  readonly #lists: PromptLists;
  readonly #moving: MovingCopies;

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
    const now = options.now ?? Date.now;
    this.#cache = new PromptCache({ now, ttlSeconds, maxCachedVersions: maxVersions });
    this.#http = new Http({ baseUrl, apiKey: options.apiKey, fetch: fetchFunction, timeoutMs, now });
    this.#fallback = new SnapshotFallback(options.snapshot);
    this.#pinned = new PinnedVersions(this.#cache, this.#http, this.#fallback);
    this.#sides = new RolloutSides(this.#cache, this.#http, this.#fallback, this.#pinned);
    this.#lists = new PromptLists(this.#cache, this.#http, this.#fallback, this.#sides);
    this.#moving = new MovingCopies(this.#cache, this.#http, this.#fallback, this.#sides, this.#lists);
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
    return version === undefined ? this.#moving.get(promptId, label, subject) : this.#pinned.get(promptId, version);
  }

  async list(options: ListOptions = {}): Promise<ClientPrompt[]> {
    const target = labelOption('list', options?.label);
    const subject = subjectOption('list', options?.subject);
    const views = await this.#lists.get(target, subject);
    if (!views.some((view) => view.rollout !== undefined)) return views;
    return Promise.all(views.map((view) => this.#sides.decided(view.promptId, target, subject, view)));
  }

  async preload(options: ListOptions = {}): Promise<void> {
    const target = labelOption('preload', options?.label);
    await this.#lists.get(target, subjectOption('preload', options?.subject));
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
    return createSnapshot(latest, versions, new Date(this.#cache.now()), labels, rollouts);
  }

  async idle(): Promise<void> {
    const running = () => [...this.#moving.running(), ...this.#lists.running(), ...this.#pinned.running()];
    for (let underWay = running(); underWay.length > 0; underWay = running()) await Promise.allSettled(underWay);
  }
}

const LABEL_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;

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
