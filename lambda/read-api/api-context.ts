import type { PromptScope } from '../domain/prompt-scope';
import type { HttpContext } from '../http/http-context';
import type { HttpRequest } from '../http/http-event';
import type { Route } from './routes';
import type { ServedRollouts } from './served-rollouts';

/**
 * The caller, as far as it is known: the account (and its prompt revision) may be known from an
 * earlier request before this request's key check has answered.
 */
export interface Principal {
  readonly keyHash: string;
  readonly accountId: string;
  readonly promptsRevision: number;
  readonly scope?: PromptScope;
}

/** The key's quota for this request, once the store has answered. */
export interface UsageState {
  readonly month: string;
  /** The UTC day of the month the unit was counted on. */
  readonly day: string;
  readonly limit: number;
  readonly resetsAt: number;
  used: number;
  /** A unit was taken for this request, and must be given back if it ends in 5xx. */
  charged: boolean;
  /** Why a unit taken for a failed request could not be given back, if it could not. */
  returnFailure?: string;
  /** Why the rollout sides this request answered could not be counted, if they could not. */
  servedCountFailure?: string;
}

/** What the read API's middleware learns about a request, in the order it learns it. */
export interface ApiContext extends HttpContext {
  httpRequest?: HttpRequest;
  route?: Route;
  /** The SHA-256 hash of the presented key: the key itself is never kept. */
  keyHash?: string;
  keyId?: string;
  /**
   * Whether the request reads prompts, and so costs a unit. Every GET does; an MCP message that touches no
   * prompt (`initialize`, `ping`, `tools/list`, a notification) does not: its key is checked, nothing counted.
   */
  readsPrompts?: boolean;
  principal?: Principal;
  /**
   * Settles when the store has verified the key and counted the request; rejects with the 401, 429 or
   * 503 the request must end with. The handler may run meanwhile, but its answer waits for this.
   */
  admission?: Promise<void>;
  usage?: UsageState;
  /** The rollout sides the request decides, counts and answers (read-api/served-rollouts.ts). */
  servedRollouts?: ServedRollouts;
}
