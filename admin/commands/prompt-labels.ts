import type { ChangeRequest } from '../../lambda/features/change-requests/answers';
import { NotFoundError } from '../../lambda/table/errors';
import { isHistoryCursor, listLabelHistory } from '../../lambda/table/label-history';
import type { LabelMoveOutcome } from '../../lambda/features/change-requests/approval-gate';
import { listLabels } from '../../lambda/features/labels/labels';
import { requireHead } from '../../lambda/features/prompts/authoring';
import { requireAccount } from '../../lambda/features/accounts/accounts';
import { type Command, operationsOn, stringOption, table, UsageError } from '../command';
import { accountOption, labelOption, promptIdOption, versionOption } from '../option-values';

/**
 * Moving labels: what the API serves at `?label=`, changed without a deploy (docs/cli.md "Labels"), through the
 * operations the management API's label routes make: audited as label.set and label.remove, each move kept in
 * the label's history. A label the account puts under approval is asked for, as from the dashboard: a change
 * request (requested by `cli:<operator>`), which members approve. `--break-glass` is the operator's one way past
 * it: the label moves at once, and its history and audit entry say `break-glass`.
 */

const BREAK_GLASS_HELP = [
  '--break-glass          a label the account puts under approval moves at once, without its change request:',
  "                       the operator's break-glass, kept in the label's history (reason break-glass) and the",
  '                       audit log (breakGlass: true). Without it, such a label is asked for (a change request).',
];

/** What the operator is told when the move was asked for rather than made. */
function askedText(changeRequest: ChangeRequest, accountId: string): string {
  const move = changeRequest.to === null ? `the removal of label ${changeRequest.label}` : `the move of label ${changeRequest.label} to ${changeRequest.to}`;
  return [
    `The account puts label ${changeRequest.label} of prompt ${changeRequest.promptId} (account ${accountId}) under approval: asked for ${move} in change request ${changeRequest.requestId}.`,
    `It moves once ${changeRequest.required === 1 ? 'a member approves' : `${changeRequest.required} members approve`} it (the dashboard's Requests); to move it now without a request, run again with --break-glass.`,
  ].join('\n');
}

function noteOption(args: Parameters<Command['run']>[1]): string | undefined {
  const note = stringOption(args, 'note');
  if (note === undefined) return undefined;
  if (note.trim() === '' || note.trim().length > 500) throw new UsageError('--note must be 1 to 500 characters');
  return note.trim();
}

const label: Command = {
  words: ['prompts', 'label'],
  summary: 'Point a label (production, staging, ...) at a published version: set it, or move it',
  synopsis: '--account <accountId> --prompt <promptId> --label <name> --version <x.y.z> [--note <text>] [--break-glass]',
  help: [
    '--account <accountId>  the account (required)',
    '--prompt <promptId>    the prompt (required)',
    '--label <name>         the label (required): 1 to 32 characters of a-z 0-9 - _, starting with a letter;',
    '                       "latest" is reserved (it always means the highest published version)',
    '--version <x.y.z>      the published version it should point at (required); drafts are refused',
    "--note <text>          why (1 to 500 characters): the label's history keeps it (prompts label-history)",
    ...BREAK_GLASS_HELP,
    'The API serves the new target at ?label=<name> from the very next request. Running it again changes',
    'nothing. To roll back, point the label at the version it pointed at before (prompts label-history shows it).',
  ],
  examples: [
    'prompts label --account acme --prompt welcome-email --label production --version 1.2.0 --note "Fixes the greeting"',
    'prompts label --account acme --prompt welcome-email --label staging --version 1.3.0',
    'prompts label --account acme --prompt welcome-email --label production --version 1.1.0 --note "incident 42: back to 1.1.0" --break-glass',
  ],
  options: {
    account: { type: 'string' },
    prompt: { type: 'string' },
    label: { type: 'string' },
    version: { type: 'string' },
    note: { type: 'string' },
    'break-glass': { type: 'boolean' },
  },
  async run(context, args) {
    const accountId = accountOption(args);
    const promptId = promptIdOption(args);
    const name = labelOption(args);
    const version = versionOption(args);
    const note = noteOption(args);
    const breakGlass = args.values['break-glass'] === true;
    const options = { ...(note === undefined ? {} : { note }), ...(breakGlass ? { breakGlass } : {}) };
    const outcome = await (await operationsOn(context, accountId)).labels.set(accountId, promptId, name, version, options);
    if ('changeRequest' in outcome) return { json: { accountId, request: outcome.changeRequest }, text: askedText(outcome.changeRequest, accountId) };
    const change = outcome.moved;
    const glass = outcome.breakGlass ? ' (break-glass: no change request)' : '';
    const text = !change.changed
      ? `Label ${name} of prompt ${promptId} already points at ${version}: nothing changed`
      : change.previousVersion === undefined
        ? `Label ${name} of prompt ${promptId} (account ${accountId}) now points at ${version}${glass}`
        : `Moved label ${name} of prompt ${promptId} (account ${accountId}) from ${change.previousVersion} to ${version}${glass}`;
    return { json: { ...change, ...(outcome.breakGlass ? { breakGlass: true } : {}) }, text };
  },
};

