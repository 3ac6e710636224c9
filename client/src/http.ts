import {
  BadRequestError,
  LabelNotFoundError,
  NotFoundError,
  PromptClientError,
  ServiceUnavailableError,
  UnauthorizedError,
  UsageLimitExceededError,
  VersionNotFoundError,
} from './errors.js';
import { SUBJECT_HEADER } from './rollout.js';
import type { Quota } from './types.js';

/** The part of `fetch` the client uses, so any runtime's fetch (or a test's) will do. */
export type FetchFunction = (url: string, init: FetchInit) => Promise<FetchResponse>;

export interface FetchInit {
  readonly method: 'GET';
  readonly headers: Record<string, string>;
  readonly signal: AbortSignal;
}

export interface FetchResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/** How one request ended, already sorted into what the cache does with it. Never a rejection. */
export type Answer =
  | { readonly kind: 'ok'; readonly body: unknown; readonly etag: string | undefined }
  | { readonly kind: 'not-modified' }
  /** The API refused (4xx): the answer stands, no copy may stand in for it (but see 429). */
  | { readonly kind: 'refused'; readonly error: PromptClientError; readonly retryAfterMs?: number }
  /** Network failure, timeout, 5xx or an unreadable answer: copies may stand in. */
  | { readonly kind: 'outage'; readonly error: ServiceUnavailableError };

/** What a request is about, so an error can name it. */
export interface Subject {
  readonly promptId?: string;
  readonly version?: string;
  readonly label?: string;
}

export interface HttpOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly fetch: FetchFunction;
  readonly timeoutMs: number;
  readonly now: () => number;
}

/** A 429 without a usable Retry-After (the gateway's own throttle sends none): wait this long. */
const DEFAULT_RETRY_AFTER_MS = 1_000;

interface ErrorBody {
  readonly error?: unknown;
  readonly code?: unknown;
  readonly usage?: { readonly used?: unknown; readonly limit?: unknown };
  readonly upgradeUrl?: unknown;
}

/**
 * One GET to the read API, already sorted into what the cache does with its answer; and what the answers
 * said of the key: its quota, whether it was refused (401), and how long to wait after a 429.
 */
export class Http {
  /** As of the last answer that carried the X-RateLimit-* headers. */
  quota: Quota | undefined;
  /** After a 429: no request before this time. */
  #blockedUntil = 0;
  #blockedError: PromptClientError | undefined;
  /** The API's last word on the key was 401: copies are not served until it says otherwise. */
  #unauthorized: UnauthorizedError | undefined;
  readonly #baseUrl: string;
  readonly #fetch: FetchFunction;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  /** Kept only as the header value it becomes; the key itself is never in a message or a log. */
  readonly #authorization: string;

  constructor(options: HttpOptions) {
    this.#baseUrl = options.baseUrl;
    this.#fetch = options.fetch;
    this.#timeoutMs = options.timeoutMs;
    this.#now = options.now;
    this.#authorization = `Bearer ${options.apiKey}`;
  }

  /** The 401 the API last answered with, until an answer shows it accepted the key again. */
  get unauthorized(): UnauthorizedError | undefined {
    return this.#unauthorized;
  }

  /** Whether a 429's Retry-After still holds: no request is made before it has passed. */
  blocked(now: number): boolean {
    return now < this.#blockedUntil;
  }

  /** The 429 that blocks requests: what a call with no copy to fall back on is told. */
  get blockedError(): PromptClientError | undefined {
    return this.#blockedError;
  }

  /** `rolloutSubject`: who the answer is for, at a label that may be rolling out (docs/rollouts.md). */
  async get(path: string, etag: string | undefined, subject: Subject, rolloutSubject?: string): Promise<Answer> {
    const answer = await this.#exchange(path, etag, subject, rolloutSubject);
    if (answer.kind === 'refused' && answer.error instanceof UnauthorizedError) {
      this.#unauthorized = answer.error;
    } else if (keyAccepted(answer)) {
      this.#unauthorized = undefined;
    }
    if (answer.kind === 'refused' && answer.retryAfterMs !== undefined) {
      this.#blockedUntil = this.#now() + answer.retryAfterMs;
      this.#blockedError = answer.error;
    }
    return answer;
  }

  async #exchange(path: string, etag: string | undefined, subject: Subject, rolloutSubject: string | undefined): Promise<Answer> {
    const headers: Record<string, string> = { authorization: this.#authorization, accept: 'application/json' };
    if (etag !== undefined) headers['if-none-match'] = etag;
    if (rolloutSubject !== undefined && sendable(rolloutSubject)) headers[SUBJECT_HEADER] = rolloutSubject;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.#timeoutMs);
    let status: number;
    let responseHeaders: FetchResponse['headers'];
    let text: string;
    try {
      const response = await this.#fetch(`${this.#baseUrl}${path}`, { method: 'GET', headers, signal: controller.signal });
      status = response.status;
      responseHeaders = response.headers;
      text = await response.text();
    } catch (error) {
      const reason = controller.signal.aborted ? `no answer within ${this.#timeoutMs} ms` : describe(error);
      return { kind: 'outage', error: new ServiceUnavailableError(`GET ${path}: ${reason}`, { cause: error }) };
    } finally {
      clearTimeout(timer);
    }
    this.#readQuota(responseHeaders);

    if (status === 304) return { kind: 'not-modified' };
    if (status >= 200 && status < 300) {
      try {
        return { kind: 'ok', body: JSON.parse(text), etag: responseHeaders.get('etag') ?? undefined };
      } catch {
        return { kind: 'outage', error: new ServiceUnavailableError(`GET ${path}: the answer (${status}) is not JSON`, { status }) };
      }
    }
    const body = parseErrorBody(text);
    const message = typeof body.error === 'string' && body.error !== '' ? body.error : `GET ${path} answered ${status}`;
    if (status >= 500) return { kind: 'outage', error: new ServiceUnavailableError(message, { status }) };
    if (status === 429) return this.#tooManyRequests(responseHeaders, body, message);
    return { kind: 'refused', error: refusal(status, body.code, message, subject) };
  }

