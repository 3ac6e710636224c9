import { LruCache } from '../cache/lru-cache';
import type { Prompt, PromptWithVersions } from '../domain/prompt';
import type { PromptLookup, PromptStore } from './store';

export interface PromptCacheOptions {
  /** Pinned versions kept; a published version never changes, so entries never expire. */
  readonly maxVersions: number;
  /** Memory the kept versions may take, counted as the characters of their text fields. */
  readonly maxCharacters: number;
  /**
   * How long a pinned version may be served from memory without asking the store whether its prompt
   * still exists: deleting a prompt hides its pinned versions within this bound.
   */
  readonly visibilityTtlMs: number;
  readonly now?: () => number;
}

export const DEFAULT_PROMPT_CACHE: PromptCacheOptions = {
  maxVersions: 2_000,
  maxCharacters: 16_000_000,
  visibilityTtlMs: 60_000,
};

function charactersOf(prompt: Prompt): number {
  return prompt.systemMessage.length + prompt.userMessage.length + JSON.stringify(prompt.config).length;
}

/**
 * Pinned versions from memory. Published versions are immutable, so a warm container answers a pinned
 * fetch with no prompt read at all; only the prompt's visibility (not deleted) is re-checked, at most
 * every `visibilityTtlMs`. Latest and the list always go to the store: they change with every publish.
 */
export class CachedPromptStore implements PromptStore {
  private readonly versions: LruCache<Prompt>;
  private readonly checkedAt: LruCache<true>;

  constructor(
    private readonly store: PromptStore,
    options: PromptCacheOptions = DEFAULT_PROMPT_CACHE,
  ) {
    this.versions = new LruCache<Prompt>({
      maxEntries: options.maxVersions,
      maxSize: options.maxCharacters,
      sizeOf: charactersOf,
      now: options.now,
    });
    this.checkedAt = new LruCache<true>({
      maxEntries: options.maxVersions,
      ttlMs: options.visibilityTtlMs,
      now: options.now,
    });
  }

  async findPromptVersion(accountId: string, promptId: string, version: string): Promise<PromptLookup> {
    const key = `${accountId}\u0000${promptId}\u0000${version}`;
    const cached = this.versions.get(key);
    if (cached && this.checkedAt.get(key)) return { found: true, prompt: cached };
    const lookup = await this.store.findPromptVersion(accountId, promptId, version);
    if (lookup.found) {
      this.versions.set(key, lookup.prompt);
      this.checkedAt.set(key, true);
    } else {
      this.versions.delete(key);
    }
    return lookup;
  }

  findLatestPrompt(accountId: string, promptId: string): Promise<PromptLookup> {
    return this.store.findLatestPrompt(accountId, promptId);
  }

  listPrompts(accountId: string): Promise<Prompt[]> {
    return this.store.listPrompts(accountId);
  }

  listPromptsWithVersions(accountId: string): Promise<PromptWithVersions[]> {
    return this.store.listPromptsWithVersions(accountId);
  }
}
