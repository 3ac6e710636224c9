import { readFile } from 'node:fs/promises';
import type { PromptContent } from '../../lambda/domain/prompt';
import { type Command, type CommandArgs, operationsOn, stringOption, table, UsageError } from '../command';
import { describeSummary, importSeed } from '../import-seed';
import { InputError, readObject } from '../input-reader';
import { JsonSyntaxError, parseJsonText } from '../json-text';
import { accountOption, jsonOption, promptIdOption, versionOption } from '../option-values';
import { CONTENT_FIELDS, readContent } from '../prompt-content';
import { seedCounts, type SeedSources } from '../seed-file';
import { exportCommand } from './prompts-export';
import { publishVersion } from '../publish-version';
import { listPromptSummaries } from '../../lambda/features/prompts/deletion';

/** The release note of a version published without --note (the management API asks people for one). */
export const CLI_PUBLISH_NOTE = 'Published with the admin CLI';

const importCommand: Command = {
  words: ['prompts', 'import'],
  summary: 'Import a seed file, or every .json file of a folder (accounts, keys, prompts, versions)',
  synopsis: '<file-or-folder> [--dry-run]',
  help: [
    '<file-or-folder>  a file in the seed format (docs/cli.md "Seed file format"), or a folder of them',
    '--dry-run         check everything and report what would change, without writing',
    'The whole input is checked first (format, then against the store); if anything is refused,',
    'nothing is written. Importing the same input again changes nothing. Published versions never',
    'change: a different content for one is refused. Usage counts are never touched.',
  ],
  examples: ['prompts import seed/demo-seed.json', 'prompts import ./prompts/ --dry-run'],
  options: { 'dry-run': { type: 'boolean' } },
  positionals: { min: 1, max: 1 },
  async run(context, args) {
    const path = args.positionals[0] ?? '';
    const dryRun = args.values['dry-run'] === true;
    const { seed, summary, sources } = await importSeed(context.importer(), path, { dryRun });
    const counts = seedCounts(seed);
    return {
      json: { path, dryRun, summary, files: sources },
      text:
        `${dryRun ? 'Checked (dry run, nothing written)' : 'Imported'} ${path}: ${counts.accounts} account(s), ` +
        `${counts.keys} key(s), ${counts.prompts} prompt(s), ${counts.versions} version(s)\n${describeSummary(summary)}` +
        describeSources(path, sources),
    };
  },
};

/** For a folder: every file read, and every entry left alone with the reason; a single file needs no list. */
function describeSources(path: string, sources: SeedSources): string {
  if (sources.read.length === 1 && sources.read[0] === path) return '';
  const lines = [`Read ${sources.read.length} file(s):`, ...sources.read.map((file) => `  ${file}`)];
  if (sources.skipped.length > 0) {
    lines.push(`Skipped ${sources.skipped.length}:`, ...sources.skipped.map((entry) => `  ${entry.path}: ${entry.reason}`));
  }
  return `\n${lines.join('\n')}`;
}

const publish: Command = {
  words: ['prompts', 'publish'],
  summary: 'Publish a version of a prompt: a new one, or an existing draft',
  synopsis:
    '--account <accountId> --prompt <promptId> --version <x.y.z> [--name <promptName>] [--note <text>] ' +
    '[--file <content.json> | --system-message <text> --user-message <text> --model <model> --temperature <0-2> ' +
    '[--schema <json>] [--input-data <json>] [--input-data-root-name <name>]]',
  help: [
    '--account <accountId>         the account (required)',
    '--prompt <promptId>           the prompt (required); created when it does not exist (then --name is required)',
    '--version <x.y.z>             the version to publish (required)',
    "--name <promptName>           the prompt's name: required for a new prompt, renames an existing one",
    `--note <text>                 the version's release note, 1 to 500 characters (default "${CLI_PUBLISH_NOTE}")`,
    '--file <content.json>         the version\'s content: {"systemMessage","userMessage","config":{...}}',
    '--system-message, --user-message, --model, --temperature, --schema, --input-data, --input-data-root-name',
    '                              the same content as options, instead of --file',
    'Without --file or content options, the stored draft of that version is published.',
    'A published version never changes: publishing it again with other content is refused, with the',
    'same content it is a no-op. The highest published version becomes what the API serves as latest.',
    'Made as the management API makes it (a draft, then its publish), each step in the audit log as yours.',
  ],
  examples: [
    'prompts publish --account acme --prompt welcome-email --version 1.2.0',
    'prompts publish --account acme --prompt welcome-email --version 2.0.0 --file welcome-2.0.0.json --note "Shorter greeting"',
    'prompts publish --account acme --prompt greet --name "Greeting" --version 1.0.0 \\\n' +
      "      --system-message 'You are kind.' --user-message 'Greet ${name}.' --model gpt-4o-mini --temperature 0.7",
  ],
  options: {
    account: { type: 'string' },
    prompt: { type: 'string' },
    version: { type: 'string' },
    name: { type: 'string' },
    note: { type: 'string' },
    file: { type: 'string' },
    'system-message': { type: 'string' },
    'user-message': { type: 'string' },
    model: { type: 'string' },
    temperature: { type: 'string' },
    schema: { type: 'string' },
    'input-data': { type: 'string' },
    'input-data-root-name': { type: 'string' },
  },
  async run(context, args) {
    const accountId = accountOption(args);
    const promptId = promptIdOption(args);
    const version = versionOption(args);
    const name = stringOption(args, 'name');
    if (name !== undefined && (name.trim() === '' || name.length > 256)) throw new UsageError('--name must be 1 to 256 characters');
    const note = (stringOption(args, 'note') ?? CLI_PUBLISH_NOTE).trim();
    if (note === '' || note.length > 500) throw new UsageError('--note must be 1 to 500 characters');
    const content = await contentOf(args);
    const outcome = await publishVersion(await operationsOn(context, accountId), context.table(), accountId, {
      promptId,
      version,
      note,
      ...(content ? { content } : {}),
      ...(name === undefined ? {} : { promptName: name }),
    });
    const text =
      outcome === 'published'
        ? `Published version ${version} of prompt ${promptId} (account ${accountId})`
        : `Version ${version} of prompt ${promptId} was already published with this content: nothing changed`;
    return { json: { accountId, promptId, version, outcome }, text };
  },
};

