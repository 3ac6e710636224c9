import { ConflictError, NotFoundError } from '../../lambda/table/errors';
import { type AdminPromptSummary, listPromptSummaries } from '../../lambda/features/prompts/deletion';
import { labelledVersion } from '../../lambda/domain/label';
import { toConfigBody } from '../../lambda/domain/prompt';
import { type Command, type CommandContext, operationsOn, stringOption, UsageError } from '../command';
import { accountOption, labelOption, promptIdOption, versionOption } from '../option-values';
import type { StoredVersion } from '../table/version-reader';
import { publishVersion } from '../publish-version';
import { describeLabels } from './prompts';

/** Reading a prompt's versions back, and moving latest back to an earlier one without rewriting history. */

async function promptSummary(context: CommandContext, accountId: string, promptId: string): Promise<AdminPromptSummary> {
  const prompt = (await listPromptSummaries(context.table(), accountId)).find((summary) => summary.promptId === promptId);
  if (!prompt) throw new NotFoundError(`account ${accountId} has no prompt ${promptId}`);
  return prompt;
}

async function storedVersion(context: CommandContext, accountId: string, promptId: string, version: string): Promise<StoredVersion> {
  const stored = await context.versions().read(accountId, promptId, version);
  if (!stored) throw new NotFoundError(`prompt ${promptId} of account ${accountId} has no version ${version}`);
  return stored;
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');

const show: Command = {
  words: ['prompts', 'show'],
  summary: "Show a version's content: system message, user message and config",
  synopsis: '--account <accountId> --prompt <promptId> [--version <x.y.z> | --label <name>]',
  help: [
    '--account <accountId>  the account (required)',
    '--prompt <promptId>    the prompt (required)',
    '--version <x.y.z>      the version, a draft too; default: the latest published, as the API serves it',
    '--label <name>         the version the label points at, as the API serves it at ?label=<name>',
    'Deleted prompts and drafts are shown as well, and marked as such.',
  ],
  examples: [
    'prompts show --account acme --prompt welcome-email',
    'prompts show --account acme --prompt welcome-email --version 1.0.0 --json',
    'prompts show --account acme --prompt welcome-email --label production',
  ],
  options: { account: { type: 'string' }, prompt: { type: 'string' }, version: { type: 'string' }, label: { type: 'string' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const promptId = promptIdOption(args);
    const label = stringOption(args, 'label') === undefined ? undefined : labelOption(args);
    if (label !== undefined && stringOption(args, 'version') !== undefined) throw new UsageError('give --version or --label, not both');
    const prompt = await promptSummary(context, accountId, promptId);
    const labelled = label === undefined ? undefined : labelledVersion(prompt.labels, label);
    if (label !== undefined && labelled === undefined) {
      throw new NotFoundError(`prompt ${promptId} of account ${accountId} has no label ${label} (labels: ${describeLabels(prompt.labels) || 'none'})`);
    }
    let version = label !== undefined ? labelled : stringOption(args, 'version') === undefined ? prompt.latestVersion : versionOption(args);
    if (version === undefined) {
      const drafts = prompt.versions.map((stored) => stored.version).join(', ');
      throw new NotFoundError(`prompt ${promptId} of account ${accountId} has no published version: name one with --version (${drafts || 'none stored'})`);
    }
    const stored = await storedVersion(context, accountId, promptId, version);
    version = stored.version;
    const latest = version === prompt.latestVersion;
    const labelsHere = Object.keys(prompt.labels)
      .filter((label) => prompt.labels[label] === version)
      .sort();
    const state = [stored.published ? 'published' : 'draft', ...(latest ? ['latest'] : []), ...labelsHere, ...(prompt.deleted ? ['prompt deleted'] : [])];
    return {
      json: {
        accountId,
        promptId,
        promptName: prompt.promptName,
        deleted: prompt.deleted,
        version,
        published: stored.published,
        latest,
        labelsHere,
        labels: prompt.labels,
        systemMessage: stored.systemMessage,
        userMessage: stored.userMessage,
        config: toConfigBody(stored.config),
      },
      text: [
        `Prompt ${promptId} (${prompt.promptName}) of account ${accountId}, version ${version} (${state.join(', ')})`,
        `Labels: ${describeLabels(prompt.labels) || 'none'}`,
        'System message:',
        indent(stored.systemMessage),
        'User message:',
        indent(stored.userMessage),
        'Config:',
        indent(JSON.stringify(toConfigBody(stored.config), null, 2)),
      ].join('\n'),
    };
  },
};

const sameContent = (a: StoredVersion, b: StoredVersion) =>
  a.systemMessage === b.systemMessage && a.userMessage === b.userMessage && JSON.stringify(toConfigBody(a.config)) === JSON.stringify(toConfigBody(b.config));

/** The first patch version above `latest` that is not stored yet (a draft may hold the very next one). */
function nextPatch(latest: string, stored: readonly string[]): string {
  const [major, minor, patch] = latest.split('.').map(Number);
  let next = (patch ?? 0) + 1;
  while (stored.includes(`${major}.${minor}.${next}`)) next++;
  return `${major}.${minor}.${next}`;
}

const rollback: Command = {
  words: ['prompts', 'rollback'],
  summary: 'Serve an earlier version again, by publishing its content as the next patch version',
  synopsis: '--account <accountId> --prompt <promptId> --to <x.y.z>',
  help: [
    '--account <accountId>  the account (required)',
    '--prompt <promptId>    the prompt (required)',
    '--to <x.y.z>           the published version whose content the API should serve again (required)',
    'Published versions never change, so nothing is rewritten: the content of --to is published as the',
    'next patch version after the latest (1.2.0 -> 1.2.1), which the API then serves as latest. Callers',
    'pinned to a version keep getting exactly what they pinned. Running it again changes nothing.',
    'Labels stay where they are: to roll a label back, point it at the earlier version (prompts label).',
  ],
  examples: ['prompts rollback --account acme --prompt welcome-email --to 1.0.0'],
  options: { account: { type: 'string' }, prompt: { type: 'string' }, to: { type: 'string' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const promptId = promptIdOption(args);
    const to = versionOption(args, 'to');
    const prompt = await promptSummary(context, accountId, promptId);
    if (prompt.deleted) throw new ConflictError(`prompt ${promptId} of account ${accountId} is deleted: a rollback would not make it visible`);
    const latest = prompt.latestVersion;
    if (latest === undefined) throw new ConflictError(`prompt ${promptId} of account ${accountId} has no published version to roll back from`);
    const target = await storedVersion(context, accountId, promptId, to);
    if (!target.published) throw new ConflictError(`version ${to} of prompt ${promptId} is a draft, never served: roll back to a published version`);
    const current = await storedVersion(context, accountId, promptId, latest);
    if (sameContent(current, target)) {
      return {
        json: { accountId, promptId, to, latest, outcome: 'unchanged' },
        text: `The latest version of prompt ${promptId}, ${latest}, already has the content of ${to}: nothing changed`,
      };
    }
    const version = nextPatch(
      latest,
      prompt.versions.map((stored) => stored.version),
    );
    const { systemMessage, userMessage, config } = target;
    await publishVersion(await operationsOn(context, accountId), context.table(), accountId, {
      promptId,
      version,
      content: { systemMessage, userMessage, config },
      note: `Rollback: the content of ${to}, published again`,
    });
    return {
      json: { accountId, promptId, to, previousLatest: latest, published: version, outcome: 'published' },
      text:
        `Published the content of ${to} as version ${version} of prompt ${promptId} (account ${accountId}): ` +
        `the API serves it as latest; ${latest} stays stored`,
    };
  },
};

export const promptVersionCommands: readonly Command[] = [show, rollback];
