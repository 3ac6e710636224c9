/**
 * A key's scope as the keys page builds it: exact prompt ids and id prefixes (`web.*`), checked against the
 * account's prompts as they are picked, so a typo is pointed out before the key is made. The rule of what a scope
 * entry may be is the API's; this only says what an entry matches today.
 */

/** An entry the person may add: a prompt id, or a prefix ending in `*` (the API checks the rest). */
export function scopeEntryOf(text: string): string | undefined {
  const entry = text.trim();
  return entry === '' || /\s/.test(entry) ? undefined : entry;
}

/** What an entry matches among the account's prompt ids, in words; `missing` when it matches none. */
export function scopeMatch(entry: string, promptIds: readonly string[]): { readonly matches: number; readonly words: string } {
  if (entry.endsWith('*')) {
    const prefix = entry.slice(0, -1);
    const matches = promptIds.filter((id) => id.startsWith(prefix)).length;
    return { matches, words: matches === 0 ? `no prompt starts with ${prefix} yet` : `${matches} ${matches === 1 ? 'prompt' : 'prompts'} today` };
  }
  const exists = promptIds.includes(entry);
  return { matches: exists ? 1 : 0, words: exists ? 'this prompt' : 'no prompt has this id in this account' };
}

/** Prefixes worth offering: every id's part before its last `.`, `-` or `_`, each once. */
export function prefixSuggestions(promptIds: readonly string[]): string[] {
  const prefixes = new Set<string>();
  for (const id of promptIds) {
    const cut = Math.max(id.lastIndexOf('.'), id.lastIndexOf('-'), id.lastIndexOf('_'));
    if (cut > 0) prefixes.add(`${id.slice(0, cut + 1)}*`);
  }
  return [...prefixes].sort();
}
