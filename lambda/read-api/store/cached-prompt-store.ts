import { LruCache } from './lru-cache';
import type { Prompt, PromptWithVersions } from '../../domain/prompt';
import type { AtLabel, PromptLookup, PromptReader, PromptStore } from './api-store';

export interface PromptCacheOptions {
  /** Pinned versions kept, at most. */
  readonly maxVersions: number;
  /** Memory the kept versions may take, counted as the characters of their text fields. */
  readonly maxCharacters: number;
  /** Answers of latest, labels and lists kept, at most. */
  readonly maxAnswers: number;
  /** Memory the kept answers may take, counted as for versions: a 1,500-prompt list is about 2 million. */
  readonly maxAnswerCharacters: number;
}

export const DEFAULT_PROMPT_CACHE: PromptCacheOptions = {
  maxVersions: 2_000,
  maxCharacters: 16_000_000,
  maxAnswers: 2_000,
  maxAnswerCharacters: 16_000_000,
};

/** What an answer of latest, a label or a list holds: one lookup, or a list with or without versions. */
export type RememberedAnswer = PromptLookup | readonly AtLabel<Prompt>[] | readonly AtLabel<PromptWithVersions>[];
type Answer = RememberedAnswer;

/**
 * The answers one request relied on before it read (its admission counted the rollout sides they give, docs/rollouts.md
 * "Served counts"): under their revision the request is answered from these, whatever memory keeps or drops meanwhile,
 * so that what it answers is what was counted.
 */
export class HeldAnswers {
  private readonly entries = new Map<string, RememberedAnswer>();

  keep(key: string, answer: RememberedAnswer): void {
    this.entries.set(key, answer);
  }

  get(key: string): RememberedAnswer | undefined {
    return this.entries.get(key);
  }
}

/**
 * What a read at a label would answer from memory, asked without reading (the quota's admission asks it to
 * count the side a request will answer in its own write): undefined when the read would go to the store.
 */
export interface RememberedPrompts {
  rememberedLabelledPrompt(reader: PromptReader, promptId: string, label: string): PromptLookup | undefined;
  rememberedLabelledList(reader: PromptReader, label: string, withVersions: boolean): readonly AtLabel<Prompt>[] | undefined;
}

/** Every answer costs at least this much, so that a flood of small ones (404s) is bounded in entries and size. */
const ANSWER_OVERHEAD = 100;

function charactersOf(prompt: Prompt): number {
  return prompt.promptId.length + prompt.promptName.length + prompt.systemMessage.length + prompt.userMessage.length + JSON.stringify(prompt.config).length;
}

/** A rollout holds a second copy of the prompt: the version it moves to. */
const charactersOfRollout = (rollout: AtLabel<Prompt>['rollout']): number => (rollout ? rollout.rolloutId.length + charactersOf(rollout.to) : 0);

function charactersOfAnswer(answer: Answer): number {
  if (!Array.isArray(answer)) {
    const lookup = answer as PromptLookup;
    return ANSWER_OVERHEAD + (lookup.found ? charactersOf(lookup.prompt) + charactersOfRollout(lookup.rollout) : 0);
  }
  let total = ANSWER_OVERHEAD;
  for (const prompt of answer as readonly AtLabel<Prompt & Partial<PromptWithVersions>>[]) {
    total += charactersOf(prompt) + charactersOfRollout(prompt.rollout);
    for (const published of prompt.publishedVersions ?? []) total += published.version.length + published.userMessage.length;
  }
  return total;
}

/**
 * Prompts from memory, under the account's prompt revision. Every change to what the API serves of an
 * account's prompts (a publish, a label set, moved or removed, a delete, a restore, an import of any of
 * these) raises the revision and copies it to each of the account's keys (lambda/table/propagation.ts),
 * and each request learns it from the key it already updates: an answer is served only under the
 * revision it was read under, so a change applies from the very next request, and a warm container
 * answers every route with that one update. The first request after a change reads again.
 *
 * The key's scope is not part of an entry: answers are the account's, and the handlers apply the scope
 * to what comes back (a prompt outside it is never looked up; a list is filtered), so a key whose scope
 * changes sees its new scope with the same entries. A request never answers from an entry older than the
 * revision its own admission returned: when it read under a revision remembered from an earlier request
 * and the admission says otherwise, the dispatcher reads again under the new one (handlers/api-handler.ts).
 */
export class CachedPromptStore implements PromptStore, RememberedPrompts {
  private readonly versions: LruCache<Prompt>;
  private readonly answers: LruCache<Answer>;

