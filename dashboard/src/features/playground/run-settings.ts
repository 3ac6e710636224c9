import { DEFAULT_MAX_TOKENS, MAX_TOKENS } from '../../../../lambda/domain/run-rules';
import type { Model, PromptDetail, RunRequest, RunSummary } from '../../api/types';

/**
 * The Playground's rules, without Preact (docs/runs.md "The Playground"): what each column may run (the draft the
 * editor holds, a version, a label), what a run asks for, the variables it starts with, the parameters as typed, and
 * the numbers a run shows in words.
 */

/** What a column runs: the editor's unsaved text, a version (published or draft), or a label (`latest` too). */
export type ColumnSource =
  | { readonly kind: 'draft' }
  | { readonly kind: 'version'; readonly version: string }
  | { readonly kind: 'label'; readonly label: string };

/** A source as one `<option>`'s value, and back. */
export const sourceValue = (source: ColumnSource): string =>
  source.kind === 'draft' ? 'draft' : source.kind === 'version' ? `version:${source.version}` : `label:${source.label}`;

export function sourceOf(value: string): ColumnSource | undefined {
  if (value === 'draft') return { kind: 'draft' };
  const [kind, ...rest] = value.split(':');
  const name = rest.join(':');
  if (name === '') return undefined;
  if (kind === 'version') return { kind: 'version', version: name };
  if (kind === 'label') return { kind: 'label', label: name };
  return undefined;
}

export interface SourceChoice {
  readonly value: string;
  readonly text: string;
  readonly source: ColumnSource;
}

/**
 * What a column may run, in the order offered: the editor's draft (only in the editor), `latest` when something is
 * published, the prompt's labels, then every version newest first (a draft says it is one).
 */
export function sourceChoices(detail: PromptDetail, editing: string | undefined): SourceChoice[] {
  const choices: SourceChoice[] = [];
  const add = (source: ColumnSource, text: string) => choices.push({ value: sourceValue(source), text, source });
  if (editing !== undefined) add({ kind: 'draft' }, `Draft ${editing}, as in the editor (unsaved)`);
  if (detail.latestVersion !== null) add({ kind: 'label', label: 'latest' }, `Label latest (${detail.latestVersion})`);
  for (const [label, version] of Object.entries(detail.labels).sort(([a], [b]) => a.localeCompare(b))) {
    if (label !== 'latest') add({ kind: 'label', label }, `Label ${label} (${version})`);
  }
  for (const summary of [...detail.versions].reverse()) {
    add({ kind: 'version', version: summary.version }, `Version ${summary.version}${summary.published ? '' : ' (draft)'}`);
  }
  return choices;
}

/** The version a source stands for now; undefined for the editor's draft, or a label that points nowhere. */
export function versionOf(source: ColumnSource, detail: PromptDetail): string | undefined {
  if (source.kind === 'version') return source.version;
  if (source.kind === 'label') return source.label === 'latest' ? (detail.latestVersion ?? undefined) : detail.labels[source.label];
  return undefined;
}

/** The first choice no column runs yet (the first choice when every one is taken). */
export function nextSource(choices: readonly SourceChoice[], taken: readonly ColumnSource[]): ColumnSource | undefined {
  const used = new Set(taken.map(sourceValue));
  return (choices.find((choice) => !used.has(choice.value)) ?? choices[0])?.source;
}

export const MAX_COLUMNS = 4;

/**
 * The columns the Playground opens with: the first choice (the editor's draft, else latest) and the first after it
 * that runs another version, so two different texts stand side by side from the start.
 */
export function startingSources(choices: readonly SourceChoice[], detail: PromptDetail): ColumnSource[] {
  const first = choices[0]?.source;
  if (!first) return [];
  const firstVersion = versionOf(first, detail);
  const second = choices.slice(1).find((choice) => firstVersion === undefined || versionOf(choice.source, detail) !== firstVersion);
  return second ? [first, second.source] : [first];
}

/** The parameters as typed: an empty temperature is the prompt's own. */
export interface ParamsForm {
  readonly temperature: string;
  readonly maxTokens: string;
}

export const DEFAULT_PARAMS: ParamsForm = { temperature: '', maxTokens: String(DEFAULT_MAX_TOKENS) };

export type ParamsResult =
  | { readonly params: NonNullable<RunRequest['params']>; readonly problems?: undefined }
  | { readonly params?: undefined; readonly problems: Partial<Record<keyof ParamsForm, string>> };

