import type { Prompt, PromptWithVersions } from '../domain/prompt';

/** What the API reads and counts. The DynamoDB implementation is dynamo-store.ts; tests may use others. */

/** An active key, as its item stood right after a unit was taken (or refused). */
export interface AdmittedKey {
  readonly keyId: string;
  readonly accountId: string;
  /** The monthly limit in force: the key's own, else its plan's. */
  readonly limit: number;
  /** This month's count, including the unit just taken when admitted. */
  readonly used: number;
}

export type Admission =
  | { readonly admitted: true; readonly key: AdmittedKey }
  /** Unknown and revoked keys are indistinguishable to callers. */
  | { readonly admitted: false; readonly reason: 'invalid-key' }
  | { readonly admitted: false; readonly reason: 'limit-reached'; readonly key: AdmittedKey };

export type PromptLookup =
  | { readonly found: true; readonly prompt: Prompt }
  | { readonly found: false; readonly reason: 'prompt-not-found' | 'version-not-found' };

export interface UsageStore {
  /**
   * Verifies the key and takes one unit of its monthly quota in one atomic step: only an active key
   * under its limit is counted, so no interleaving of requests can pass the limit.
   */
  admit(keyHash: string, month: string): Promise<Admission>;
  /** Gives back a unit taken for a request that failed on our side. */
  returnUsageUnit(keyHash: string, month: string): Promise<void>;
}

export interface PromptStore {
  /** The prompt at its highest published version. */
  findLatestPrompt(accountId: string, promptId: string): Promise<PromptLookup>;
  findPromptVersion(accountId: string, promptId: string, version: string): Promise<PromptLookup>;
  /** Every visible prompt of the account, ordered by promptId, however many store pages that takes. */
  listPrompts(accountId: string): Promise<Prompt[]>;
  listPromptsWithVersions(accountId: string): Promise<PromptWithVersions[]>;
}

export type ApiStore = UsageStore & PromptStore;

/** The store could not answer (throttled, unreachable, failing) after the SDK's own retries. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}