  constructor(
    private readonly store: PromptStore,
    options: PromptCacheOptions = DEFAULT_PROMPT_CACHE,
  ) {
    this.versions = new LruCache<Prompt>({
      maxEntries: options.maxVersions,
      maxSize: options.maxCharacters,
      sizeOf: charactersOf,
    });
    this.answers = new LruCache<Answer>({
      maxEntries: options.maxAnswers,
      maxSize: options.maxAnswerCharacters,
      sizeOf: charactersOfAnswer,
    });
  }

  /** Answers kept now, and their size as counted against maxAnswerCharacters. */
  get answersKept(): { entries: number; characters: number } {
    return { entries: this.answers.size, characters: this.answers.totalSize };
  }

  async findPromptVersion(reader: PromptReader, promptId: string, version: string): Promise<PromptLookup> {
    const key = entryKey(reader, 'version', promptId, version);
    const cached = this.versions.get(key);
    if (cached) return { found: true, prompt: cached };
    const lookup = await this.store.findPromptVersion(reader, promptId, version);
    if (lookup.found) this.versions.set(key, lookup.prompt);
    return lookup;
  }

  /** NOT_FOUND is kept too: publishing a new prompt, or restoring one, raises the revision. */
  findLatestPrompt(reader: PromptReader, promptId: string): Promise<PromptLookup> {
    return this.remembered(reader, entryKey(reader, 'latest', promptId), () => this.store.findLatestPrompt(reader, promptId));
  }

  /** LABEL_NOT_FOUND is kept too: setting a label raises the revision. */
  findLabelledPrompt(reader: PromptReader, promptId: string, label: string): Promise<PromptLookup> {
    return this.remembered(reader, entryKey(reader, 'label', promptId, label), () => this.store.findLabelledPrompt(reader, promptId, label));
  }

  listLabelledPrompts(reader: PromptReader, label: string): Promise<AtLabel<Prompt>[]> {
    return this.remembered(reader, listAtKey(reader, label, false), () => this.store.listLabelledPrompts(reader, label));
  }

  listLabelledPromptsWithVersions(reader: PromptReader, label: string): Promise<AtLabel<PromptWithVersions>[]> {
    return this.remembered(reader, listAtKey(reader, label, true), () => this.store.listLabelledPromptsWithVersions(reader, label));
  }

  /** Held for the reader's request (`reader.held`): its read under the same revision is answered from this one. */
  rememberedLabelledPrompt(reader: PromptReader, promptId: string, label: string): PromptLookup | undefined {
    const key = entryKey(reader, 'label', promptId, label);
    const answer = this.answers.get(key);
    if (answer === undefined || Array.isArray(answer)) return undefined;
    reader.held?.keep(key, answer);
    return answer as PromptLookup;
  }

  /** Held for the reader's request, as rememberedLabelledPrompt. */
  rememberedLabelledList(reader: PromptReader, label: string, withVersions: boolean): readonly AtLabel<Prompt>[] | undefined {
    const key = listAtKey(reader, label, withVersions);
    const answer = this.answers.get(key);
    if (!Array.isArray(answer)) return undefined;
    reader.held?.keep(key, answer);
    return answer;
  }

  listPrompts(reader: PromptReader): Promise<Prompt[]> {
    return this.remembered(reader, entryKey(reader, 'list'), () => this.store.listPrompts(reader));
  }

  listPromptsWithVersions(reader: PromptReader): Promise<PromptWithVersions[]> {
    return this.remembered(reader, entryKey(reader, 'list+versions'), () => this.store.listPromptsWithVersions(reader));
  }

  /** Callers only read what they are given (the handlers filter and serialize), so one copy serves all. */
  private async remembered<A extends Answer>(reader: PromptReader, key: string, read: () => Promise<A>): Promise<A> {
    const cached = reader.held?.get(key) ?? this.answers.get(key);
    if (cached !== undefined) return cached as A;
    const answer = await read();
    this.answers.set(key, answer);
    return answer;
  }
}

const listAtKey = (reader: PromptReader, label: string, withVersions: boolean): string =>
  entryKey(reader, withVersions ? 'list+versions at' : 'list at', label);

/** Account and revision first: an entry read under another revision, or for another account, never matches. */
function entryKey(reader: PromptReader, kind: string, ...query: string[]): string {
  return [reader.accountId, String(reader.promptsRevision), kind, ...query].join('\u0000');
}
