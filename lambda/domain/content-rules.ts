/**
 * What a version's content and a key's settings must be, wherever they come from: the seed file and
 * the CLI (admin/) and the management API (lambda/management-api/schemas.ts) check the same rules.
 */

/**
 * A version's content must fit one store item (400 KB), with room for its keys; the prompt's head
 * holds a copy of its latest version, so the same bound keeps the head within the limit too.
 */
export const MAX_CONTENT_BYTES = 300 * 1024;
/** DynamoDB nests at most 32 levels; config and inputData sit a few levels down already. */
export const MAX_INPUT_DATA_DEPTH = 24;
export const MAX_MODEL_LENGTH = 256;
export const TEMPERATURE_RANGE = { min: 0, max: 2 } as const;

/** How many bytes a version's content takes, as it is bounded above. */
export const contentBytes = (content: { systemMessage: string; userMessage: string; config: unknown }): number =>
  Buffer.byteLength(JSON.stringify({ systemMessage: content.systemMessage, userMessage: content.userMessage, config: content.config }));

export function nestingDepth(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const inner = Array.isArray(value) ? value : Object.values(value);
  return 1 + inner.reduce<number>((deepest, item) => Math.max(deepest, nestingDepth(item)), 0);
}

/** An ISO 8601 instant with its time zone (`2026-12-31T23:59:59Z`), as epoch milliseconds. */
export function parseInstant(value: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