export function paramsOf(form: ParamsForm): ParamsResult {
  const problems: Partial<Record<keyof ParamsForm, string>> = {};
  const temperatureText = form.temperature.trim();
  const temperature = Number(temperatureText);
  if (temperatureText !== '' && (!Number.isFinite(temperature) || temperature < 0 || temperature > 2)) {
    problems.temperature = 'A number from 0 to 2, or empty for the prompt’s own.';
  }
  const maxTokens = Number(form.maxTokens.trim());
  if (!Number.isInteger(maxTokens) || maxTokens < 1 || maxTokens > MAX_TOKENS)
    problems.maxTokens = `A whole number from 1 to ${MAX_TOKENS.toLocaleString('en-US')}.`;
  if (Object.keys(problems).length > 0) return { problems };
  return { params: { maxTokens, ...(temperatureText === '' ? {} : { temperature }) } };
}

/** What the editor holds, as a run sends unsaved content. */
export interface DraftContent {
  readonly systemMessage: string;
  readonly userMessage: string;
  readonly config: NonNullable<NonNullable<RunRequest['source']['prompt']>['config']>;
}

/** The run of one column: its source, the variables every column shares (only the names it uses), the model and parameters. */
export function runRequest(options: {
  readonly promptId: string;
  readonly source: ColumnSource;
  readonly draft: DraftContent | undefined;
  readonly variables: ReadonlyMap<string, string>;
  readonly names: readonly string[];
  readonly model: string | undefined;
  readonly params: NonNullable<RunRequest['params']>;
}): RunRequest | undefined {
  const { promptId, source } = options;
  const body =
    source.kind === 'draft'
      ? options.draft && { source: { prompt: options.draft, promptId } }
      : { source: source.kind === 'version' ? { promptId, version: source.version } : { promptId, label: source.label } };
  if (!body) return undefined;
  // A table of names, never an object's keys taken from templates: `${__proto__}` is a variable like any.
  const variables: Record<string, string> = Object.create(null);
  for (const name of options.names) variables[name] = options.variables.get(name) ?? '';
  return { ...body, variables, params: options.params, ...(options.model ? { model: options.model } : {}) };
}

/**
 * The values the variables start with: what the person typed for this prompt before (the preview's sample values),
 * else the version's input data when it holds that name (at its root, or under `inputDataRootName`) as text.
 */
export function startingValues(
  names: readonly string[],
  samples: ReadonlyMap<string, string>,
  config: { readonly inputData?: unknown; readonly inputDataRootName?: unknown } | undefined,
): Map<string, string> {
  const values = new Map<string, string>();
  const data = inputDataOf(config);
  for (const name of names) {
    const typed = samples.get(name);
    if (typed !== undefined && typed !== '') values.set(name, typed);
    else {
      const given = data && Object.hasOwn(data, name) ? data[name] : undefined;
      if (typeof given === 'string') values.set(name, given);
      else if (typeof given === 'number' || typeof given === 'boolean') values.set(name, String(given));
    }
  }
  return values;
}

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> => typeof value === 'object' && value !== null && !Array.isArray(value);

function inputDataOf(
  config: { readonly inputData?: unknown; readonly inputDataRootName?: unknown } | undefined,
): Readonly<Record<string, unknown>> | undefined {
  if (!config || !isRecord(config.inputData)) return undefined;
  const root = config.inputDataRootName;
  if (typeof root === 'string' && root !== '' && Object.hasOwn(config.inputData, root)) {
    const under = config.inputData[root];
    return isRecord(under) ? under : undefined;
  }
  return config.inputData;
}

/** The model a run starts on: the prompt's own when the catalog holds it, else the catalog's first. */
export function defaultModel(catalog: readonly Model[], promptModel: string | undefined): string | undefined {
  return catalog.find((model) => model.modelId === promptModel)?.modelId ?? catalog[0]?.modelId;
}

/** US dollars to the digits a run's cost needs: a fraction of a cent shows, never as 0. */
export function usd(amount: number): string {
  if (amount === 0) return '$0';
  if (amount >= 0.01) return `$${amount.toFixed(4)}`;
  return `$${amount.toPrecision(2).replace(/(\.\d*?)0+$/, '$1')}`;
}

export const milliseconds = (ms: number | null | undefined): string =>
  ms === null || ms === undefined ? '—' : ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(2)} s`;

/** What a run ran, in words: a version, a label (with the version it pointed at), or content never saved. */
export function ranWhat(run: Pick<RunSummary, 'version' | 'label'>): string {
  if (run.label !== null) return `label ${run.label}${run.version ? ` (${run.version})` : ''}`;
  if (run.version !== null) return `version ${run.version}`;
  return 'unsaved draft';
}
