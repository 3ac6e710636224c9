import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AdminTable } from '../../lambda/table/admin-table';
import { listPromptSummaries } from '../../lambda/table/prompts';
import { listPrompts, readVersion } from '../../lambda/table/prompt-authoring';
import { listOpenRequestPointers } from '../../lambda/table/change-requests';
import type { OpenRequest, ServedPrompt } from './folder-plan';
import { formatPromptFile, PROMPT_FILE_SUFFIX, type PromptFile, PromptFileError, parsePromptFile, promptIdOfFile, sortedLabels } from './prompt-file';

/** A folder of prompt files, read and written; and an account's prompts, read as files would hold them. */

/** Every `*.prompt.yaml` of the folder, by prompt id; every bad file named at once, and then none is taken. */
export async function readPromptFolder(dir: string): Promise<PromptFile[]> {
  const names = await readdir(dir).catch(() => {
    throw new PromptFileError(`${dir}: cannot read the folder`);
  });
  const files: PromptFile[] = [];
  const problems: string[] = [];
  for (const name of names.filter((each) => promptIdOfFile(each) !== undefined).sort()) {
    try {
      files.push(parsePromptFile(join(dir, name), await readFile(join(dir, name), 'utf8')));
    } catch (error) {
      if (!(error instanceof PromptFileError)) throw error;
      problems.push(error.message);
    }
  }
  if (problems.length > 0) throw new PromptFileError(problems.join('; '));
  return files;
}

/** Writes each file whose bytes differ (through a temporary file, never half-written); returns those written. */
export async function writePromptFolder(dir: string, files: readonly PromptFile[]): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const file of files) {
    const path = join(dir, `${file.promptId}${PROMPT_FILE_SUFFIX}`);
    const text = formatPromptFile(file);
    const current = await readFile(path, 'utf8').catch(() => undefined);
    if (current === text) continue;
    await writeFile(`${path}.tmp`, text);
    await rename(`${path}.tmp`, path);
    written.push(path);
  }
  return written;
}

/** The account's prompts: each with its versions, labels, open change requests, and its latest published version as a file. */
export async function readServedPrompts(table: AdminTable, accountId: string): Promise<ServedPrompt[]> {
  const [summaries, entries, pointers] = await Promise.all([
    listPromptSummaries(table, accountId),
    listPrompts(table, accountId),
    listOpenRequestPointers(table, accountId),
  ]);
  const details = new Map(entries.map((entry) => [entry.promptId, entry]));
  // By prompt, then label: a Map and a table that inherits nothing (a label may be named `constructor`).
  const open = new Map<string, Record<string, OpenRequest>>();
  for (const pointer of pointers) {
    const labels = open.get(pointer.promptId) ?? (Object.create(null) as Record<string, OpenRequest>);
    labels[pointer.label] = { requestId: pointer.requestId, to: pointer.to ?? null };
    open.set(pointer.promptId, labels);
  }
  return Promise.all(
    summaries.map(async (summary): Promise<ServedPrompt> => {
      const entry = details.get(summary.promptId);
      const requests = open.get(summary.promptId);
      const base = {
        promptId: summary.promptId,
        deleted: summary.deleted,
        versions: summary.versions,
        labels: summary.labels,
        ...(requests ? { openRequests: requests } : {}),
      };
      if (summary.latestVersion === undefined) return base;
      const stored = await readVersion(table, accountId, summary.promptId, summary.latestVersion);
      return {
        ...base,
        latest: {
          promptId: summary.promptId,
          promptName: summary.promptName,
          description: entry?.description ?? null,
          tags: [...(entry?.tags ?? [])].sort(),
          version: stored.version,
          systemMessage: stored.systemMessage,
          userMessage: stored.userMessage,
          config: stored.config,
          labels: sortedLabels(summary.labels),
        },
      };
    }),
  );
}
