import { plain } from './snapshot.js';
import { PromptTemplate } from './template.js';
import type { ClientPrompt, CompileOptions, PromptData, PromptRollout, PromptSource, TemplateValues } from './types.js';

/** Views kept per copy: one per source, and at a rolling-out label one per share and side. */
const MAX_VIEWS = 32;

/**
 * One prompt body, read once: the template parsed, and one frozen view per way it is handed out. Every
 * cache holds these, and a caller only ever gets a view, so no caller can change what the next one gets.
 */
export class PromptCopy {
  readonly data: PromptData;
  readonly #template: PromptTemplate;
  readonly #views = new Map<string, ClientPrompt>();

  constructor(data: PromptData) {
    this.data = deepFreeze(plain(data));
    this.#template = new PromptTemplate(`prompt ${data.promptId} ${data.version}`, data.systemMessage, data.userMessage);
  }

  view(source: PromptSource, rollout?: PromptRollout): ClientPrompt {
    const key = rollout === undefined ? source : `${source} ${rollout.rolloutId} ${rollout.percent} ${rollout.side}`;
    const existing = this.#views.get(key);
    if (existing) return existing;
    const template = this.#template;
    const view: ClientPrompt = Object.freeze({
      ...this.data,
      variables: template.variables,
      source,
      ...(rollout === undefined ? {} : { rollout: Object.freeze({ ...rollout }) }),
      compile: (values: TemplateValues, options?: CompileOptions) => template.compile(values, options),
    });
    // A rollout's share changes over its life: views of old shares are dropped rather than kept forever.
    if (this.#views.size >= MAX_VIEWS) this.#views.clear();
    this.#views.set(key, view);
    return view;
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
