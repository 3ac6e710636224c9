import type { FolderPlan, PromptPlan } from './folder-plan';
import { describePending } from './folder-plan';

/**
 * `prompts diff --report` and `prompts check --report`: what a pull request changes, as Markdown for a CI job's
 * summary (`$GITHUB_STEP_SUMMARY`) or a comment. Whatever the files hold (a message may hold backticks or HTML)
 * is inside a code fence longer than any run of backticks in it, so it shows as written and renders as nothing.
 */

function fenced(text: string, language = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${text}\n${fence}`;
}

function labelMove({ label, from, to }: PromptPlan['labels'][number]): string {
  return to === null
    ? `remove label \`${label}\` (was ${from})`
    : from === null
      ? `set label \`${label}\` to ${to}`
      : `move label \`${label}\` from ${from} to ${to}`;
}

function promptSection(plan: PromptPlan): string[] {
  const steps = [
    ...(plan.create ? ['create the prompt'] : []),
    ...(plan.publish ? [`publish ${plan.publish.version}`] : []),
    ...plan.labels.map(labelMove),
    ...(plan.details ? ['set name, description and tags'] : []),
  ];
  return [`### \`${plan.promptId}\``, '', ...steps.map((step) => `- ${step}`), '', ...(plan.publish ? [fenced(plan.publish.diff, 'diff'), ''] : [])];
}

function warningSection(warnings: readonly string[]): string[] {
  return warnings.length > 0 ? ['**Not read** (not prompt files):', '', fenced(warnings.join('\n')), ''] : [];
}

export function driftReport(title: string, plan: FolderPlan, warnings: readonly string[]): string {
  const lines = [`## ${title}`, ''];
  if (plan.refused.length > 0) {
    lines.push(`**${plan.refused.length} file(s) cannot be pushed:**`, '', fenced(plan.refused.map((refusal) => refusal.reason).join('\n')), '');
  }
  lines.push(
    plan.changes.length === 0
      ? `No change: the account serves what the folder holds (${plan.unchanged.length} prompt(s)).`
      : `**${plan.changes.length} prompt(s) change when this is pushed**; ${plan.unchanged.length} unchanged.`,
    '',
  );
  for (const change of plan.changes) lines.push(...promptSection(change));
  if (plan.orphans.length > 0) lines.push(`Served but not in the folder (a push leaves them alone): ${plan.orphans.map((id) => `\`${id}\``).join(', ')}`, '');
  if (plan.pending.length > 0) lines.push('Awaiting approval:', '', fenced(plan.pending.map(describePending).join('\n')), '');
  lines.push(...warningSection(warnings));
  return `${lines.join('\n').trimEnd()}\n`;
}

export function badFilesReport(title: string, problems: string): string {
  return `## ${title}\n\n**Bad files: nothing can be pushed until they are fixed.**\n\n${fenced(problems)}\n`;
}

export function checkReport(title: string, count: number, warnings: readonly string[]): string {
  return `${[`## ${title}`, '', `${count} prompt file(s), all good.`, '', ...warningSection(warnings)].join('\n').trimEnd()}\n`;
}
