import { useEffect, useState } from 'preact/hooks';
import type { Run, RunSummary } from '../../api/types';
import { Dialog } from '../../components/dialog';
import { useAction, useLoad } from '../../components/hooks';
import { Button, ErrorNote, Loading, When } from '../../components/ui';
import { useWorkspace } from '../../workspace';
import { milliseconds, ranWhat, usd } from './run-settings';

/** The prompt's runs, newest first, 50 a page, each opened whole (messages, output, usage). `round` reads them again. */
export function PastRuns({ promptId, round }: { promptId: string; round: number }) {
  const { api, account } = useWorkspace();
  const first = useLoad(() => api.runs(account.accountId, promptId), [api, account.accountId, promptId, round]);
  const [more, setMore] = useState<{ runs: readonly RunSummary[]; next: string | null } | undefined>(undefined);
  const [open, setOpen] = useState<string | undefined>(undefined);
  // A fresh first page drops the pages read after the old one.
  useEffect(() => setMore(undefined), [first.data]);
  const next = more ? more.next : (first.data?.next ?? null);
  const loadMore = useAction(async () => {
    if (next === null) return;
    const page = await api.runs(account.accountId, promptId, next);
    setMore((previous) => ({ runs: [...(previous?.runs ?? []), ...page.runs], next: page.next }));
  });
  const runs = [...(first.data?.runs ?? []), ...(more?.runs ?? [])];
  return (
    <section aria-labelledby="past-runs-title" class="card">
      <h2 id="past-runs-title">Past runs</h2>
      {first.loading && !first.data ? <Loading what="the runs" /> : null}
      <ErrorNote problem={first.problem} doing="Reading the runs" />
      {first.data && runs.length === 0 ? <p class="muted">No runs of this prompt yet. Runs are kept 90 days.</p> : null}
      {runs.length > 0 ? (
        <table class="list runs-table">
          <caption class="visually-hidden">Runs of this prompt, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Ran</th>
              <th scope="col">Model</th>
              <th scope="col">State</th>
              <th scope="col">Tokens in / out</th>
              <th scope="col">Cost</th>
              <th scope="col">Time</th>
              <th scope="col">
                <span class="visually-hidden">Open</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <tr key={run.runId}>
                <td>
                  <When iso={run.at} />
                </td>
                <td>{ranWhat(run)}</td>
                <td class="mono">{run.model}</td>
                <td>{run.state === 'completed' ? 'completed' : <strong class="warn-text">failed</strong>}</td>
                <td>
                  {run.usage.inputTokens.toLocaleString('en-US')} / {run.usage.outputTokens.toLocaleString('en-US')}
                </td>
                <td>{usd(run.costUsd)}</td>
                <td>{milliseconds(run.latencyMs)}</td>
                <td>
                  <Button onClick={() => setOpen(run.runId)} aria-label={`Open run ${run.runId}`}>
                    Open
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {next !== null ? (
        <Button busy={loadMore.busy} busyText="Reading…" onClick={() => void loadMore.run()}>
          More runs
        </Button>
      ) : null}
      <ErrorNote problem={loadMore.problem} doing="Reading more runs" />
      {open ? <RunDialog runId={open} onClose={() => setOpen(undefined)} /> : null}
    </section>
  );
}

function RunDialog({ runId, onClose }: { runId: string; onClose(): void }) {
  const { api, account } = useWorkspace();
  const run = useLoad(() => api.run(account.accountId, runId), [api, account.accountId, runId]);
  return (
    <Dialog title={`Run ${runId}`} onDismiss={onClose}>
      {run.loading ? <Loading what="the run" /> : null}
      <ErrorNote problem={run.problem} doing="Reading the run" />
      {run.data ? <RunDetail run={run.data} /> : null}
      <div class="actions">
        <Button kind="plain" disabled aria-describedby="add-to-dataset-note">
          Add to dataset
        </Button>
        <Button onClick={onClose}>Close</Button>
      </div>
      <p class="muted" id="add-to-dataset-note">
        Datasets arrive with the next release: then a run's variables become a dataset's item here.
      </p>
    </Dialog>
  );
}

function RunDetail({ run }: { run: Run }) {
  return (
    <div class="run-detail">
      <dl class="config">
        <dt>Ran</dt>
        <dd>
          {ranWhat(run)} by {run.by}, <When iso={run.at} />
        </dd>
        <dt>Model</dt>
        <dd class="mono">
          {run.model} ({run.provider}), temperature {run.params.temperature}, at most {run.params.maxTokens.toLocaleString('en-US')} tokens
        </dd>
        <dt>Tokens</dt>
        <dd>
          {run.usage.inputTokens.toLocaleString('en-US')} in, {run.usage.outputTokens.toLocaleString('en-US')} out · {usd(run.costUsd)}
        </dd>
        <dt>Times</dt>
        <dd>
          first token {milliseconds(run.firstTokenMs)}, in all {milliseconds(run.latencyMs)}
          {run.attempts > 1 ? ` (${run.attempts} attempts)` : ''}
        </dd>
        <dt>State</dt>
        <dd>
          {run.state}
          {run.error ? `: ${run.error.message}` : ''}
          {run.stopReason ? ` (${run.stopReason})` : ''}
        </dd>
      </dl>
      {run.messages.map((message, index) => (
        <section key={index} aria-label={`${message.role === 'system' ? 'System' : 'User'} message sent`}>
          <h3>{message.role === 'system' ? 'System message sent' : 'User message sent'}</h3>
          <pre class="message">{message.content}</pre>
        </section>
      ))}
      <section aria-label="Output">
        <h3>Output</h3>
        <pre class="message">{run.output.text || '(nothing)'}</pre>
      </section>
    </div>
  );
}
