import { LATEST, type Target } from './cache.js';
import { PromptCopy } from './prompt.js';
import type { RolloutShare } from './rollout.js';
import { type PromptSnapshot, readSnapshot, versionKey } from './snapshot.js';
import type { PromptData } from './types.js';

/**
 * The snapshot a client was given (its `snapshot` option), read once when the client is made: the copies
 * served when a prompt is not cached and the API cannot be reached or the quota is used up, at latest, at a
 * version, or at a label (with the rollout the label had, so each subject keeps its side).
 */
export class SnapshotFallback {
  readonly #latest = new Map<string, PromptCopy>();
  readonly #versions = new Map<string, PromptCopy>();
  /** label -> promptId -> version, as the snapshot says. */
  readonly #labels = new Map<string, ReadonlyMap<string, string>>();
  /** label -> promptId -> rollout, as the snapshot says. */
  readonly #rollouts = new Map<string, ReadonlyMap<string, RolloutShare>>();

  /** Without a snapshot, there is nothing to fall back on. */
  constructor(snapshot: PromptSnapshot | string | undefined) {
    if (snapshot === undefined) return;
    const read = readSnapshot(snapshot);
    for (const prompt of read.prompts) {
      const copy = new PromptCopy(prompt);
      this.#latest.set(prompt.promptId, copy);
      this.#versions.set(versionKey(prompt.promptId, prompt.version), copy);
    }
    for (const prompt of read.versions) this.#versions.set(versionKey(prompt.promptId, prompt.version), new PromptCopy(prompt));
    for (const [label, targets] of Object.entries(read.labels ?? {})) this.#labels.set(label, new Map(Object.entries(targets)));
    for (const [label, targets] of Object.entries(read.rollouts ?? {})) this.#rollouts.set(label, new Map(Object.entries(targets)));
  }

  /** The prompts it holds at latest, or at the label. */
  promptIds(target: Target): string[] {
    return target === LATEST ? [...this.#latest.keys()] : [...(this.#labels.get(target)?.keys() ?? [])];
  }

  /** The prompt at its latest version, or at the version the label pointed at. */
  copy(promptId: string, target: Target): PromptCopy | undefined {
    if (target === LATEST) return this.#latest.get(promptId);
    const version = this.#labels.get(target)?.get(promptId);
    return version === undefined ? undefined : this.#versions.get(versionKey(promptId, version));
  }

  version(promptId: string, version: string): PromptCopy | undefined {
    return this.#versions.get(versionKey(promptId, version));
  }

  /** How the label was rolling out for the prompt, if it was. */
  rollout(target: Target, promptId: string): RolloutShare | undefined {
    return this.#rollouts.get(target)?.get(promptId);
  }

  /** Every version it holds, latest ones included: a snapshot of the client keeps them. */
  versions(): PromptData[] {
    return [...this.#versions.values()].map((copy) => copy.data);
  }

  /** Where each label pointed, as new records the caller may change. */
  labels(): Record<string, Record<string, string>> {
    const labels: Record<string, Record<string, string>> = Object.create(null);
    for (const [label, targets] of this.#labels) labels[label] = Object.assign(Object.create(null), Object.fromEntries(targets));
    return labels;
  }

  /** How each label was rolling out, as new records the caller may change. */
  rollouts(): Record<string, Record<string, RolloutShare>> {
    const rollouts: Record<string, Record<string, RolloutShare>> = Object.create(null);
    for (const [label, targets] of this.#rollouts) rollouts[label] = Object.assign(Object.create(null), Object.fromEntries(targets));
    return rollouts;
  }
}