  #tooManyRequests(headers: FetchResponse['headers'], body: ErrorBody, message: string): Answer {
    const retryAfterMs = retryAfterOf(headers.get('retry-after'), this.#now()) ?? DEFAULT_RETRY_AFTER_MS;
    if (body.code !== 'USAGE_LIMIT_EXCEEDED') {
      // API Gateway's own throttle (all callers together): short-lived, and not this key's quota.
      return { kind: 'refused', error: new ServiceUnavailableError(`The API is throttling requests: ${message}`, { status: 429 }), retryAfterMs };
    }
    const reset = Number(headers.get('x-ratelimit-reset'));
    const resetsAt = Number.isFinite(reset) && reset > 0 ? new Date(reset * 1000) : new Date(this.#now() + retryAfterMs);
    const used = Number(body.usage?.used);
    const limit = Number(body.usage?.limit);
    const error = new UsageLimitExceededError(
      message,
      { used: Number.isFinite(used) ? used : 0, limit: Number.isFinite(limit) ? limit : 0 },
      typeof body.upgradeUrl === 'string' ? body.upgradeUrl : '',
      resetsAt,
    );
    return { kind: 'refused', error, retryAfterMs };
  }

  #readQuota(headers: FetchResponse['headers']): void {
    const limit = headers.get('x-ratelimit-limit');
    const remaining = headers.get('x-ratelimit-remaining');
    const reset = headers.get('x-ratelimit-reset');
    if (limit === null || remaining === null || reset === null) return;
    const values = [Number(limit), Number(remaining), Number(reset)] as const;
    if (!values.every(Number.isFinite)) return;
    this.quota = { limit: values[0], remaining: values[1], resetsAt: new Date(values[2] * 1000) };
  }
}

/**
 * The API checks the key before the quota and the parameters, so a 200, 304, 400, 404 or quota 429 means
 * it accepted the key. The gateway's own throttle (429 without a code) and other failures say nothing of it.
 */
function keyAccepted(answer: Answer): boolean {
  if (answer.kind === 'ok' || answer.kind === 'not-modified') return true;
  if (answer.kind === 'outage') return false;
  return ['NOT_FOUND', 'VERSION_NOT_FOUND', 'LABEL_NOT_FOUND', 'BAD_REQUEST', 'USAGE_LIMIT_EXCEEDED'].includes(answer.error.code);
}

/**
 * A header carries printable ASCII unchanged through every HTTP stack; other characters would reach the
 * service re-encoded, and it would bucket another string. Such a subject is not sent: the client decides
 * its side itself, by the same rule, from the rollout the answer carries.
 */
function sendable(subject: string): boolean {
  return /^[\x20-\x7e]+$/.test(subject) && subject.trim() === subject;
}

function refusal(status: number, code: unknown, message: string, subject: Subject): PromptClientError {
  if (status === 401) return new UnauthorizedError(message);
  if (status === 404 && code === 'VERSION_NOT_FOUND' && subject.promptId !== undefined && subject.version !== undefined) {
    return new VersionNotFoundError(subject.promptId, subject.version, message);
  }
  if (status === 404 && code === 'LABEL_NOT_FOUND' && subject.promptId !== undefined && subject.label !== undefined) {
    return new LabelNotFoundError(subject.promptId, subject.label, message);
  }
  if (status === 404) return new NotFoundError(subject.promptId ?? '', message);
  if (status === 400) return new BadRequestError(message);
  return new PromptClientError('UNEXPECTED_RESPONSE', message, { status });
}

function parseErrorBody(text: string): ErrorBody {
  try {
    const body: unknown = JSON.parse(text);
    return body !== null && typeof body === 'object' ? (body as ErrorBody) : {};
  } catch {
    return {};
  }
}

/** Retry-After is delay-seconds or an HTTP date (RFC 9110 10.2.3). */
function retryAfterOf(header: string | null, now: number): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function describe(error: unknown): string {
  // Duck-typed: an error thrown by the runtime's fetch may come from another realm than this code's Error.
  const { message, cause } = (error ?? {}) as { message?: unknown; cause?: unknown };
  if (typeof message !== 'string') return String(error);
  // Node's fetch says only "fetch failed"; the reason (ECONNREFUSED, ...) is its cause.
  const { code, message: causeMessage } = (cause ?? {}) as { code?: unknown; message?: unknown };
  const detail = typeof code === 'string' ? code : typeof causeMessage === 'string' ? causeMessage : undefined;
  return detail === undefined ? message : `${message} (${detail})`;
}
