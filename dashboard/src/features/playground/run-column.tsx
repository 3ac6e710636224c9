import { Button, ErrorNote } from '../../components/ui';
import { problemInWords } from '../../logic/api-errors';
import { type ColumnSource, milliseconds, type SourceChoice, sourceOf, sourceValue, usd } from './run-settings';
import { type ColumnRun, isRunning } from './use-column-runs';

/** One column of the Playground: what it runs, and its run's output as it arrives, with tokens, cost and times. */
export function RunColumn(props: {
  index: number;
  source: ColumnSource;
  choices: readonly SourceChoice[];
  run: ColumnRun;
  /** Why this column cannot run now (its version still loading, a draft with mistakes); shown under it. */
  blocked: string | undefined;
  removable: boolean;
  onSource(source: ColumnSource): void;
  onRemove(): void;
  onStop(): void;
}) {
  const { index, run } = props;
  const name = `Column ${index + 1}`;
  const headingId = `column-${index + 1}-title`;
  const running = isRunning(run);
  return (
    <section class="run-column card" aria-labelledby={headingId}>
      <div class="run-column-head">
        <h3 id={headingId}>{name}</h3>
        {props.removable ? (
          <Button kind="plain" onClick={props.onRemove} aria-label={`Remove column ${index + 1}`}>
            Remove
          </Button>
        ) : null}
      </div>
      <label class="field">
        <span class="label">Source</span>
        <select
          aria-label={`Source of column ${index + 1}`}
          value={sourceValue(props.source)}
          disabled={running}
          onChange={(event) => {
            const source = sourceOf(event.currentTarget.value);
            if (source) props.onSource(source);
          }}
        >
          {props.choices.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.text}
            </option>
          ))}
        </select>
      </label>
      {props.blocked ? <p class="muted">{props.blocked}</p> : null}
      <section aria-label={`Output of column ${index + 1}`} aria-busy={running ? 'true' : 'false'}>
        <pre class="run-output">
          {run.text}
          {running ? <span class="cursor" aria-hidden="true" /> : null}
          {run.phase === 'idle' ? <span class="muted">Not run yet.</span> : null}
          {run.phase === 'waiting' ? <span class="muted">Waiting for the model…</span> : null}
        </pre>
      </section>
      <p class="run-state" data-phase={run.phase}>
        {phaseText(run)}
        {running ? (
          <>
            {' '}
            <Button kind="plain" onClick={props.onStop} aria-label={`Stop column ${index + 1}`}>
              Stop
            </Button>
          </>
        ) : null}
      </p>
      {run.phase === 'failed' ? <ErrorNote problem={run.problem} doing={`Column ${index + 1}’s run`} /> : null}
      {run.run ? <RunNumbers run={run} /> : null}
    </section>
  );
}

function phaseText(run: ColumnRun): string {
  switch (run.phase) {
    case 'idle':
      return '';
    case 'waiting':
      return 'Running…';
    case 'streaming':
      return `Writing…${run.model ? ` (${run.model})` : ''}`;
    case 'ended':
      return `Done${run.run?.stopReason === 'max_tokens' ? ': stopped at the token limit' : ''}.`;
    case 'stopped':
      return 'Stopped: the run was cut short and kept as failed.';
    case 'failed':
      return 'Failed.';
  }
}

function RunNumbers({ run }: { run: ColumnRun }) {
  const kept = run.run;
  if (!kept) return null;
  return (
    <dl class="run-numbers">
      <dt>Model</dt>
      <dd class="mono">{kept.model}</dd>
      <dt>Tokens in</dt>
      <dd>{kept.usage.inputTokens.toLocaleString('en-US')}</dd>
      <dt>Tokens out</dt>
      <dd>{kept.usage.outputTokens.toLocaleString('en-US')}</dd>
      <dt>Cost</dt>
      <dd>{usd(kept.costUsd)}</dd>
      <dt>First token</dt>
      <dd>{milliseconds(kept.firstTokenMs)}</dd>
      <dt>Total time</dt>
      <dd>{milliseconds(kept.latencyMs)}</dd>
      {kept.schema ? (
        <>
          <dt>Schema</dt>
          <dd>{kept.schema.valid ? 'fits the schema' : `does not fit: ${kept.schema.errors.join('; ')}`}</dd>
        </>
      ) : null}
    </dl>
  );
}

/** What a screen reader hears when a column's run ends: once, not for every piece. */
export function settledText(index: number, run: ColumnRun): string {
  const name = `Column ${index + 1}`;
  if (run.phase === 'ended' && run.run) return `${name} finished: ${run.run.usage.outputTokens} tokens out, ${usd(run.run.costUsd)}.`;
  if (run.phase === 'stopped') return `${name} stopped.`;
  return `${name} failed: ${problemInWords(run.problem)}`;
}
