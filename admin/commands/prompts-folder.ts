import { requireAccount } from '../../lambda/table/accounts';
import { type Command, type CommandContext, requiredOption, UsageError } from '../command';
import { accountOption } from '../option-values';
import { describePending, describePlan, type FolderPlan, planFolder } from '../prompt-files/folder-plan';
import type { PromptFile } from '../prompt-files/prompt-file';
import { readPromptFolder, readServedPrompts, writePromptFolder } from '../prompt-files/prompt-folder';
import { type PushOutcome, pushPrompt } from '../prompt-files/push';

/** Prompts as code: a folder of `<promptId>.prompt.yaml` files, pulled from, pushed to and compared with an account (docs/prompts-as-code.md). */

const FOLDER_OPTIONS = { account: { type: 'string' }, dir: { type: 'string' } } as const;
const FOLDER_HELP = ['--account <accountId>  the account (required)', '--dir <folder>         the folder of <promptId>.prompt.yaml files (required)'];

async function compare(context: CommandContext, accountId: string, dir: string): Promise<{ plan: FolderPlan; files: PromptFile[] }> {
  const files = await readPromptFolder(dir);
  await requireAccount(context.table(), accountId);
  return { plan: planFolder(files, await readServedPrompts(context.table(), accountId)), files };
}

const pull: Command = {
  words: ['prompts', 'pull'],
  summary: 'Write a folder of prompt files from what an account serves',
  synopsis: '--account <accountId> --dir <folder>',
  help: [
    ...FOLDER_HELP,
    'Every prompt with a published version, at its latest, with its name, description, tags and labels, as',
    '<promptId>.prompt.yaml. A file whose bytes would not change is not written: pulling twice changes nothing.',
    'Files of prompts the account does not serve are left alone (prompts diff reports them).',
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
    return { json: { accountId, dir, prompts: served.length, written }, text };
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
    'members approve in the dashboard; a label already awaiting that very move is left alone.',
  ],
  examples: ['prompts push --account acme --dir prompts/acme --note "From main at $GITHUB_SHA" --dry-run'],
  options: { ...FOLDER_OPTIONS, note: { type: 'string' }, 'dry-run': { type: 'boolean' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const dir = requiredOption(args, 'dir');
    const note = requiredOption(args, 'note');
    if (note.trim() === '' || note.length > 500) throw new UsageError('--note must be 1 to 500 characters');
    const { plan, files } = await compare(context, accountId, dir);
    if (plan.refused.length > 0) {
      throw new UsageError(`nothing pushed: ${plan.refused.map((refusal) => refusal.reason).join('; ')}`);
    }
    if (args.values['dry-run'] === true) {
      const text = [`Dry run for account ${accountId} (nothing changed):`, ...planText(plan)].join('\n');
      return { json: { accountId, dryRun: true, ...plan }, text };
    }
    const byId = new Map(files.map((file) => [file.promptId, file]));
    const outcomes: PushOutcome[] = [];
    for (const change of plan.changes) {
      outcomes.push(await pushPrompt(context.operations(), accountId, change, byId.get(change.promptId) as PromptFile, note));
    }
    const failed = outcomes.filter((outcome) => outcome.outcome !== 'changed');
    const lines = [
      `Pushed ${dir} to account ${accountId}:`,
      ...outcomes.flatMap((outcome) =>
        outcome.outcome === 'changed'
          ? [`  changed ${outcome.promptId}`, ...outcome.awaiting.map(({ label, requestId }) => `    label ${label}: awaiting approval: request ${requestId}`)]
          : [`  NOT changed ${outcome.promptId}: ${outcome.reason}`],
      ),
      ...(plan.unchanged.length > 0 ? [`  nothing to do: ${plan.unchanged.join(', ')}`] : []),
      ...plan.pending.map((pending) => `  ${describePending(pending)}`),
      ...(plan.orphans.length > 0 ? [`  served but not in the folder (left alone): ${plan.orphans.join(', ')}`] : []),
    ];
    return {
      json: { accountId, outcomes, unchanged: plan.unchanged, orphans: plan.orphans, pending: plan.pending },
      text: lines.join('\n'),
      ...(failed.length > 0 ? { exitCode: 1 } : {}),
    };
  },
};

const diff: Command = {
  words: ['prompts', 'diff'],
  summary: 'Report drift between a folder of prompt files and what an account serves (exit 1 on drift)',
  synopsis: '--account <accountId> --dir <folder>',
  help: [
    ...FOLDER_HELP,
    'Drift: a prompt whose served content, labels, name, description or tags differ from its file, a file the',
    'account does not serve yet, a file that could not be pushed, and orphans (served, not in the folder). A label',
    "with an open change request to exactly the file's version is pending approval, reported, and no drift.",
    'Exit status 0 when there is none, 1 when there is; --json for scripts.',
  ],
  examples: ['prompts diff --account acme --dir prompts/acme', 'prompts diff --account acme --dir prompts/acme --json'],
  options: FOLDER_OPTIONS,
  async run(context, args) {
    const accountId = accountOption(args);
    const dir = requiredOption(args, 'dir');
    const { plan } = await compare(context, accountId, dir);
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
    return { json: { accountId, drift: !clean, ...drift, unchanged: plan.unchanged, pending: plan.pending }, text, ...(clean ? {} : { exitCode: 1 }) };
  },
};

export const promptFolderCommands: readonly Command[] = [pull, push, diff];
