import { appendFile } from 'node:fs/promises';
import { requireAccount } from '../../lambda/features/accounts/accounts';
import { type Command, type CommandArgs, type CommandContext, requiredOption, stringOption, UsageError } from '../command';
import { accountOption } from '../option-values';
import { badFilesReport, checkReport, driftReport } from '../prompt-files/drift-report';
import { describePending, describePlan, type FolderPlan, planFolder } from '../prompt-files/folder-plan';
import { type PromptFile, PromptFileError } from '../prompt-files/prompt-file';
import { folderWarnings, readPromptFolder, readServedPrompts, writePromptFolder } from '../prompt-files/prompt-folder';
import { type PushOutcome, pushPrompt } from '../prompt-files/push';

/** Prompts as code: a folder of `<promptId>.prompt.yaml` files, pulled from, pushed to and compared with an account (docs/prompts-as-code.md). */

const FOLDER_OPTIONS = { account: { type: 'string' }, dir: { type: 'string' } } as const;
const FOLDER_HELP = ['--account <accountId>  the account (required)', '--dir <folder>         the folder of <promptId>.prompt.yaml files (required)'];

async function compare(context: CommandContext, accountId: string, dir: string): Promise<{ plan: FolderPlan; files: PromptFile[]; warnings: string[] }> {
  const { files, warnings } = await readPromptFolder(dir);
  await requireAccount(context.table(), accountId);
  return { plan: planFolder(files, await readServedPrompts(context.table(), accountId)), files, warnings };
}

const REPORT_HELP = [
  '--report <file>        also append the result as Markdown to <file> (in GitHub Actions "$GITHUB_STEP_SUMMARY";',
  '                       - prints it instead of the text), and exit 0 on drift: only a bad or refused file fails (2)',
];

/** Where --report goes: a file appended to (a CI job's summary), or `-` for stdout in place of the text. */
async function report(args: CommandArgs, markdown: string): Promise<'stdout' | 'file' | 'none'> {
  const target = stringOption(args, 'report');
  if (target === undefined) return 'none';
  if (target === '') throw new UsageError('--report needs a file (or - for stdout)');
  if (target === '-') return 'stdout';
  await appendFile(target, markdown);
  return 'file';
}

/** The folder, read; with --report <file>, a bad file is reported there too before the command fails on it (stderr says it either way). */
async function readOrReport<T>(args: CommandArgs, title: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof PromptFileError && stringOption(args, 'report') !== '-') await report(args, badFilesReport(title, error.message));
    throw error;
  }
}

const pull: Command = {
  words: ['prompts', 'pull'],
  summary: 'Write a folder of prompt files from what an account serves',
  synopsis: '--account <accountId> --dir <folder>',
  help: [
    ...FOLDER_HELP,
    'Every prompt with a published version, at its latest, with its name, description, tags and labels, as',
    '<promptId>.prompt.yaml. A file whose bytes would not change is not written: pulling twice changes nothing.',
    'Files of prompts the account does not serve are left alone (prompts diff reports them); any other name in',
    'the folder (x.prompt.yml, notes.txt, a subfolder) is named in a warning.',
  ],
  examples: ['prompts pull --account acme --dir prompts/acme'],
  options: FOLDER_OPTIONS,
  async run(context, args) {
    const accountId = accountOption(args);
    const dir = requiredOption(args, 'dir');
    await requireAccount(context.table(), accountId);
    const served = (await readServedPrompts(context.table(), accountId)).filter((prompt) => !prompt.deleted && prompt.latest);
    const written = await writePromptFolder(
      dir,
      served.flatMap((prompt) => (prompt.latest ? [prompt.latest] : [])),
    );
    const text = `Pulled ${served.length} prompt(s) of account ${accountId} into ${dir}: ${written.length} file(s) written, ${served.length - written.length} unchanged`;
    const warnings = await folderWarnings(dir);
    return { json: { accountId, dir, prompts: served.length, written, warnings }, text, warnings };
  },
};

function planText(plan: FolderPlan): string[] {
  return [
    ...plan.changes.map(describePlan),
    ...(plan.unchanged.length > 0 ? [`nothing to do: ${plan.unchanged.join(', ')}`] : []),
    ...plan.pending.map(describePending),
    ...(plan.orphans.length > 0 ? [`served but not in the folder (left alone): ${plan.orphans.join(', ')}`] : []),
  ];
}

