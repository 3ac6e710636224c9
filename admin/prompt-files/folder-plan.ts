import { createTwoFilesPatch } from 'diff';
import { canonicalJson as stableJson } from '../../lambda/domain/canonical-json';
import { compareVersions } from '../../lambda/domain/version';
import { labelledVersion } from '../../lambda/domain/label';
import { PROMPT_FILE_SUFFIX, type PromptFile } from './prompt-file';

/**
 * What an account serves, against what a folder of prompt files says: for `prompts diff` the drift, for
 * `prompts push` the plan. Pure: the reads are served-state.ts's, the writes push.ts's.
 */

/** One prompt as the account holds it. */
export interface ServedPrompt {
  readonly promptId: string;
  readonly deleted: boolean;
  /** Every stored version: published ones and drafts. */
  readonly versions: readonly { readonly version: string; readonly published: boolean }[];
  readonly labels: Readonly<Record<string, string>>;
  /** The latest published version, as a file would hold it; absent while nothing is published. */
  readonly latest?: PromptFile;
  /** Labels with an open change request, label -> the request and where it would move the label (`null`: removed). */
  readonly openChangeRequests?: Readonly<Record<string, OpenChangeRequest>>;
}

export interface OpenChangeRequest {
  readonly requestId: string;
  readonly to: string | null;
}

/** A label whose open change request asks for exactly what the file says: pending approval, not drift. */
export interface PendingLabel {
  readonly label: string;
  readonly to: string | null;
  readonly requestId: string;
}

/** What one prompt's file asks for, once every check has passed. */
export interface PromptPlan {
  readonly promptId: string;
  /** A new prompt: created first, with the file's name. */
  readonly create: boolean;
  /** The version to publish, with the file's content; absent when the served latest already is the file's. */
  readonly publish?: { readonly version: string; readonly diff: string };
  readonly labels: readonly { readonly label: string; readonly from: string | null; readonly to: string | null }[];
  /** Labels awaiting the approval of a request that moves them as the file says: left alone. */
  readonly pending: readonly PendingLabel[];
  /** A new name, description or tags. */
  readonly details?: { readonly promptName: string; readonly description: string | null; readonly tags: readonly string[] };
}

export interface FolderPlan {
  readonly changes: readonly PromptPlan[];
  readonly unchanged: readonly string[];
  /** Served, and not in the folder: reported, never deleted. */
  readonly orphans: readonly string[];
  /** Files that cannot be pushed, each with why: a push with any of them changes nothing. */
  readonly refused: readonly { readonly promptId: string; readonly reason: string }[];
  /** Labels awaiting approval (an open change request to exactly the file's version): neither drift nor pushed again. */
  readonly pending: readonly (PendingLabel & { readonly promptId: string })[];
}

const contentOf = (file: PromptFile) => ({ systemMessage: file.systemMessage, userMessage: file.userMessage, config: file.config });
const sameContent = (a: PromptFile, b: PromptFile) => stableJson(contentOf(a)) === stableJson(contentOf(b));

/** The file's content as lines, for a line diff: each message, then the config as indented JSON. */
function contentText(file: PromptFile | undefined): string {
  if (!file) return '';
  return [
    'systemMessage:',
    file.systemMessage,
    'userMessage:',
    file.userMessage,
    'config:',
    JSON.stringify(JSON.parse(stableJson(file.config)), null, 2),
    '',
  ].join('\n');
}

/**
 * A unified diff (`---`, `+++`, `@@` hunks) of what publishing the file changes against what is served: what
 * `patch`, a pull request's reviewer and a Markdown ```diff block all read.
 */
export function contentDiff(promptId: string, served: PromptFile | undefined, file: PromptFile): string {
  const before = served ? `${promptId}@${served.version} (served)` : `${promptId} (nothing published)`;
  const patch = createTwoFilesPatch(before, `${promptId}${PROMPT_FILE_SUFFIX}@${file.version}`, contentText(served), contentText(file), '', '', {
    context: 2,
  });
  // The library opens with a line of `=` (svn's Index banner), which is no part of a unified diff.
  return patch.slice(patch.indexOf('--- ')).trimEnd();
}

function detailsChange(served: PromptFile | undefined, file: PromptFile): PromptPlan['details'] {
  const wanted = { promptName: file.promptName, description: file.description, tags: [...file.tags] };
  if (!served) return file.description !== null || file.tags.length > 0 ? wanted : undefined;
  const same = served.promptName === file.promptName && served.description === file.description && stableJson(served.tags) === stableJson(file.tags);
  return same ? undefined : wanted;
}

