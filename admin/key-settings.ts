import { isValidScopeEntry, MAX_SCOPE_ENTRIES, type PromptScope } from '../lambda/domain/prompt-scope';
import { type CommandArgs, stringOption, UsageError } from './command';

/** How API keys' scopes, expiries and grace periods are written by operators, in seed files and on the CLI. */

export const SCOPE_ENTRY_RULE = 'must be a prompt id (1 to 128 characters of A-Z a-z 0-9 _ . -) or a prefix of one followed by *, e.g. web.*';

export { parseInstant } from '../lambda/domain/content-rules';
import { parseInstant } from '../lambda/domain/content-rules';

const DURATION = /^(\d{1,6})(s|m|h|d)$/;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `90s`, `30m`, `24h`, `30d`, or `0`, as milliseconds. */
export function parseDuration(value: string): number | undefined {
  if (value === '0') return 0;
  const match = DURATION.exec(value);
  if (!match) return undefined;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** `welcome-email,web.*` as a scope, or what is wrong with it. */
export function parseScopeList(value: string): { scope: PromptScope } | { problem: string } {
  const entries = value.split(',').map((entry) => entry.trim());
  if (entries.length > MAX_SCOPE_ENTRIES) return { problem: `must list at most ${MAX_SCOPE_ENTRIES} prompt ids or prefixes` };
  const bad = entries.find((entry) => !isValidScopeEntry(entry));
  if (bad !== undefined) return { problem: `entry "${bad}" ${SCOPE_ENTRY_RULE}` };
  return { scope: [...new Set(entries)] };
}

export const describeScope = (scope: PromptScope | undefined): string => (scope ? scope.join(',') : 'all prompts');

/** `--scope a,web.*` (or `none` to clear, where clearing is meant): undefined when not given. */
export function scopeOption(args: CommandArgs, options: { clearable: boolean }): PromptScope | null | undefined {
  const value = stringOption(args, 'scope');
  if (value === undefined) return undefined;
  if (options.clearable && value === 'none') return null;
  const parsed = parseScopeList(value);
  if ('problem' in parsed) throw new UsageError(`--scope ${parsed.problem}`);
  return parsed.scope;
}

/** `--expires 2026-12-31T00:00:00Z` or `--expires 30d` (from now), or `never` to clear where meant. */
export function expiresOption(args: CommandArgs, now: Date, options: { clearable: boolean }): number | null | undefined {
  const value = stringOption(args, 'expires');
  if (value === undefined) return undefined;
  if (options.clearable && value === 'never') return null;
  const after = parseDuration(value);
  if (after !== undefined && after > 0) return now.getTime() + after;
  const instant = parseInstant(value);
  if (instant === undefined) {
    throw new UsageError(
      `--expires must be an instant such as 2026-12-31T23:59:59Z or a time from now such as 30d, 12h or 90m${options.clearable ? ', or never' : ''}`,
    );
  }
  return instant;
}

export const DEFAULT_GRACE = '24h';

/** `--grace 24h` (the default), `--grace 0` for at once. */
export function graceOption(args: CommandArgs): number {
  const value = stringOption(args, 'grace') ?? DEFAULT_GRACE;
  const ms = parseDuration(value);
  if (ms === undefined) throw new UsageError('--grace must be a time such as 24h, 30m or 7d, or 0 to revoke the old key at once');
  return ms;
}

export { keyState } from '../lambda/domain/api-key';
