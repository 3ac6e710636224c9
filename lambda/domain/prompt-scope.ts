/**
 * Which prompts a key may read: exact prompt ids and id prefixes written with a trailing `*` (`web.*`
 * reads every prompt whose id starts with `web.`). A key without a scope reads its whole account.
 */
export type PromptScope = readonly string[];

/** Each entry is stored on the key item that every request updates: kept small, so the item stays small. */
export const MAX_SCOPE_ENTRIES = 50;

/** A prompt id, or a prefix of one followed by `*`. */
export const SCOPE_ENTRY_PATTERN = /^(?:[A-Za-z0-9_.-]{1,128}|[A-Za-z0-9_.-]{1,127}\*)$/;

export function isValidScopeEntry(entry: string): boolean {
  return SCOPE_ENTRY_PATTERN.test(entry);
}

export function isInScope(scope: PromptScope | undefined, promptId: string): boolean {
  if (scope === undefined) return true;
  return scope.some((entry) => (entry.endsWith('*') ? promptId.startsWith(entry.slice(0, -1)) : entry === promptId));
}

export function sameScope(a: PromptScope | undefined, b: PromptScope | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((entry, i) => entry === b[i]);
}
