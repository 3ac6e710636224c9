import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { PromptDetail, StoredVersion } from '../../api/types';
import { useId, useLoad } from '../../components/hooks';
import { Button, DeniedNote, ErrorNote } from '../../components/ui';
import { placeholdersIn } from '../../logic/placeholders';
import { denial } from '../../logic/roles';
import { useWorkspace } from '../../workspace';
import { useSampleValues } from '../versions/preview';
import { OutputDiff } from './output-diff';
import { PastRuns } from './past-runs';
import {
  type ColumnSource,
  DEFAULT_PARAMS,
  type DraftContent,
  defaultModel,
  MAX_COLUMNS,
  nextSource,
  type ParamsForm,
  paramsOf,
  runRequest,
  sourceChoices,
  startingSources,
  startingValues,
  versionOf,
} from './run-settings';
import { RunColumn, settledText } from './run-column';
import { IDLE, isRunning, useColumnRuns } from './use-column-runs';

/** The editor's draft, when the Playground runs inside the draft editor: its version, and its content (undefined while the form has mistakes). */
export interface EditorDraft {
  readonly version: string;
  readonly content: DraftContent | undefined;
}

interface Column {
  readonly id: string;
  readonly source: ColumnSource;
}

const READING = 'Reading this version…';

let columnIds = 0;
const column = (source: ColumnSource): Column => {
  columnIds += 1;
  return { id: `column-${columnIds}`, source };
};

/**
 * The Playground (docs/runs.md "The Playground"): one set of variables, a model and parameters, and one to four
 * columns, each running a source of the prompt (the editor's draft, a version, a label) on them side by side, each
 * streaming its output, then its tokens, cost and times; a word diff of two outputs; the prompt's past runs.
 */
