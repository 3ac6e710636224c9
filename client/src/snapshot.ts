import { InvalidOptionsError } from './errors.js';
import { plainRollout, type RolloutShare, rolloutProblem } from './rollout.js';
import type { PromptData } from './types.js';

export const SNAPSHOT_FORMAT = 'prompt-retrieval-snapshot';
export const SNAPSHOT_FORMAT_VERSION = 1;

/**
 * Copies of prompts to serve when the API cannot be reached: what `prompts.snapshot()` returns, what
 * `prompts export` in the admin CLI writes, and what the `snapshot` option takes back (as this object,
 * or as its JSON text). Plain JSON, so it can be written to a file and bundled with an app.
 */
export interface PromptSnapshot {
  readonly format: typeof SNAPSHOT_FORMAT;
  readonly formatVersion: typeof SNAPSHOT_FORMAT_VERSION;
  /** ISO 8601: when the copies were taken. */
  readonly createdAt: string;
  /** Every prompt at its latest version, by promptId. */
  readonly prompts: readonly PromptData[];
  /** Other versions of those prompts (pinned ones, and those at labels), by promptId then version. */
  readonly versions: readonly PromptData[];
  /**
   * label -> promptId -> version: where each label pointed when the copies were taken, so an app that
   * cannot reach the API resolves `get(id, { label })` too. Each version is in `prompts` or `versions`.
   * Absent in snapshots taken before labels; such a snapshot still reads.
   */
  readonly labels?: SnapshotLabels;
  /**
   * label -> promptId -> `{rolloutId, percent, from, to}`: the labels that were rolling out, so that a
   * fallback keeps each subject on its side (docs/rollouts.md). The label points at `from` in `labels`, and
   * both versions are in `prompts` or `versions`. Absent when no label rolled out, and in older snapshots;
   * a client that predates it reads the snapshot and serves `from` at such a label.
   */
  readonly rollouts?: SnapshotRollouts;
}

export type SnapshotLabels = { readonly [label: string]: { readonly [promptId: string]: string } };
export type SnapshotRollouts = { readonly [label: string]: { readonly [promptId: string]: RolloutShare } };

