import { type ParseArgsConfig, parseArgs } from 'node:util';
import { ConfigError, loadStoreConfig, type StoreConfig } from '../lambda/config';
import { createDocumentClient } from '../lambda/table/client';
import { AccountImporter } from './table/account-importer';
import { ConflictError, NotFoundError, StoreUnavailableError } from '../lambda/table/errors';
import { DynamoStore } from '../lambda/read-api/store/dynamo-store';
import { type Command, type CommandContext, UsageError } from './command';
import { accountCommands } from './commands/accounts';
import { keyCommands } from './commands/keys';
import { promptLabelCommands } from './commands/prompt-labels';
import { promptRolloutCommands } from './commands/prompt-rollouts';
import { promptVersionCommands } from './commands/prompt-versions';
import { promptCommands } from './commands/prompts';
import { promptFolderCommands } from './commands/prompts-folder';
import { usageCommands } from './commands/usage';
import { memberCommands } from './commands/members';
import { webhookCommands } from './commands/webhooks';
import { Operations } from '../lambda/operations';
import { webhookToolsFromConfig, type WebhookTools } from '../lambda/webhook-delivery/sealer-from-config';
import { Table } from '../lambda/table/table';
import { directoryFor } from '../lambda/users/directory-from-config';
import type { UserDirectory } from '../lambda/users/user-directory';
import { loadUserPoolConfig, loadWebhookConfig } from '../lambda/config';
import { cliOperator } from './operator';
import { InputError } from './input-reader';
import { PromptFileError } from './prompt-files/prompt-file';
import { SeedError } from './seed-file';
import { VersionReader } from './table/version-reader';
import { InvalidLabelError, InvalidRolloutError, InvalidWebhookError } from '../lambda/features/errors';

/** How the help and hints name the CLI: npx passes every argument on, where `npm run admin` needs a `--` first. */
export const PROGRAM = 'prompts-admin';
export const COMMANDS: readonly Command[] = [
  ...accountCommands,
  ...keyCommands,
  ...promptCommands,
  ...promptVersionCommands,
  ...promptLabelCommands,
  ...promptRolloutCommands,
  ...promptFolderCommands,
  ...usageCommands,
  ...memberCommands,
  ...webhookCommands,
];

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

type Environment = Readonly<Record<string, string | undefined>>;

/** Exit statuses: scripts can tell "you asked wrongly" from "the store said no". */
export const EXIT = { ok: 0, refused: 1, badInput: 2 } as const;

const COMMON_OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Taken wherever they stand on the line: `accounts --json list` is as good as `accounts list --json`. */
const ANYWHERE_FLAGS = ['--json', '--help', '-h'];

/** What a test may hand the CLI instead of what the environment names. */
export interface CliServices {
  readonly directory?: UserDirectory;
  readonly webhooks?: WebhookTools;
}