/** One prompt's push in words: what it published, each label moved, each request opened; or why nothing changed. */
function describeOutcome(outcome: PushOutcome): string[] {
  if (outcome.outcome !== 'changed') return [`  NOT changed ${outcome.promptId}: ${outcome.reason}`];
  return [
    `  changed ${outcome.promptId}`,
    ...(outcome.published !== null ? [`    published ${outcome.published}`] : []),
    ...outcome.labels.map(({ label, from, to }) =>
      to === null ? `    label ${label}: removed (was ${from})` : from === null ? `    label ${label}: set to ${to}` : `    label ${label}: ${from} -> ${to}`,
    ),
    ...outcome.awaiting.map(({ label, requestId }) => `    label ${label}: awaiting approval: request ${requestId}`),
    ...(outcome.details ? ['    name, description and tags set'] : []),
  ];
}

const push: Command = {
  words: ['prompts', 'push'],
  summary: 'Make an account serve a folder of prompt files',
  synopsis: '--account <accountId> --dir <folder> --note <text> [--dry-run]',
  help: [
    ...FOLDER_HELP,
    '--note <text>          the release note of every version published (required)',
    '--dry-run              print the plan, with a line diff of each version to publish, and change nothing',
    'A file whose content differs from the served latest publishes the version it names, which must be new and',
    'higher; a file that changes a published version, or names a lower one, is refused. Labels move to where the',
    'files say (a label a file leaves out is removed); name, description and tags follow the file. Any bad or',
    'refused file stops the push before anything changes. Each prompt changes whole or not at all, and the push',
    'says which changed; running it again changes nothing. It never deletes a prompt: prompts served but not in',
    "the folder are reported. Every change is audited as the operator's. A label the account puts under approval",
    'is not moved: the push opens a change request for it (reported as "awaiting approval: request <id>"), which',
    'members approve in the dashboard; a label already awaiting that very move is left alone. The push says, per',
    'prompt, the version it published, each label it moved and each request it opened.',
    'A name in the folder that says .prompt. but ends otherwise (x.prompt.yml) is refused as a bad file; any other',
    'name that is not a prompt file (notes.txt, welcome.yaml) is named in a warning and not read.',
  ],
  examples: ['prompts push --account acme --dir prompts/acme --note "From main at $GITHUB_SHA" --dry-run'],
  options: { ...FOLDER_OPTIONS, note: { type: 'string' }, 'dry-run': { type: 'boolean' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const dir = requiredOption(args, 'dir');
    const note = requiredOption(args, 'note');
    if (note.trim() === '' || note.length > 500) throw new UsageError('--note must be 1 to 500 characters');
    const { plan, files, warnings } = await compare(context, accountId, dir);
    if (plan.refused.length > 0) {
      throw new UsageError(`nothing pushed: ${plan.refused.map((refusal) => refusal.reason).join('; ')}`);
    }
    if (args.values['dry-run'] === true) {
      const text = [`Dry run for account ${accountId} (nothing changed):`, ...planText(plan)].join('\n');
      return { json: { accountId, dryRun: true, ...plan, warnings }, text, warnings };
    }
    const byId = new Map(files.map((file) => [file.promptId, file]));
    const outcomes: PushOutcome[] = [];
    for (const change of plan.changes) {
      outcomes.push(await pushPrompt(context.operations(), accountId, change, byId.get(change.promptId) as PromptFile, note));
    }
    const failed = outcomes.filter((outcome) => outcome.outcome !== 'changed');
    const lines = [
      `Pushed ${dir} to account ${accountId}:`,
      ...outcomes.flatMap(describeOutcome),
      ...(plan.unchanged.length > 0 ? [`  nothing to do: ${plan.unchanged.join(', ')}`] : []),
      ...plan.pending.map((pending) => `  ${describePending(pending)}`),
      ...(plan.orphans.length > 0 ? [`  served but not in the folder (left alone): ${plan.orphans.join(', ')}`] : []),
    ];
    return {
      json: { accountId, outcomes, unchanged: plan.unchanged, orphans: plan.orphans, pending: plan.pending, warnings },
      text: lines.join('\n'),
      warnings,
      ...(failed.length > 0 ? { exitCode: 1 } : {}),
    };
  },
};

const diff: Command = {
  words: ['prompts', 'diff'],
  summary: 'Report drift between a folder of prompt files and what an account serves (exit 1 on drift)',
  synopsis: '--account <accountId> --dir <folder> [--report <file>]',
  help: [
    ...FOLDER_HELP,
    ...REPORT_HELP,
    'Drift: a prompt whose served content, labels, name, description or tags differ from its file, a file the',
    'account does not serve yet, a file that could not be pushed, and orphans (served, not in the folder). A label',
    "with an open change request to exactly the file's version is pending approval, reported, and no drift.",
    'Exit status 0 when there is none, 1 when there is; 2 for a bad file. With --report: 0 with or without drift',
    '(a pull request that changes prompts is drift by design), 2 for a bad file or one a push would refuse.',
  ],
  examples: [
    'prompts diff --account acme --dir prompts/acme',
    'prompts diff --account acme --dir prompts/acme --report "$GITHUB_STEP_SUMMARY"',
    'prompts diff --account acme --dir prompts/acme --json',
  ],
  options: { ...FOLDER_OPTIONS, report: { type: 'string' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const dir = requiredOption(args, 'dir');
    const title = `Prompts: ${dir} against account ${accountId}`;
    const { plan, warnings } = await readOrReport(args, title, () => compare(context, accountId, dir));
    const drift = {
      changed: plan.changes.map((change) => change.promptId),
      refused: plan.refused,
      orphans: plan.orphans,
    };
    const clean = drift.changed.length === 0 && drift.refused.length === 0 && drift.orphans.length === 0;
    const text = clean
      ? [`No drift: account ${accountId} serves what ${dir} holds (${plan.unchanged.length} prompt(s))`, ...plan.pending.map(describePending)].join('\n')
      : [
          `Drift between ${dir} and account ${accountId}:`,
          ...plan.changes.map(describePlan),
          ...plan.refused.map((refusal) => `${refusal.promptId}: cannot be pushed: ${refusal.reason}`),
          ...(plan.orphans.length > 0 ? [`served but not in the folder: ${plan.orphans.join(', ')}`] : []),
          ...plan.pending.map(describePending),
        ].join('\n');
    const markdown = driftReport(title, plan, warnings);
    const reported = await report(args, markdown);
    const json = { accountId, drift: !clean, ...drift, unchanged: plan.unchanged, pending: plan.pending, warnings };
    const exitCode = reported === 'none' ? (clean ? 0 : 1) : drift.refused.length > 0 ? 2 : 0;
    return { json, text: reported === 'stdout' ? markdown.trimEnd() : text, warnings, ...(exitCode !== 0 ? { exitCode } : {}) };
  },
};

const check: Command = {
  words: ['prompts', 'check'],
  summary: 'Check a folder of prompt files without reaching any store (exit 2 on a bad file)',
  synopsis: '--dir <folder> [--report <file>]',
  help: [
    '--dir <folder>         the folder of <promptId>.prompt.yaml files (required)',
    '--report <file>        also append the result as Markdown to <file> ("$GITHUB_STEP_SUMMARY"; - prints it instead)',
    "Every file read by push's rules (YAML, fields, names), every problem of every file listed with its line and",
    'column. Needs no credentials and no account: what a pull request from a fork can run. It cannot see what a',
    'push would refuse against the account (a version below the latest, a changed published version): diff does.',
  ],
  examples: ['prompts check --dir prompts/acme'],
  options: { dir: { type: 'string' }, report: { type: 'string' } },
  async run(_context, args) {
    const dir = requiredOption(args, 'dir');
    const title = `Prompts: ${dir}`;
    const { files, warnings } = await readOrReport(args, title, () => readPromptFolder(dir));
    const markdown = checkReport(title, files.length, warnings);
    const reported = await report(args, markdown);
    const text = reported === 'stdout' ? markdown.trimEnd() : `${files.length} prompt file(s) in ${dir}, all good`;
    return { json: { dir, prompts: files.map((file) => file.promptId), warnings }, text, warnings };
  },
};

export const promptFolderCommands: readonly Command[] = [pull, push, diff, check];
