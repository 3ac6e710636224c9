import { LruCache } from '../cache/lru-cache';
import type { Prompt, PromptWithVersions } from '../domain/prompt';
import type { PromptLookup, PromptReader, PromptStore } from './store';

export interface PromptCacheOptions {
  /** Pinned versions kept, at most. */
  readonly maxVersions: number;
  /** Memory the kept versions may take, counted as the characters of their text fields. */
  readonly maxCharacters: number;
}

export const DEFAULT_PROMPT_CACHE: PromptCacheOptions = {
  maxVersions: 2_000,
  maxCharacters: 16_000_000,
};

function charactersOf(prompt: Prompt): number {
  return prompt.systemMessage.length + prompt.userMessage.length + JSON.stringify(prompt.config).length;
}

/**
 * Pinned versions from memory: a published version never changes, so a warm container answers a pinned
 * fetch with no prompt read at all. Whether its prompt is still visible (not deleted) is what can change,
 * and every delete changes the account's prompt revision, which each request learns from the key it
 * already updates: a copy is served only under the revision it was read under, so a delete applies from
 * the very next request. Latest, labels and the lists always go to the store: they change with every publish
 * and every label move.
 */
export class CachedPromptStore implements PromptStore {
  private readonly versions: LruCache<Prompt>;

  constructor(
    private readonly store: PromptStore,
    options: PromptCacheOptions = DEFAULT_PROMPT_CACHE,
  ) {
    this.versions = new LruCache<Prompt>({
      maxEntries: options.maxVersions,
      maxSize: options.maxCharacters,
      sizeOf: charactersOf,
    });
  }

  async findPromptVersion(reader: PromptReader, promptId: string, version: string): Promise<PromptLookup> {
    const key = [reader.accountId, reader.promptsRevision, promptId, version].join('\u0000');
    const cached = this.versions.get(key);
    if (cached) return { found: true, prompt: cached };
    const lookup = await this.store.findPromptVersion(reader, promptId, version);
    if (lookup.found) this.versions.set(key, lookup.prompt);
    return lookup;
  }

  findLatestPrompt(reader: PromptReader, promptId: string): Promise<PromptLookup> {
    return this.store.findLatestPrompt(reader, promptId);
  }

  /**
   * Labels move, so they go to the store like latest. Every move raises the account's prompt revision
   * (admin/store/labels.ts), as a delete does: a copy kept under a revision is never stale.
   */
  findLabelledPrompt(reader: PromptReader, promptId: string, label: string): Promise<PromptLookup> {
    return this.store.findLabelledPrompt(reader, promptId, label);
  }

  listLabelledPrompts(reader: PromptReader, label: string): Promise<Prompt[]> {
    return this.store.listLabelledPrompts(reader, label);
  }

  listLabelledPromptsWithVersions(reader: PromptReader, label: string): Promise<PromptWithVersions[]> {
    return this.store.listLabelledPromptsWithVersions(reader, label);
  }

  listPrompts(reader: PromptReader): Promise<Prompt[]> {
    return this.store.listPrompts(reader);
  }

  listPromptsWithVersions(reader: PromptReader): Promise<PromptWithVersions[]> {
    return this.store.listPromptsWithVersions(reader);
  }
}
