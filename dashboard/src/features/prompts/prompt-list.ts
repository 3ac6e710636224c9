import type { PromptListEntry } from '../../api/types';

/**
 * The prompt list as people narrow it (docs/management-api.md, "The dashboard": Prompts): words found in ids, names,
 * descriptions, tags and labels; a label; a tag; and the order (by id, by name, or last changed first).
 */
export type PromptSort = 'id' | 'name' | 'changed';

export interface PromptListView {
  readonly text: string;
  readonly label: string;
  readonly tag: string;
  readonly sort: PromptSort;
}

export const ALL_PROMPTS: PromptListView = { text: '', label: '', tag: '', sort: 'id' };

const searchable = (prompt: PromptListEntry): string =>
  [prompt.promptId, prompt.promptName, prompt.description ?? '', ...prompt.tags, ...Object.keys(prompt.labels), prompt.latestVersion ?? '']
    .join(' ')
    .toLowerCase();

export function promptsShown(prompts: readonly PromptListEntry[], view: PromptListView): PromptListEntry[] {
  const words = view.text.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = prompts.filter((prompt) => {
    if (view.label !== '' && !Object.hasOwn(prompt.labels, view.label)) return false;
    if (view.tag !== '' && !prompt.tags.includes(view.tag)) return false;
    const text = searchable(prompt);
    return words.every((word) => text.includes(word));
  });
  const byId = (a: PromptListEntry, b: PromptListEntry) => (a.promptId < b.promptId ? -1 : a.promptId > b.promptId ? 1 : 0);
  if (view.sort === 'name') return shown.sort((a, b) => a.promptName.localeCompare(b.promptName) || byId(a, b));
  // Newest change first; prompts never changed go last.
  if (view.sort === 'changed') return shown.sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? '') || byId(a, b));
  return shown.sort(byId);
}

/** The labels and tags the account's prompts carry, each once, to filter by. */
export function facetsOf(prompts: readonly PromptListEntry[]): { labels: string[]; tags: string[] } {
  const labels = new Set<string>();
  const tags = new Set<string>();
  for (const prompt of prompts) {
    for (const label of Object.keys(prompt.labels)) labels.add(label);
    for (const tag of prompt.tags) tags.add(tag);
  }
  return { labels: [...labels].sort(), tags: [...tags].sort() };
}

/** Tags as a person types them: separated by commas or spaces, each once, in the order typed. */
export function tagsFromText(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/[\s,]+/)
        .map((tag) => tag.trim())
        .filter(Boolean),
    ),
  ];
}
