import { isPlan, type Plan, PLANS } from './plans';
import { isValidPromptId } from '../lambda/domain/prompt';
import { isValidVersion } from '../lambda/domain/version';
import { isSettableLabel, LABEL_RULE } from '../lambda/domain/label';
import { ACCOUNT_ID_RULE, isValidAccountId } from './account-id';
import { type CommandArgs, requiredOption, stringOption, UsageError } from './command';
import { JsonSyntaxError, parseJsonText } from './json-text';

/** Option values checked before anything touches the store. Messages never repeat a value that could be a key. */

export function accountOption(args: CommandArgs, name = 'account'): string {
  const value = requiredOption(args, name);
  if (!isValidAccountId(value)) throw new UsageError(`--${name} must be an account id: ${ACCOUNT_ID_RULE}`);
  return value;
}

export function planOption(args: CommandArgs): Plan {
  const value = requiredOption(args, 'plan');
  if (!isPlan(value)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
  return value;
}

const KEY_ID_PATTERN = /^key_[0-9a-f]{16}$/;

export function keyIdOption(args: CommandArgs): string {
  const value = requiredOption(args, 'key');
  if (!KEY_ID_PATTERN.test(value)) {
    throw new UsageError('--key must be a key id such as key_0123456789abcdef (see `keys list`), never the key itself');
  }
  return value;
}

export function promptIdOption(args: CommandArgs): string {
  const value = requiredOption(args, 'prompt');
  if (!isValidPromptId(value)) throw new UsageError('--prompt must be 1 to 128 characters of A-Z a-z 0-9 _ . -');
  return value;
}

export function versionOption(args: CommandArgs, name = 'version'): string {
  const value = requiredOption(args, name);
  if (!isValidVersion(value)) {
    throw new UsageError(`--${name} must be MAJOR.MINOR.PATCH (digits, no leading zeros, e.g. 1.2.0)`);
  }
  return value;
}

export function labelOption(args: CommandArgs): string {
  const value = requiredOption(args, 'label');
  if (!isSettableLabel(value)) throw new UsageError(`--label must be ${LABEL_RULE}; "latest" is reserved for the highest published version`);
  return value;
}

export function countOption(args: CommandArgs, name: string): number | undefined {
  const value = stringOption(args, name);
  if (value === undefined) return undefined;
  const count = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(count)) throw new UsageError(`--${name} must be a whole number of 0 or more`);
  return count;
}

const MONTH_PATTERN = /^\d{4}-(0[1-9]|1[0-2])$/;

export function monthOption(args: CommandArgs, fallback: string): string {
  const value = stringOption(args, 'month');
  if (value === undefined) return fallback;
  if (!MONTH_PATTERN.test(value)) throw new UsageError('--month must be YYYY-MM, e.g. 2026-11');
  return value;
}

export function jsonOption(args: CommandArgs, name: string): unknown {
  const value = stringOption(args, name);
  if (value === undefined) return undefined;
  try {
    return parseJsonText(value);
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    const where = error.line === 1 ? `column ${error.column}` : `line ${error.line}, column ${error.column}`;
    throw new UsageError(`--${name} must be JSON: at ${where}, ${error.reason}`);
  }
}
