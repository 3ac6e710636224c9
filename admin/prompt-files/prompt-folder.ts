import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Table } from '../../lambda/table/table';
import { listPromptSummaries } from '../../lambda/features/prompts/deletion';
import { listPrompts, readVersion } from '../../lambda/features/prompts/authoring';
import { listOpenChangeRequestPointers } from '../../lambda/features/change-requests/open-change-requests';
import type { OpenChangeRequest, ServedPrompt } from './folder-plan';
import { formatPromptFile, PROMPT_FILE_SUFFIX, type PromptFile, PromptFileError, parsePromptFile, promptIdOfFile, sortedLabels } from './prompt-file';

/** A folder of prompt files, read and written; and an account's prompts, read as files would hold them. */

/** What a name in the folder is: a prompt file, skipped unsaid (hidden), refused (meant as a prompt file), or reported. */
export type FolderEntry =
  | { readonly kind: 'prompt' | 'hidden' }
  | { readonly kind: 'misnamed'; readonly problem: string }
  | { readonly kind: 'other'; readonly warning: string };

/**
 * A name that says `.prompt.` but ends otherwise (`x.prompt.yml`, `x.Prompt.yaml`) was meant as a prompt file:
 * left unread, its prompt would silently not be pushed, so it is refused. Anything else that is not a prompt file
 * (`notes.txt`, `welcome.yaml`, a folder) is reported and left alone; hidden names (`.gitkeep`) are skipped unsaid.
 */
export function classifyEntry(dir: string, name: string, isFolder: boolean): FolderEntry {
  if (name.startsWith('.')) return { kind: 'hidden' };
  const path = join(dir, name);
  if (isFolder) return { kind: 'other', warning: `${path}: a folder, not read (prompt files are read from ${dir} itself)` };
  if (promptIdOfFile(name) !== undefined) return { kind: 'prompt' };
  if (/\.prompt\.[^.]*$/i.test(name)) {
    const meant = name.replace(/\.prompt\.[^.]*$/i, PROMPT_FILE_SUFFIX);
    return { kind: 'misnamed', problem: `${path}: not read: a prompt file's name ends in ${PROMPT_FILE_SUFFIX} (rename it ${meant})` };
  }
  return { kind: 'other', warning: `${path}: not a prompt file (<promptId>${PROMPT_FILE_SUFFIX}), not read` };
}

async function folderEntries(dir: string): Promise<{ name: string; entry: FolderEntry }[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => {
    throw new PromptFileError(`${dir}: cannot read the folder`);
  });
  return entries.map((each) => ({ name: each.name, entry: classifyEntry(dir, each.name, each.isDirectory()) })).sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** What the folder holds besides prompt files, for `prompts pull` (which reads none of it): each named. */
export async function folderWarnings(dir: string): Promise<string[]> {
  const entries = await folderEntries(dir).catch(() => []);
  return entries.flatMap(({ entry }) => (entry.kind === 'misnamed' ? [entry.problem] : entry.kind === 'other' ? [entry.warning] : []));
}

export interface PromptFolder {
  readonly files: PromptFile[];
  /** Names in the folder that are not prompt files, each with why it is not read. */
  readonly warnings: string[];
}

/**
 * Every `*.prompt.yaml` of the folder, by prompt id, and a warning for each other name. Every bad file (and
 * every name meant as a prompt file's that is not one) is named at once, each problem on its own line, and
 * then none is taken.
 */
export async function readPromptFolder(dir: string): Promise<PromptFolder> {
  const files: PromptFile[] = [];
  const problems: string[] = [];
  const warnings: string[] = [];
  for (const { name, entry } of await folderEntries(dir)) {
    if (entry.kind === 'misnamed') problems.push(entry.problem);
    if (entry.kind === 'other') warnings.push(entry.warning);
    if (entry.kind !== 'prompt') continue;
    try {
      files.push(parsePromptFile(join(dir, name), await readFile(join(dir, name), 'utf8')));
    } catch (error) {
      if (!(error instanceof PromptFileError)) throw error;
      problems.push(error.message);
    }
  }
  if (problems.length > 0) throw new PromptFileError([...problems, ...warnings.map((warning) => `warning: ${warning}`)].join('\n'));
  return { files, warnings };
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
export async function readServedPrompts(table: Table, accountId: string): Promise<ServedPrompt[]> {
  const [summaries, entries, pointers] = await Promise.all([
    listPromptSummaries(table, accountId),
    listPrompts(table, accountId),
    listOpenChangeRequestPointers(table, accountId),
  ]);
  const details = new Map(entries.map((entry) => [entry.promptId, entry]));
  // By prompt, then label: a Map and a table that inherits nothing (a label may be named `constructor`).
  const open = new Map<string, Record<string, OpenChangeRequest>>();
  for (const pointer of pointers) {
    const labels = open.get(pointer.promptId) ?? (Object.create(null) as Record<string, OpenChangeRequest>);
    labels[pointer.label] = { requestId: pointer.requestId, to: pointer.to ?? null };
    open.set(pointer.promptId, labels);
  }
  return Promise.all(
    summaries.map(async (summary): Promise<ServedPrompt> => {
      const entry = details.get(summary.promptId);
      const openChangeRequests = open.get(summary.promptId);
      const base = {
        promptId: summary.promptId,
        deleted: summary.deleted,
        versions: summary.versions,
        labels: summary.labels,
        ...(openChangeRequests ? { openChangeRequests } : {}),
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