export async function runAdmin(argv: readonly string[], env: Environment, io: CliIo, now = () => new Date(), services: CliServices = {}): Promise<number> {
  const json = argv.includes('--json');
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  const rest = argv.filter((arg) => !ANYWHERE_FLAGS.includes(arg));
  let client: ReturnType<typeof createDocumentClient> | undefined;
  let storeConfig: StoreConfig | undefined;
  try {
    const words = leadingWords(rest);
    const command = findCommand(words);
    const swallowed = flagsNpmKept(command, argv, env);
    if (swallowed.length > 0) throw new UsageError(npmKeptMessage(swallowed, command?.words ?? words));
    if (!command) {
      const help = groupHelp(words);
      if (wantsHelp || words.length === 0) {
        io.stdout(help);
        return wantsHelp ? EXIT.ok : EXIT.badInput;
      }
      throw new UsageError(unknownCommandMessage(words));
    }
    if (wantsHelp) {
      io.stdout(commandHelp(command));
      return EXIT.ok;
    }
    const args = parseCommandArgs(command, rest.slice(command.words.length));
    const connect = () => {
      storeConfig ??= loadStoreConfig(env);
      client ??= createDocumentClient({ region: storeConfig.region, endpoint: storeConfig.storeEndpoint });
      return { client, tableName: storeConfig.tableName };
    };
    // Every change the CLI makes is recorded in the account's audit log, as `cli` with the operator's name.
    const actor = () => ({ type: 'cli' as const, operator: cliOperator(env) });
    const context: CommandContext = {
      importer: () => {
        const store = connect();
        return new AccountImporter(store.client, store.tableName, now, actor());
      },
      versions: () => {
        const store = connect();
        return new VersionReader(store.client, store.tableName);
      },
      table: () => {
        const store = connect();
        return new Table(store.client, store.tableName, now);
      },
      operations: () => {
        const store = connect();
        return new Operations({
          table: new Table(store.client, store.tableName, now),
          actor: actor(),
          // The change stands; until the account's next change, warm functions may serve what they hold.
          onCopyFailed: (accountId, error) =>
            io.stderr(
              `warning: the change was made, but account ${accountId}'s keys did not get its new revision (${error instanceof Error ? error.name : 'unknown error'}): warm functions may serve the earlier prompts until the account's next change\n`,
            ),
          // Read only when a command adds someone: the other commands need no user pool.
          get directory() {
            return services.directory ?? directoryFor(loadUserPoolConfig(env));
          },
          // Read only when a command creates a webhook: sealing needs the stack's key (or a local key file).
          get webhooks() {
            return services.webhooks ?? requiredWebhookTools(env);
          },
        });
      },
      promptReader: () => {
        storeConfig ??= loadStoreConfig(env);
        client ??= createDocumentClient({ region: storeConfig.region, endpoint: storeConfig.storeEndpoint });
        // Operator reads: the same client both ways, with the operator tools' own timeouts and retries.
        return new DynamoStore({ reads: client, writes: client }, storeConfig.tableName);
      },
      now,
    };
    const result = await command.run(context, args);
    for (const warning of result.warnings ?? []) io.stderr(`warning: ${warning}\n`);
    io.stdout(json ? `${JSON.stringify(result.json, null, 2)}\n` : `${result.text}\n`);
    return result.exitCode ?? EXIT.ok;
  } catch (error) {
    const failure = describeFailure(error, storeConfig);
    io.stderr(
      json ? `${JSON.stringify({ error: failure.message, ...(failure.conflicts ? { conflicts: failure.conflicts } : {}) })}\n` : `admin: ${failure.message}\n`,
    );
    return failure.exitCode;
  } finally {
    client?.destroy();
  }
}

function requiredWebhookTools(env: Environment): WebhookTools {
  const tools = webhookToolsFromConfig(loadWebhookConfig(env));
  if (!tools) throw new ConfigError("webhooks need WEBHOOK_KEY_ID (the stack's KMS key, from its outputs) or, locally, WEBHOOK_LOCAL_KEY_FILE");
  return tools;
}

function leadingWords(argv: readonly string[]): string[] {
  const words: string[] = [];
  for (const arg of argv) {
    if (arg.startsWith('-') || words.length === 2) break;
    words.push(arg);
  }
  return words;
}

/** The longest command whose words start the arguments: `usage` takes none after it, `keys create` one. */
function findCommand(words: readonly string[]): Command | undefined {
  return COMMANDS.filter((command) => command.words.every((word, i) => words[i] === word)).sort((a, b) => b.words.length - a.words.length)[0];
}

type Options = NonNullable<ParseArgsConfig['options']>;

function parseCommandArgs(command: Command, rest: readonly string[]) {
  const options: Options = { ...command.options, ...COMMON_OPTIONS };
  const name = command.words.join(' ');
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: attachDashedValues(name, rest, options), options, allowPositionals: true, strict: true });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const unknown = /^Unknown option '([^']+)'/.exec((error as Error).message)?.[1];
    if (unknown !== undefined) {
      const nearest = nearestOption(unknown, options);
      throw new UsageError(`${name}: unknown option ${unknown}${nearest ? `: did you mean ${nearest}?` : ''} (see --help)`);
    }
    // Node's messages go on about `--`; the first sentence is the reason.
    const reason = (error as Error).message.split(/\.\s/)[0]?.replace(/\.$/, '') ?? 'bad arguments';
    throw new UsageError(`${name}: ${reason} (see --help)`);
  }
  const { min, max } = command.positionals ?? { min: 0, max: 0 };
  const positionals = parsed.positionals;
  if (positionals.length < min || positionals.length > max) {
    const extra = positionals.length > max ? `unexpected argument "${positionals[max]}"` : 'missing argument';
    throw new UsageError(`${command.words.join(' ')}: ${extra}: ${command.words.join(' ')} ${command.synopsis} (see --help)`);
  }
  return { values: parsed.values as Record<string, string | boolean | undefined>, positionals };
}

