import { parseArgs } from 'node:util';
import { ConfigError, loadStoreConfig, type StoreConfig } from '../lambda/config';
import { createDocumentClient } from '../lambda/data/dynamo-client';
import { ConflictError, DynamoAdminStore, NotFoundError } from '../lambda/data/dynamo-admin-store';
import { DynamoStore } from '../lambda/data/dynamo-store';
import { StoreUnavailableError } from '../lambda/data/store';
import { type Command, type CommandContext, UsageError } from './command';
import { accountCommands } from './commands/accounts';
import { keyCommands } from './commands/keys';
import { promptCommands } from './commands/prompts';
import { usageCommands } from './commands/usage';
import { InputError } from './input-reader';
import { SeedError } from './seed-file';

export const PROGRAM = 'npm run admin --';
export const COMMANDS: readonly Command[] = [...accountCommands, ...keyCommands, ...promptCommands, ...usageCommands];

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

export async function runAdmin(argv: readonly string[], env: Environment, io: CliIo, now = () => new Date()): Promise<number> {
  const json = argv.includes('--json');
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  let client: ReturnType<typeof createDocumentClient> | undefined;
  let storeConfig: StoreConfig | undefined;
  try {
    const words = leadingWords(argv);
    const command = findCommand(words);
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
    const args = parseCommandArgs(command, argv.slice(command.words.length));
    const context: CommandContext = {
      admin: () => {
        storeConfig ??= loadStoreConfig(env);
        client ??= createDocumentClient({ region: storeConfig.region, endpoint: storeConfig.storeEndpoint });
        return new DynamoAdminStore(client, storeConfig.tableName, now);
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
    io.stdout(json ? `${JSON.stringify(result.json, null, 2)}\n` : `${result.text}\n`);
    return EXIT.ok;
  } catch (error) {
    const failure = describeFailure(error, storeConfig);
    io.stderr(
      json
        ? `${JSON.stringify({ error: failure.message, ...(failure.conflicts ? { conflicts: failure.conflicts } : {}) })}\n`
        : `admin: ${failure.message}\n`,
    );
    return failure.exitCode;
  } finally {
    client?.destroy();
  }
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
  return COMMANDS.filter((command) => command.words.every((word, i) => words[i] === word)).sort(
    (a, b) => b.words.length - a.words.length,
  )[0];
}

function parseCommandArgs(command: Command, rest: readonly string[]) {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...rest],
      options: { ...command.options, ...COMMON_OPTIONS },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    // Node's messages go on about `--`; the first sentence is the reason.
    const reason = (error as Error).message.split(/\.\s/)[0]?.replace(/\.$/, '') ?? 'bad arguments';
    throw new UsageError(`${command.words.join(' ')}: ${reason} (see --help)`);
  }
  const { min, max } = command.positionals ?? { min: 0, max: 0 };
  const positionals = parsed.positionals;
  if (positionals.length < min || positionals.length > max) {
    const extra = positionals.length > max ? `unexpected argument "${positionals[max]}"` : 'missing argument';
    throw new UsageError(`${command.words.join(' ')}: ${extra}: ${command.words.join(' ')} ${command.synopsis} (see --help)`);
  }
  return { values: parsed.values as Record<string, string | boolean | undefined>, positionals };
}

interface Failure {
  message: string;
  exitCode: number;
  conflicts?: readonly string[];
}

export function describeFailure(error: unknown, store: StoreConfig | undefined): Failure {
  const where = store?.storeEndpoint ?? `AWS DynamoDB (${store?.region ?? 'us-east-1'})`;
  if (error instanceof UsageError || error instanceof InputError || error instanceof SeedError || error instanceof ConfigError) {
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
    'The store, from the environment:',
    '  TABLE_NAME          the table (required): prompts-local for `npm start`, or the deployed stack\'s table',
    '  DYNAMODB_ENDPOINT   a local store, e.g. http://127.0.0.1:8000; unset, AWS with the usual credentials',
    '  AWS_REGION          the region (default us-east-1)',
    '',
    `Every command takes --help, and --json for scripts. Exit status: ${EXIT.ok} done, ${EXIT.refused} refused or failed, ${EXIT.badInput} bad input.`,
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
