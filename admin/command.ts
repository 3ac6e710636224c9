import type { ParseArgsConfig } from 'node:util';
import type { AccountImporter } from './table/account-importer';
import type { PromptStore } from '../lambda/read-api/store/api-store';
import type { VersionReader } from './table/version-reader';
import type { Operations } from '../lambda/operations';
import { requireAccount } from '../lambda/features/accounts/accounts';
import type { Table } from '../lambda/table/table';

/** One admin command: its words (`keys create`), its help, its options, and what it does. */
export interface Command {
  readonly words: readonly string[];
  readonly summary: string;
  /** After the command's words: `--name <name> --plan <free|pro> [--id <accountId>]`. */
  readonly synopsis: string;
  /** One line per option or remark, shown by --help. */
  readonly help: readonly string[];
  readonly examples: readonly string[];
  readonly options: NonNullable<ParseArgsConfig['options']>;
  /** How many positional arguments the command takes. */
  readonly positionals?: { readonly min: number; readonly max: number };
  run(context: CommandContext, args: CommandArgs): Promise<CommandResult>;
}

export interface CommandArgs {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
}

export interface CommandContext {
  /**
   * The bulk import (`prompts import`), audited in each account it names; every other change goes through
   * operations(). Like the rest, connected on first use, so --help and bad input never need a store.
   */
  importer(): AccountImporter;
  /** The same store read as the API reads it: published, visible prompts only. */
  promptReader(): PromptStore;
  /** One stored version's content, drafts included; same store, same connection as table(). */
  versions(): VersionReader;
  /** The table as the shared operations use it (lambda/table/). */
  table(): Table;
  /** The operations the management API makes too, recorded in the audit log as `cli` with the operator's name. */
  operations(): Operations;
  now(): Date;
}

/**
 * The operations, for a change to an account: the CLI's check at the door, as membership is the management API's.
 * An account that does not exist is refused (exit 1) before anything is written, its audit log included.
 */
export async function operationsOn(context: CommandContext, accountId: string): Promise<Operations> {
  await requireAccount(context.table(), accountId);
  return context.operations();
}

/** What a command tells: `json` for --json (scripts), `text` for people. */
export interface CommandResult {
  readonly json: unknown;
  readonly text: string;
  /** Not 0 when the command ran but found what a script must stop on (`prompts diff`: drift). */
  readonly exitCode?: number;
  /** What the operator should hear about though the command did its job (a file in a prompt folder it did not read): on stderr. */
  readonly warnings?: readonly string[];
}

/** Wrong words, options or values: exit 2 and a one-line reason. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function stringOption(args: CommandArgs, name: string): string | undefined {
  const value = args.values[name];
  return typeof value === 'string' ? value : undefined;
}

export function requiredOption(args: CommandArgs, name: string): string {
  const value = stringOption(args, name);
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

/** Columns padded to their widest cell, for people; scripts use --json. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '';
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