/**
 * `--monthly-limit -5` is a value that starts with a dash, which parseArgs refuses as "ambiguous" before
 * the option's own check can say what a good value is. A string option takes the next word as its value
 * unless that word is one of the command's options; then the value is missing.
 */
function attachDashedValues(command: string, rest: readonly string[], options: Options): string[] {
  const isOption = (word: string) => word === '-h' || (word.startsWith('--') && Object.hasOwn(options, word.slice(2).split('=')[0] ?? ''));
  const args: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i] ?? '';
    const option = word.startsWith('--') && !word.includes('=') && Object.hasOwn(options, word.slice(2)) ? options[word.slice(2)] : undefined;
    if (option?.type === 'string') {
      const value = rest[i + 1];
      if (value === undefined || isOption(value)) throw new UsageError(`${command}: ${word} needs a value (see --help)`);
      if (value.startsWith('-')) {
        args.push(`${word}=${value}`);
        i++;
        continue;
      }
    }
    args.push(word);
  }
  return args;
}

/** The option the caller most likely meant: a typo away, or one whose name holds what was typed. */
function nearestOption(typed: string, options: Options): string | undefined {
  const name = typed.replace(/^-+/, '').split('=')[0] ?? '';
  if (name === '') return undefined;
  const ranked = Object.keys(options)
    .map((known) => ({ known, distance: editDistance(name, known) }))
    .sort((a, b) => a.distance - b.distance);
  const best = ranked[0];
  if (best && best.distance <= Math.max(1, Math.floor(name.length / 3))) return `--${best.known}`;
  const containing = name.length >= 3 ? Object.keys(options).find((known) => known.includes(name)) : undefined;
  return containing === undefined ? undefined : `--${containing}`;
}

/** Levenshtein distance: insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * `npm run admin accounts list --json`, without `--`: npm keeps `--json` (and any option it does not know)
 * as its own setting, hands the script the rest, and says so only in its environment, as npm_config_<name>.
 * Running on without the flag would print a table to a script, or write for real what was meant as
 * `--dry-run`; so such a line is refused, with the form that works.
 */