const CONTENT_OPTIONS = ['system-message', 'user-message', 'model', 'temperature', 'schema', 'input-data', 'input-data-root-name'];

async function contentOf(args: CommandArgs): Promise<Omit<PromptContent, 'version'> | undefined> {
  const file = stringOption(args, 'file');
  const fromOptions = CONTENT_OPTIONS.some((option) => args.values[option] !== undefined);
  if (file !== undefined && fromOptions) throw new UsageError('give the content either with --file or with options, not both');
  if (file !== undefined) return contentFromFile(file);
  if (!fromOptions) return undefined;
  for (const option of ['system-message', 'user-message', 'model', 'temperature']) {
    if (stringOption(args, option) === undefined) throw new UsageError(`--${option} is required with the content options`);
  }
  const temperature = Number(stringOption(args, 'temperature'));
  if (!Number.isFinite(temperature) || temperature < 0 || temperature > 2) {
    throw new UsageError('--temperature must be a number from 0 to 2');
  }
  const schema = jsonOption(args, 'schema') ?? [];
  if (!Array.isArray(schema)) throw new UsageError('--schema must be a JSON array');
  const config = {
    model: stringOption(args, 'model'),
    temperature,
    schema,
    inputData: jsonOption(args, 'input-data') ?? null,
    inputDataRootName: stringOption(args, 'input-data-root-name') ?? null,
  };
  return asUsageError('', () =>
    readContent({ systemMessage: stringOption(args, 'system-message'), userMessage: stringOption(args, 'user-message'), config }, 'content'),
  );
}

async function contentFromFile(file: string): Promise<Omit<PromptContent, 'version'>> {
  const text = await readFile(file, 'utf8').catch(() => {
    throw new UsageError(`--file ${file}: cannot read the file`);
  });
  let json: unknown;
  try {
    json = parseJsonText(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw new UsageError(`${file}: ${error.message}`);
    throw error;
  }
  return asUsageError(`${file}: `, () => readContent(readObject(json, '', CONTENT_FIELDS), ''));
}

function asUsageError<T>(prefix: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof InputError) throw new UsageError(`${prefix}${error.message}`);
    throw error;
  }
}

const deleteCommand: Command = {
  words: ['prompts', 'delete'],
  summary: 'Delete a prompt: the API answers 404 for it from then on',
  synopsis: '--account <accountId> --prompt <promptId>',
  help: [
    '--account <accountId>  the account (required)',
    '--prompt <promptId>    the prompt (required)',
    'Its versions stay stored; `prompts restore` brings it back. Publishing to a deleted prompt is refused.',
  ],
  examples: ['prompts delete --account acme --prompt welcome-email'],
  options: { account: { type: 'string' }, prompt: { type: 'string' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const promptId = promptIdOption(args);
    const { alreadyDeleted } = await (await operationsOn(context, accountId)).prompts.delete(accountId, promptId);
    return {
      json: { accountId, promptId, deleted: true, alreadyDeleted },
      text: alreadyDeleted ? `Prompt ${promptId} was already deleted` : `Deleted prompt ${promptId} of account ${accountId}`,
    };
  },
};

const restore: Command = {
  words: ['prompts', 'restore'],
  summary: 'Bring a deleted prompt back: the API serves its published versions again',
  synopsis: '--account <accountId> --prompt <promptId>',
  help: ['--account <accountId>  the account (required)', '--prompt <promptId>    the prompt (required)'],
  examples: ['prompts restore --account acme --prompt welcome-email'],
  options: { account: { type: 'string' }, prompt: { type: 'string' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const promptId = promptIdOption(args);
    const { alreadyVisible } = await (await operationsOn(context, accountId)).prompts.restore(accountId, promptId);
    return {
      json: { accountId, promptId, deleted: false, alreadyVisible },
      text: alreadyVisible ? `Prompt ${promptId} was not deleted` : `Restored prompt ${promptId} of account ${accountId}`,
    };
  },
};

const list: Command = {
  words: ['prompts', 'list'],
  summary: "List an account's prompts, with their labels, drafts and deleted ones",
  synopsis: '--account <accountId>',
  help: ['--account <accountId>  the account (required)'],
  examples: ['prompts list --account acme', 'prompts list --account acme --json'],
  options: { account: { type: 'string' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const prompts = await listPromptSummaries(context.table(), accountId);
    const rows = prompts.map((prompt) => [
      prompt.promptId,
      prompt.deleted ? 'deleted' : prompt.latestVersion ? 'live' : 'draft only',
      prompt.latestVersion ?? '-',
      describeLabels(prompt.labels) || '-',
      prompt.versions.map(({ version, published }) => (published ? version : `${version} (draft)`)).join(', '),
      prompt.promptName,
    ]);
    return {
      json: prompts,
      text: prompts.length === 0 ? `Account ${accountId} has no prompts` : table(['PROMPT', 'STATE', 'LATEST', 'LABELS', 'VERSIONS', 'NAME'], rows),
    };
  },
};

/** `production=1.2.0, staging=1.3.0`, by label name. */
export function describeLabels(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([label, version]) => `${label}=${version}`)
    .join(', ');
}

export const promptCommands: readonly Command[] = [importCommand, publish, deleteCommand, restore, list, exportCommand];