export function createSnapshot(
  latest: readonly PromptData[],
  others: readonly PromptData[],
  createdAt: Date,
  labels: SnapshotLabels = {},
  rollouts: SnapshotRollouts = {},
): PromptSnapshot {
  const latestVersions = new Set(latest.map((prompt) => versionKey(prompt.promptId, prompt.version)));
  const listed = new Set(latest.map((prompt) => prompt.promptId));
  const versions = new Map<string, PromptData>();
  for (const prompt of others) {
    const key = versionKey(prompt.promptId, prompt.version);
    // A prompt missing from the latest list is gone (deleted): its old versions must not outlive it.
    if (listed.has(prompt.promptId) && !latestVersions.has(key)) versions.set(key, plain(prompt));
  }
  const held = new Set([...latestVersions, ...versions.keys()]);
  // A label of a deleted prompt, or at a version not in the snapshot, could not be served: left out.
  const kept: Record<string, Record<string, string>> = dictionary();
  for (const label of Object.keys(labels).sort()) {
    for (const [promptId, version] of Object.entries(labels[label] ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (!held.has(versionKey(promptId, version))) continue;
      const targets = kept[label] ?? dictionary<string>();
      targets[promptId] = version;
      kept[label] = targets;
    }
  }
  // A rollout is kept only where the fallback can serve both sides: the label at `from`, `to` held too.
  const keptRollouts: Record<string, Record<string, RolloutShare>> = dictionary();
  for (const label of Object.keys(rollouts).sort()) {
    for (const [promptId, rollout] of Object.entries(rollouts[label] ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (kept[label]?.[promptId] !== rollout.from || !held.has(versionKey(promptId, rollout.to))) continue;
      const targets = keptRollouts[label] ?? dictionary<RolloutShare>();
      targets[promptId] = plainRollout(rollout);
      keptRollouts[label] = targets;
    }
  }
  return {
    format: SNAPSHOT_FORMAT,
    formatVersion: SNAPSHOT_FORMAT_VERSION,
    createdAt: createdAt.toISOString(),
    prompts: [...latest].map(plain).sort(byIdThenVersion),
    versions: [...versions.values()].sort(byIdThenVersion),
    ...(Object.keys(kept).length > 0 ? { labels: kept } : {}),
    ...(Object.keys(keptRollouts).length > 0 ? { rollouts: keptRollouts } : {}),
  };
}

export function versionKey(promptId: string, version: string): string {
  return `${promptId}@${version}`;
}

/** Checks a snapshot field by field, so a damaged file fails at start-up and not during an outage. */
export function readSnapshot(input: unknown): PromptSnapshot {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (error) {
      throw new InvalidOptionsError(`snapshot: not valid JSON (${(error as Error).message})`);
    }
  }
  const snapshot = objectAt(value, 'snapshot');
  if (snapshot.format !== SNAPSHOT_FORMAT || snapshot.formatVersion !== SNAPSHOT_FORMAT_VERSION) {
    throw new InvalidOptionsError(`snapshot: not a snapshot of this client (expected format "${SNAPSHOT_FORMAT}", formatVersion ${SNAPSHOT_FORMAT_VERSION})`);
  }
  if (typeof snapshot.createdAt !== 'string' || Number.isNaN(Date.parse(snapshot.createdAt))) {
    throw new InvalidOptionsError('snapshot.createdAt: must be an ISO 8601 date');
  }
  const prompts = promptsAt(snapshot.prompts, 'snapshot.prompts');
  const versions = promptsAt(snapshot.versions, 'snapshot.versions');
  const held = new Set([...prompts, ...versions].map((prompt) => versionKey(prompt.promptId, prompt.version)));
  const labels = snapshot.labels === undefined ? undefined : labelsAt(snapshot.labels, held);
  const rollouts = snapshot.rollouts === undefined ? undefined : rolloutsAt(snapshot.rollouts, labels ?? {}, held);
  return {
    format: SNAPSHOT_FORMAT,
    formatVersion: SNAPSHOT_FORMAT_VERSION,
    createdAt: snapshot.createdAt,
    prompts,
    versions,
    ...(labels === undefined ? {} : { labels }),
    ...(rollouts === undefined ? {} : { rollouts }),
  };
}

/** Each rollout of a label the snapshot places at its `from`, with `to` held too: else a damaged file. */
function rolloutsAt(value: unknown, labels: SnapshotLabels, held: ReadonlySet<string>): SnapshotRollouts {
  const rollouts: Record<string, Record<string, RolloutShare>> = dictionary();
  for (const [label, targets] of Object.entries(objectAt(value, 'snapshot.rollouts'))) {
    const entries: Record<string, RolloutShare> = dictionary();
    for (const [promptId, rollout] of Object.entries(objectAt(targets, `snapshot.rollouts[${JSON.stringify(label)}]`))) {
      const path = `snapshot.rollouts[${JSON.stringify(label)}][${JSON.stringify(promptId)}]`;
      const problem = rolloutProblem(rollout);
      if (problem !== undefined) throw new InvalidOptionsError(`${path}${problem.startsWith('must') ? ': ' : '.'}${problem}`);
      const share = plainRollout(rollout as RolloutShare);
      if (labels[label]?.[promptId] !== share.from || !held.has(versionKey(promptId, share.to))) {
        throw new InvalidOptionsError(`${path}: the label must point at its from version, and both versions must be held in the snapshot`);
      }
      entries[promptId] = share;
    }
    rollouts[label] = entries;
  }
  return rollouts;
}

/** Each label at a version the snapshot holds: a label it could not serve is a damaged file. */
function labelsAt(value: unknown, held: ReadonlySet<string>): SnapshotLabels {
  const labels: Record<string, Record<string, string>> = dictionary();
  for (const [label, targets] of Object.entries(objectAt(value, 'snapshot.labels'))) {
    const path = `snapshot.labels[${JSON.stringify(label)}]`;
    const entries: Record<string, string> = dictionary();
    for (const [promptId, version] of Object.entries(objectAt(targets, path))) {
      if (typeof version !== 'string' || !held.has(versionKey(promptId, version))) {
        throw new InvalidOptionsError(`${path}[${JSON.stringify(promptId)}]: must be a version of that prompt held in the snapshot`);
      }
      entries[promptId] = version;
    }
    labels[label] = entries;
  }
  return labels;
}

/** Reads an API answer (or a snapshot entry) as a prompt; undefined names what does not fit. */
export function promptProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'must be an object';
  const prompt = value as Record<string, unknown>;
  for (const field of ['promptId', 'promptName', 'version', 'systemMessage', 'userMessage'] as const) {
    if (typeof prompt[field] !== 'string') return `${field}: must be a string`;
  }
  const config = prompt.config;
  if (config === null || typeof config !== 'object' || Array.isArray(config)) return 'config: must be an object';
  const { model, temperature, schema, inputDataRootName } = config as Record<string, unknown>;
  if (typeof model !== 'string') return 'config.model: must be a string';
  if (typeof temperature !== 'number') return 'config.temperature: must be a number';
  if (!Array.isArray(schema)) return 'config.schema: must be an array';
  if (inputDataRootName !== null && typeof inputDataRootName !== 'string') return 'config.inputDataRootName: must be a string or null';
  return undefined;
}

/** Only the API's fields, in the API's order: nothing a caller attached travels into a snapshot. */
export function plain(prompt: PromptData): PromptData {
  const { promptId, promptName, version, systemMessage, userMessage, config } = prompt;
  const { model, temperature, schema, inputData, inputDataRootName } = config;
  return {
    promptId,
    promptName,
    version,
    systemMessage,
    userMessage,
    config: { model, temperature, schema, inputData: inputData === undefined ? null : inputData, inputDataRootName },
  };
}

function promptsAt(value: unknown, path: string): PromptData[] {
  if (!Array.isArray(value)) throw new InvalidOptionsError(`${path}: must be an array`);
  return value.map((entry: unknown, index) => {
    const problem = promptProblem(entry);
    if (problem !== undefined) throw new InvalidOptionsError(`${path}[${index}]${problem.startsWith('must') ? ': ' : '.'}${problem}`);
    return plain(entry as PromptData);
  });
}

function objectAt(value: unknown, path: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new InvalidOptionsError(`${path}: must be an object`);
  return value as Record<string, unknown>;
}

function byIdThenVersion(a: PromptData, b: PromptData): number {
  if (a.promptId !== b.promptId) return a.promptId < b.promptId ? -1 : 1;
  return compareVersions(a.version, b.version);
}

function compareVersions(a: string, b: string): number {
  const left = a.split('.').map(Number);
  const right = b.split('.').map(Number);
  for (let i = 0; i < Math.max(left.length, right.length); i += 1) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** Names are data: a label or prompt id such as `__proto__` is one more key, never a prototype. */
function dictionary<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}