const unlabel: Command = {
  words: ['prompts', 'unlabel'],
  summary: 'Remove a label from a prompt: the API answers 404 LABEL_NOT_FOUND for it from then on',
  synopsis: '--account <accountId> --prompt <promptId> --label <name> [--break-glass]',
  help: [
    '--account <accountId>  the account (required)',
    '--prompt <promptId>    the prompt (required)',
    '--label <name>         the label to remove (required)',
    ...BREAK_GLASS_HELP,
    'Only the label goes: every version stays published. Removing a label the prompt does not carry changes nothing.',
  ],
  examples: ['prompts unlabel --account acme --prompt welcome-email --label staging'],
  options: { account: { type: 'string' }, prompt: { type: 'string' }, label: { type: 'string' }, 'break-glass': { type: 'boolean' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const promptId = promptIdOption(args);
    const name = labelOption(args);
    const breakGlass = args.values['break-glass'] === true;
    const ops = await operationsOn(context, accountId);
    let outcome: LabelMoveOutcome;
    try {
      outcome = await ops.labels.remove(accountId, promptId, name, breakGlass ? { breakGlass } : {});
    } catch (error) {
      // The operation refuses a label the prompt does not carry (the API answers 404, and the attempt is in the
      // audit log as refused, as the API's is); the CLI's unlabel then changes nothing, as it always has. A prompt
      // that does not exist (listLabels says so) or a label that is there after all is the error it was.
      if (!(error instanceof NotFoundError) || (await listLabels(context.table(), accountId, promptId))[name] !== undefined) throw error;
      outcome = { moved: { accountId, promptId, label: name, changed: false } };
    }
    if ('changeRequest' in outcome) return { json: { accountId, request: outcome.changeRequest }, text: askedText(outcome.changeRequest, accountId) };
    const change = outcome.moved;
    const text = change.changed
      ? `Removed label ${name} (was ${change.previousVersion}) from prompt ${promptId} of account ${accountId}${outcome.breakGlass ? ' (break-glass: no change request)' : ''}`
      : `Prompt ${promptId} has no label ${name}: nothing changed`;
    return { json: { ...change, ...(outcome.breakGlass ? { breakGlass: true } : {}) }, text };
  },
};

const history: Command = {
  words: ['prompts', 'label-history'],
  summary: "A label's moves and removals, newest first: when, who, from which version to which, and why",
  synopsis: '--account <accountId> --prompt <promptId> --label <name> [--before <cursor>]',
  help: [
    '--account <accountId>  the account (required)',
    '--prompt <promptId>    the prompt (required)',
    '--label <name>         the label (required)',
    '--before <cursor>      the next page: the cursor the page before printed',
    '50 moves a page. `-` is no version: the label was not there, or was removed. Why: the note of the move,',
    '`push`, `restore`, `request <id>` (a change request approved), `break-glass` (an operator moved a label under',
    'approval without its request), `rollout <id>`, `import`.',
  ],
  examples: [
    'prompts label-history --account acme --prompt welcome-email --label production',
    'prompts label-history --account acme --prompt welcome-email --label production --json',
  ],
  options: { account: { type: 'string' }, prompt: { type: 'string' }, label: { type: 'string' }, before: { type: 'string' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const promptId = promptIdOption(args);
    const name = labelOption(args);
    const before = stringOption(args, 'before');
    if (before !== undefined && !isHistoryCursor(before, promptId, name))
      throw new UsageError('--before must be a cursor an earlier page of this label history printed');
    await requireAccount(context.table(), accountId);
    await requireHead(context.table(), accountId, promptId);
    const page = await listLabelHistory(context.table(), accountId, promptId, name, before === undefined ? {} : { before });
    const rows = page.entries.map((entry) => [entry.at, entry.by, entry.from ?? '-', entry.to ?? '-', entry.reason ?? '']);
    const text =
      page.entries.length === 0
        ? `Label ${name} of prompt ${promptId} (account ${accountId}) has never moved`
        : [
            `Label ${name} of prompt ${promptId} (account ${accountId}), newest first:`,
            table(['at', 'by', 'from', 'to', 'reason'], rows),
            ...(page.next ? [`more: add --before ${page.next}`] : []),
          ].join('\n');
    return { json: { accountId, promptId, label: name, ...page }, text };
  },
};

export const promptLabelCommands: readonly Command[] = [label, unlabel, history];