function flagsNpmKept(command: Command | undefined, argv: readonly string[], env: Environment): string[] {
  if (env.npm_lifecycle_event !== 'admin') return [];
  const names = ['json', ...Object.keys(command?.options ?? {})];
  return names
    .filter((name) => env[`npm_config_${name.replace(/-/g, '_')}`] !== undefined)
    .filter((name) => !argv.some((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`)))
    .map((name) => `--${name}`);
}

function npmKeptMessage(flags: readonly string[], words: readonly string[]): string {
  const line = [...words, '...'].join(' ');
  return (
    `npm kept ${flags.join(', ')} for itself, so nothing was done: ` +
    `run npm run admin -- ${line} (with the --), or ${PROGRAM} ${line} where the CLI is installed`
  );
}

interface Failure {
  message: string;
  exitCode: number;
  conflicts?: readonly string[];
}

export function describeFailure(error: unknown, store: StoreConfig | undefined): Failure {
  const where = store?.storeEndpoint ?? `AWS DynamoDB (${store?.region ?? 'us-east-1'})`;
  // One problem a line, each with the line of the file it is on: kept as written.
  if (error instanceof PromptFileError) return { message: error.message, exitCode: EXIT.badInput };
  if (
    error instanceof UsageError ||
    error instanceof InputError ||
    error instanceof SeedError ||
    error instanceof ConfigError ||
    error instanceof InvalidLabelError ||
    error instanceof InvalidRolloutError ||
    error instanceof InvalidWebhookError
  ) {
    return { message: oneLine(error.message), exitCode: EXIT.badInput };
  }
  if (error instanceof ConflictError) {
    return {
      message: oneLine(error.message),
      exitCode: EXIT.refused,
      ...(error.conflicts.length > 1 ? { conflicts: error.conflicts.map((conflict) => conflict.message) } : {}),
    };
  }
  if (error instanceof NotFoundError) return { message: oneLine(error.message), exitCode: EXIT.refused };
  if (error instanceof StoreUnavailableError) {
    return { message: `cannot reach the store at ${where}: is it running, and is DYNAMODB_ENDPOINT right?`, exitCode: EXIT.refused };
  }
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  if (name === 'ResourceNotFoundException') {
    return { message: `table ${store?.tableName ?? '?'} does not exist at ${where}: check TABLE_NAME`, exitCode: EXIT.refused };
  }
  if (name === 'CredentialsProviderError' || name === 'UnrecognizedClientException' || name === 'ExpiredTokenException') {
    return {
      message: `no usable AWS credentials (${oneLine(message)}): set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or DYNAMODB_ENDPOINT for a local store`,
      exitCode: EXIT.refused,
    };
  }
  return { message: oneLine(`${name}: ${message}`), exitCode: EXIT.refused };
}

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();

function unknownCommandMessage(words: readonly string[]): string {
  const groups = [...new Set(COMMANDS.map((command) => command.words[0]))];
  if (!groups.includes(words[0])) return `unknown command "${words[0]}": one of ${groups.join(', ')} (see --help)`;
  const actions = COMMANDS.filter((command) => command.words[0] === words[0]).map((command) => command.words[1]);
  return `${words[0]}: ${words[1] === undefined ? 'missing' : `unknown action "${words[1]}", expected`} one of ${actions.join(', ')} (see ${words[0]} --help)`;
}

function groupHelp(words: readonly string[]): string {
  const inGroup = COMMANDS.filter((command) => command.words[0] === words[0]);
  const shown = inGroup.length > 0 ? inGroup : COMMANDS;
  const width = Math.max(...shown.map((command) => command.words.join(' ').length));
  const lines = [
    'Prompt service admin: accounts, API keys, prompts and usage, in the table of any deployment.',
    '',
    `Usage: ${PROGRAM} ${inGroup.length > 0 ? `${words[0]} <action>` : '<command>'} [options] [--json]`,
    '',
    'Commands:',
    ...shown.map((command) => `  ${command.words.join(' ').padEnd(width)}  ${command.summary}`),
    '',
    `With npm run, put -- before the command (npm run admin -- ${inGroup.length > 0 ? `${words[0]} <action>` : '<command>'} ...): npm keeps options before it.`,
    '',
    'The store, from the environment:',
    "  TABLE_NAME          the table (required): prompts-local for `npm start`, or the deployed stack's table",
    '  DYNAMODB_ENDPOINT   a local store, e.g. http://127.0.0.1:8000; unset, AWS with the usual credentials',
    '  AWS_REGION          the region (default us-east-1)',
    '',
    `Every command takes --help, and --json (anywhere on the line) for scripts. Exit status: ${EXIT.ok} done, ${EXIT.refused} refused or failed, ${EXIT.badInput} bad input.`,
  ];
  return `${lines.join('\n')}\n`;
}

function commandHelp(command: Command): string {
  const lines = [
    `Usage: ${PROGRAM} ${command.words.join(' ')} ${command.synopsis} [--json]`.replace(/\s+\[--json\]$/, ' [--json]'),
    '',
    `${command.summary}.`,
    '',
    ...(command.help.length > 0 ? ['Options:', ...command.help.map((line) => `  ${line}`), ''] : []),
    '  --json   print the result as JSON (errors as {"error": ...} on stderr)',
    '  --help   show this help',
    '',
    'Examples:',
    ...command.examples.map((example) => `  ${PROGRAM} ${example}`),
  ];
  return `${lines.join('\n')}\n`;
}
