/**
 * What a version's content and a key's settings must be, wherever they come from: the seed file and
 * the CLI (admin/) and the management API (its contracts, lambda/management-api/handlers/*-contracts.ts) check the
 * same rules. No Node API here: the contracts are the dashboard's too.
 */

/**
 * A version's content must fit one store item (400 KB), with room for its keys; the prompt's head
 * holds a copy of its latest version, so the same bound keeps the head within the limit too.
 */
export const MAX_CONTENT_BYTES = 300 * 1024;
/**
 * How deep `inputData` and `schema` may nest. Every reader of a version (the read API's bodies, ETags,
 * the seed file, the store) walks them; a bound keeps each walk short, whoever sent the JSON.
 */
export const MAX_NESTING_DEPTH = 24;
export const NESTING_RULE = `must nest at most ${MAX_NESTING_DEPTH} levels deep`;
export const MAX_MODEL_LENGTH = 256;
export const TEMPERATURE_RANGE = { min: 0, max: 2 } as const;

/** How many bytes a version's content takes, as it is bounded above. */
export const contentBytes = (content: { systemMessage: string; userMessage: string; config: unknown }): number =>
  new TextEncoder().encode(JSON.stringify({ systemMessage: content.systemMessage, userMessage: content.userMessage, config: content.config })).byteLength;

/**
 * Whether JSON nests deeper than `max` levels (a scalar is 0, `[]` and `{}` are 1). It walks with a
 * stack of its own and stops at the first level past `max`, so no value is too deep to be answered:
 * a recursive walk would overflow the call stack first.
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, depth] = next;
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const inner of Array.isArray(current) ? current : Object.values(current)) pending.push([inner, depth + 1]);
  }
  return false;
}

/**
 * The same question of JSON text, before it is parsed: parsing is no recursion in V8, but 5 million
 * levels (a 10 MB body) take seconds and hundreds of MB, so a body that nests past any rule is refused
 * unread. Brackets inside strings do not count.
 */
export function textNestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === BACKSLASH) index += 1;
      else if (char === QUOTE) inString = false;
    } else if (char === QUOTE) inString = true;
    else if (char === OPEN_ARRAY || char === OPEN_OBJECT) {
      depth += 1;
      if (depth > max) return true;
    } else if (char === CLOSE_ARRAY || char === CLOSE_OBJECT) depth -= 1;
  }
  return false;
}

const [QUOTE, BACKSLASH, OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT] = ['"', '\\', '[', ']', '{', '}'].map((char) => char.charCodeAt(0));

/** An ISO 8601 instant with its time zone (`2026-12-31T23:59:59Z`), as epoch milliseconds. */
export function parseInstant(value: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
