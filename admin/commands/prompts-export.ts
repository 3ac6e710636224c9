import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { RolloutShare } from '../../client/src/rollout';
import { createSnapshot } from '../../client/src/snapshot';
import { requireAccount } from '../../lambda/features/accounts/accounts';
import { listPromptSummaries } from '../../lambda/features/prompts/deletion';
import { type Prompt, toPromptBody } from '../../lambda/domain/prompt';
import { type Command, requiredOption } from '../command';
import { accountOption } from '../option-values';

/** `prompts export`: the client's snapshot format, written from the store, for bundling with an app. */

/** Reads of version items at once: enough to overlap round trips, few enough not to throttle the table. */
const EXPORT_READS_AT_ONCE = 8;

export const exportCommand: Command = {
  words: ['prompts', 'export'],
  summary: "Write an account's published prompts as a client snapshot, to bundle with an app at build time",
  synopsis: '--account <accountId> --out <file>',
  help: [
    '--account <accountId>  the account (required)',
    '--out <file>           where to write the snapshot (JSON); replaced whole, never left half-written',
    'Every prompt the API serves, at its latest version, every other published version of it, where each of',
    'its labels points, and the rollout of each label that rolls out (so a fallback keeps each user on their',
    "side): the format of the client's prompts.snapshot(), which its snapshot option takes (docs/clients.md).",
    'Drafts and deleted prompts are left out. Reads the store; uses no API key and no quota.',
  ],
  examples: ['prompts export --account acme --out src/prompts.snapshot.json'],
  options: { account: { type: 'string' }, out: { type: 'string' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const out = requiredOption(args, 'out');
    await requireAccount(context.table(), accountId);
    const summaries = await listPromptSummaries(context.table(), accountId);
    const store = context.promptReader();
    // Off the request path: no deadline but the operator client's own timeouts, and no cached copies.
    const reader = { accountId, promptsRevision: 0, deadline: new AbortController().signal };
    const latest = await store.listPromptsWithVersions(reader);
    const wanted = latest.flatMap((prompt) =>
      prompt.publishedVersions.filter(({ version }) => version !== prompt.version).map(({ version }) => ({ promptId: prompt.promptId, version })),
    );
    const others: Prompt[] = [];
    for (let at = 0; at < wanted.length; at += EXPORT_READS_AT_ONCE) {
      const lookups = await Promise.all(
        wanted.slice(at, at + EXPORT_READS_AT_ONCE).map(({ promptId, version }) => store.findPromptVersion(reader, promptId, version)),
      );
      // A version unpublished or deleted between the list and this read is simply not exported.
      for (const lookup of lookups) if (lookup.found) others.push(toPromptBody(lookup.prompt));
    }
    // Where each label points, so an app offline resolves get(id, { label }) too; each labelled version is
    // published, so it is among those read above (createSnapshot leaves out any that is not).
    const labels: Record<string, Record<string, string>> = Object.create(null);
    for (const summary of summaries) {
      if (summary.deleted) continue;
      for (const [label, version] of Object.entries(summary.labels)) {
        const targets = labels[label] ?? Object.create(null);
        targets[summary.promptId] = version;
        labels[label] = targets;
      }
    }
    // The labels that roll out, one read per label name: the share, so that a fallback keeps each subject on its
    // side (docs/rollouts.md). Both versions are published, so both are among those read above.
    const rollouts: Record<string, Record<string, RolloutShare>> = Object.create(null);
    for (const label of Object.keys(labels)) {
      for (const atLabel of await store.listLabelledPrompts(reader, label)) {
        if (!atLabel.rollout) continue;
        const targets = rollouts[label] ?? Object.create(null);
        targets[atLabel.promptId] = {
          rolloutId: atLabel.rollout.rolloutId,
          percent: atLabel.rollout.percent,
          from: atLabel.version,
          to: atLabel.rollout.to.version,
        };
        rollouts[label] = targets;
      }
    }
    const snapshot = createSnapshot(latest.map(toPromptBody), others, context.now(), labels, rollouts);
    await mkdir(dirname(resolve(out)), { recursive: true });
    const temporary = `${resolve(out)}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(snapshot, null, 2)}\n`);
    await rename(temporary, resolve(out));
    const counts = { prompts: snapshot.prompts.length, versions: snapshot.versions.length, labels: Object.keys(snapshot.labels ?? {}).length };
    return {
      json: { accountId, out, ...counts },
      text:
        `Wrote ${out}: ${counts.prompts} prompt(s) of account ${accountId} at their latest version, and ${counts.versions} other published version(s)` +
        (counts.labels > 0 ? `; ${counts.labels} label(s)` : ''),
    };
  },
};