/** Why a file cannot be pushed, or its plan. */
function planOne(file: PromptFile, served: ServedPrompt | undefined): PromptPlan | { refused: string } {
  if (served?.deleted) return { refused: `prompt ${file.promptId} is deleted: restore it first (prompts restore), then push` };
  const latest = served?.latest;
  const stored = served?.versions.find((each) => each.version === file.version);
  let publish: PromptPlan['publish'];
  if (latest && file.version === latest.version) {
    if (!sameContent(latest, file)) {
      return { refused: `${file.promptId}.prompt.yaml changes published version ${file.version}, which never changes: give it a new version` };
    }
  } else if (latest && compareVersions(file.version, latest.version) < 0) {
    return {
      refused: `${file.promptId}.prompt.yaml names version ${file.version}, below ${latest.version}, the latest published: the folder holds the current content`,
    };
  } else if (stored?.published) {
    return { refused: `${file.promptId}.prompt.yaml names version ${file.version}, published already` };
  } else if (stored) {
    return { refused: `prompt ${file.promptId} has a draft ${file.version}: publish or delete it in the dashboard, or give the file another version` };
  } else {
    publish = { version: file.version, diff: contentDiff(file.promptId, latest, file) };
  }
  const publishedAfter = new Set([...(served?.versions ?? []).filter((each) => each.published).map((each) => each.version), file.version]);
  const labels: { label: string; from: string | null; to: string | null }[] = [];
  const pending: PendingLabel[] = [];
  const open = (label: string) =>
    served?.openChangeRequests && Object.hasOwn(served.openChangeRequests, label) ? served.openChangeRequests[label] : undefined;
  const move = (label: string, from: string | null, to: string | null) => {
    const asked = open(label);
    if (asked && asked.to === to) pending.push({ label, to, requestId: asked.requestId });
    else labels.push({ label, from, to });
  };
  for (const [label, version] of Object.entries(file.labels)) {
    if (!publishedAfter.has(version)) return { refused: `${file.promptId}.prompt.yaml points label ${label} at ${version}, which is not published` };
    const from = labelledVersion(served?.labels, label) ?? null;
    if (from !== version) move(label, from, version);
  }
  for (const [label, version] of Object.entries(served?.labels ?? {})) {
    if (labelledVersion(file.labels, label) === undefined) move(label, version, null);
  }
  const details = detailsChange(latest, file);
  return {
    promptId: file.promptId,
    create: served === undefined,
    ...(publish ? { publish } : {}),
    labels,
    pending,
    ...(details ? { details } : {}),
  };
}

export function planFolder(files: readonly PromptFile[], served: readonly ServedPrompt[]): FolderPlan {
  const byId = new Map(served.map((prompt) => [prompt.promptId, prompt]));
  const inFolder = new Set(files.map((file) => file.promptId));
  const changes: PromptPlan[] = [];
  const unchanged: string[] = [];
  const refused: { promptId: string; reason: string }[] = [];
  const pending: (PendingLabel & { promptId: string })[] = [];
  for (const file of files) {
    const plan = planOne(file, byId.get(file.promptId));
    if ('refused' in plan) refused.push({ promptId: file.promptId, reason: plan.refused });
    else {
      pending.push(...plan.pending.map((each) => ({ promptId: file.promptId, ...each })));
      if (plan.create || plan.publish || plan.labels.length > 0 || plan.details) changes.push(plan);
      else unchanged.push(file.promptId);
    }
  }
  const orphans = served.filter((prompt) => !prompt.deleted && prompt.latest && !inFolder.has(prompt.promptId)).map((prompt) => prompt.promptId);
  return { changes, unchanged, orphans, refused, pending };
}

/** A label awaiting approval, in words. */
export const describePending = (pending: PendingLabel & { readonly promptId: string }): string =>
  `${pending.promptId}: label ${pending.label} ${pending.to === null ? 'removal' : `to ${pending.to}`} awaiting approval: request ${pending.requestId}`;

/** One prompt's plan in words, with the diff of what publishing changes. */
export function describePlan(plan: PromptPlan): string {
  const lines = [`${plan.promptId}:`];
  if (plan.create) lines.push('  create the prompt');
  if (plan.publish) lines.push(`  publish ${plan.publish.version}`, ...plan.publish.diff.split('\n').map((line) => `    ${line}`));
  for (const { label, from, to } of plan.labels) {
    lines.push(
      to === null ? `  remove label ${label} (was ${from})` : from === null ? `  set label ${label} to ${to}` : `  move label ${label} from ${from} to ${to}`,
    );
  }
  if (plan.details) lines.push(`  set name, description and tags: ${JSON.stringify(plan.details)}`);
  return lines.join('\n');
}
