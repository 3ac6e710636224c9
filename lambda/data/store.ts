import type { Plan } from '../domain/plans';
import type { Prompt, PromptWithVersions } from '../domain/prompt';

/** What the API reads and counts. The DynamoDB implementation is dynamo-store.ts; tests may use others. */

export type ApiKeyStatus = 'active' | 'revoked';

export interface ApiKeyRecord {
  readonly keyHash: string;
  readonly keyId: string;
  readonly accountId: string;
  readonly status: ApiKeyStatus;
  /** Overrides the account plan's monthly limit when set. */
  readonly monthlyLimit: number | undefined;
}

export interface AccountRecord {
  readonly accountId: string;
  readonly name: string;
  readonly plan: Plan;
}

export type UsageGrant =
  | { readonly granted: true; readonly used: number }
  /** `used` is the count the store holds; it may exceed the limit if the limit was lowered this month. */
  | { readonly granted: false; readonly used: number };

export type PromptLookup =
  | { readonly found: true; readonly prompt: Prompt }
  | { readonly found: false; readonly reason: 'prompt-not-found' | 'version-not-found' };

export interface KeyStore {
  findApiKey(keyHash: string): Promise<ApiKeyRecord | undefined>;
  findAccount(accountId: string): Promise<AccountRecord | undefined>;
}

export interface UsageStore {
  /** Takes one unit of the key's monthly quota, atomically, only while the count is below `limit`. */
  takeUsageUnit(keyHash: string, month: string, limit: number): Promise<UsageGrant>;
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

export type ApiStore = KeyStore & UsageStore & PromptStore;

/** The store could not answer (throttled, unreachable, failing) after the SDK's own retries. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}