export function Playground({ detail, draft }: { detail: PromptDetail; draft?: EditorDraft }) {
  const { api, account, role, announce } = useWorkspace();
  const promptId = detail.promptId;
  const choices = useMemo(() => sourceChoices(detail, draft?.version), [detail, draft?.version]);
  const [columns, setColumns] = useState<readonly Column[]>(() => startingSources(choices, detail).map(column));
  const [samples, setSamples] = useSampleValues(promptId);
  /** What the person typed here; a variable not typed yet shows its starting value. */
  const [typed, setTyped] = useState<ReadonlyMap<string, string>>(new Map());
  const [model, setModel] = useState<string | undefined>(undefined);
  const [paramsForm, setParamsForm] = useState<ParamsForm>(DEFAULT_PARAMS);
  const [checked, setChecked] = useState<ReturnType<typeof paramsOf>['problems']>(undefined);
  const [round, setRound] = useState(0);
  const catalog = useLoad(() => api.models(account.accountId), [api, account.accountId]);
  const contents = useVersionContents(
    promptId,
    columns.map((c) => versionOf(c.source, detail)).filter((v): v is string => v !== undefined),
  );
  const denied = denial(role, 'run prompts');
  const deniedId = useId('playground-denied');

  const contentOf = (source: ColumnSource) => {
    if (source.kind === 'draft') return draft?.content;
    const version = versionOf(source, detail);
    return version === undefined ? undefined : contents.get(version);
  };
  const columnContents = columns.map((c) => contentOf(c.source));
  const names = placeholdersIn(...columnContents.flatMap((content) => (content ? [content.systemMessage, content.userMessage] : [])));
  const firstContent = columnContents.find((content) => content !== undefined);

  // What was typed for this prompt before (here or in the editor's preview), else the first column's input data.
  const starting = startingValues(names, samples, firstContent?.config);
  const values = new Map(names.map((name) => [name, typed.get(name) ?? starting.get(name) ?? ''] as const));
  useEffect(() => {
    if (model === undefined && catalog.data && (firstContent || columns.length === 0))
      setModel(defaultModel(catalog.data, typeof firstContent?.config.model === 'string' ? firstContent.config.model : undefined));
  }, [model, catalog.data, firstContent]);

  const batch = useRef<{ waiting: Set<string>; said: string[] }>({ waiting: new Set(), said: [] });
  const { runs, start, stop, forget } = useColumnRuns((columnId, run) => {
    const index = columns.findIndex((c) => c.id === columnId);
    batch.current.said.push(settledText(index, run));
    batch.current.waiting.delete(columnId);
    // One announcement as each column ends, carrying the ones before it in this round: none is spoken over.
    announce(batch.current.said.join(' '));
    if (batch.current.waiting.size === 0) setRound((n) => n + 1);
  });
  const anyRunning = columns.some((c) => isRunning(runs.get(c.id)));

  const blockedReason = (source: ColumnSource): string | undefined => {
    if (source.kind === 'draft') return draft?.content ? undefined : 'The draft has mistakes: fix the fields marked in the editor to run it.';
    if (versionOf(source, detail) === undefined) return 'This label points at no version.';
    return contentOf(source) ? undefined : READING;
  };
  // Every column runs on what it will show, so none starts before each has read its version.
  const reading = columns.some((c) => blockedReason(c.source) === READING);

  const runAll = () => {
    const parsed = paramsOf(paramsForm);
    setChecked(parsed.problems);
    if (!parsed.params) return;
    batch.current = { waiting: new Set(), said: [] };
    for (const c of columns) {
      if (blockedReason(c.source)) continue;
      const content = contentOf(c.source);
      const own = content ? placeholdersIn(content.systemMessage, content.userMessage) : [];
      const body = runRequest({ promptId, source: c.source, draft: draft?.content, variables: values, names: own, model, params: parsed.params });
      if (!body) continue;
      batch.current.waiting.add(c.id);
      void start(c.id, body);
    }
  };

  const setValue = (name: string, value: string) => {
    setTyped(new Map(typed).set(name, value));
    // Kept as the preview's samples of this prompt, so the editor and a reload find them too.
    setSamples(new Map(samples).set(name, value));
  };

  return (
    <div class="playground">
      <DeniedNote id={deniedId} reason={denied} />
      <form
        class="playground-settings card"
        aria-label="Run settings"
        onSubmit={(event) => {
          event.preventDefault();
          runAll();
        }}
      >
        <fieldset>
          <legend>Variables</legend>
          {names.length === 0 ? <p class="muted">{firstContent ? 'These prompts have no variables.' : 'Reading the prompt…'}</p> : null}
          {names.map((name) => (
            <label key={name} class="field">
              <span class="label mono">{name}</span>
              <textarea rows={2} value={values.get(name) ?? ''} onInput={(event) => setValue(name, event.currentTarget.value)} />
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Model and parameters</legend>
          <div class="row">
            <label class="field">
              <span class="label">Model</span>
              <select value={model ?? ''} onChange={(event) => setModel(event.currentTarget.value)} disabled={!catalog.data}>
                {(catalog.data ?? []).map((entry) => (
                  <option key={entry.modelId} value={entry.modelId}>
                    {entry.name === entry.modelId ? entry.modelId : `${entry.name} (${entry.modelId})`}
                  </option>
                ))}
              </select>
            </label>
            <ParamField
              label="Temperature"
              hint="0 to 2; empty: the prompt’s own"
              value={paramsForm.temperature}
              problem={checked?.temperature}
              onInput={(temperature) => setParamsForm({ ...paramsForm, temperature })}
            />
            <ParamField
              label="Max tokens"
              hint="1 to 8,192"
              value={paramsForm.maxTokens}
              problem={checked?.maxTokens}
              onInput={(maxTokens) => setParamsForm({ ...paramsForm, maxTokens })}
            />
          </div>
          <ErrorNote problem={catalog.problem} doing="Reading the models" />
        </fieldset>
        <div class="actions">
          <Button type="submit" kind="primary" denied={denied} deniedId={deniedId} disabled={anyRunning || reading || columns.length === 0}>
            Run all
          </Button>
          {anyRunning ? (
            <Button
              onClick={() => {
                for (const c of columns) stop(c.id);
              }}
            >
              Stop all
            </Button>
          ) : null}
          <Button
            disabled={columns.length >= MAX_COLUMNS || choices.length === 0}
            onClick={() => {
              const source = nextSource(
                choices,
                columns.map((c) => c.source),
              );
              if (source) setColumns([...columns, column(source)]);
            }}
          >
            Add column
          </Button>
          <span class="muted">
            {columns.length} of {MAX_COLUMNS} columns
          </span>
        </div>
      </form>
      <div class="run-columns" data-count={columns.length}>
        {columns.map((c, index) => (
          <RunColumn
            key={c.id}
            index={index}
            source={c.source}
            choices={choices}
            run={runs.get(c.id) ?? IDLE}
            blocked={blockedReason(c.source)}
            removable={columns.length > 1}
            onSource={(source) => {
              // The output shown is always the output of what the column says it runs.
              forget(c.id);
              setColumns(columns.map((other) => (other.id === c.id ? { ...other, source } : other)));
            }}
            onRemove={() => {
              forget(c.id);
              setColumns(columns.filter((other) => other.id !== c.id));
            }}
            onStop={() => stop(c.id)}
          />
        ))}
      </div>
      <OutputDiff outputs={columns.map((c) => (runs.get(c.id)?.run ? runs.get(c.id)?.text : undefined))} />
      <PastRuns promptId={promptId} round={round} />
    </div>
  );
}

function ParamField(props: { label: string; hint: string; value: string; problem: string | undefined; onInput(value: string): void }) {
  const id = useId('param');
  return (
    <div class="field">
      <label for={id} class="label">
        {props.label}
      </label>
      <input
        id={id}
        value={props.value}
        inputMode="decimal"
        size={8}
        aria-invalid={props.problem ? 'true' : undefined}
        aria-describedby={`${id}-note`}
        onInput={(event) => props.onInput(event.currentTarget.value)}
      />
      <span id={`${id}-note`} class={props.problem ? 'field-error' : 'hint'} role={props.problem ? 'alert' : undefined}>
        {props.problem ?? props.hint}
      </span>
    </div>
  );
}

/** The versions the columns run, each read once and kept while the Playground is open. */
function useVersionContents(promptId: string, versions: readonly string[]): ReadonlyMap<string, StoredVersion> {
  const { api, account } = useWorkspace();
  const [read, setRead] = useState<ReadonlyMap<string, StoredVersion>>(new Map());
  const asked = useRef(new Set<string>());
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );
  const key = [...new Set(versions)].sort().join('\u0000');
  useEffect(() => {
    for (const version of new Set(versions)) {
      if (asked.current.has(version)) continue;
      asked.current.add(version);
      api.version(account.accountId, promptId, version).then(
        (stored) => mounted.current && setRead((previous) => new Map(previous).set(version, stored)),
        // Asked again when the columns next change.
        () => asked.current.delete(version),
      );
    }
  }, [api, account.accountId, promptId, key]);
  return read;
}
