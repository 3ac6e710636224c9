import { useState } from 'preact/hooks';
import type { KeyUsage } from '../../api/types';
import { useLoad } from '../../components/hooks';
import { ErrorNote, Loading, PageTitle } from '../../components/ui';
import { chartGeometry, recentMonths, usedShare } from './usage-chart';
import { useWorkspace } from '../../workspace';

/** Each key's requests this month against its limit, and per UTC day. */
export function UsagePage() {
  const { api, account, settings } = useWorkspace();
  const months = recentMonths(new Date());
  const [month, setMonth] = useState(months[0] ?? '');
  const usage = useLoad(() => api.usage(account.accountId, month), [api, account.accountId, month]);
  return (
    <>
      <PageTitle>Usage</PageTitle>
      <div class="inline-form">
        <label>
          Month (UTC)
          <select value={month} onChange={(event) => setMonth(event.currentTarget.value)}>
            {months.map((m, index) => (
              <option key={m} value={m}>
                {m}
                {index === 0 ? ' (this month)' : ''}
              </option>
            ))}
          </select>
        </label>
        <button type="button" class="button plain" onClick={usage.reload}>
          Refresh usage
        </button>
      </div>
      {usage.loading ? <Loading what="usage" /> : null}
      <ErrorNote problem={usage.problem} doing="Reading the usage" />
      {usage.data ? (
        <ModelTokensPanel
          tokens={usage.data.modelTokens}
          byDay={usage.data.modelTokensByDay}
          month={usage.data.month}
          budget={usage.data.month === months[0] ? settings?.models.monthlyTokens : undefined}
        />
      ) : null}
      {usage.data && usage.data.keys.length === 0 ? <p>No keys yet, so no usage.</p> : null}
      {usage.data?.keys.map((key) => (
        <KeyUsagePanel key={key.keyId} usage={key} month={usage.data?.month ?? month} daysKept={months.slice(0, 2).includes(usage.data?.month ?? month)} />
      ))}
    </>
  );
}

/** `daysKept`: the month is this one or the one before, whose days the key keeps; no days then means no requests. */
function KeyUsagePanel({ usage, month, daysKept }: { usage: KeyUsage; month: string; daysKept: boolean }) {
  const days = usage.days ?? (daysKept ? {} : null);
  const title = usage.name ?? usage.keyId;
  const headingId = `usage-${usage.keyId}`;
  return (
    <section class="card" aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      <p>
        <meter
          min={0}
          max={Math.max(usage.limit, 1)}
          value={Math.min(usage.used, Math.max(usage.limit, 1))}
          high={Math.max(usage.limit, 1) * 0.8}
          aria-label={`${title}: used of its limit in ${month}`}
        />{' '}
        <strong>{usage.used.toLocaleString()}</strong> of {usage.limit.toLocaleString()} requests ({usedShare(usage.used, usage.limit)}%)
        {usage.used >= usage.limit && usage.limit > 0 ? <strong class="warn-text"> · limit reached: further requests get 429</strong> : null}
      </p>
      {days === null ? (
        <p class="muted">Per-day counts are kept for this month and the one before only.</p>
      ) : (
        <DayChart title={title} month={month} days={days} unit="requests" />
      )}
    </section>
  );
}

/** The tokens of runs this month (input and output), against the account's budget when it has one (docs/runs.md "Budget"). */
function ModelTokensPanel({
  tokens,
  byDay,
  month,
  budget,
}: {
  tokens: number;
  byDay: Readonly<Record<string, number>>;
  month: string;
  budget: number | null | undefined;
}) {
  return (
    <section class="card" aria-labelledby="usage-model-tokens">
      <h2 id="usage-model-tokens">Model tokens</h2>
      <p>
        {budget ? (
          <>
            <meter min={0} max={budget} value={Math.min(tokens, budget)} high={budget * 0.8} aria-label={`Model tokens used of the budget in ${month}`} />{' '}
          </>
        ) : null}
        <strong>{tokens.toLocaleString('en-US')}</strong> tokens of runs in {month}
        {budget ? ` of a budget of ${budget.toLocaleString('en-US')} (${usedShare(tokens, budget)}%)` : budget === null ? ' (no budget set)' : ''}
        {budget && tokens >= budget ? <strong class="warn-text"> · budget spent: runs are refused</strong> : null}
      </p>
      <DayChart title="runs" month={month} days={byDay} unit="model tokens" />
    </section>
  );
}

function DayChart({ title, month, days, unit }: { title: string; month: string; days: Readonly<Record<string, number>>; unit: 'requests' | 'model tokens' }) {
  const chart = chartGeometry(month, days);
  const busiest = chart.bars.reduce((top, bar) => (bar.count > top.count ? bar : top), chart.bars[0] ?? { day: 1, count: 0 });
  const summary = `${unit === 'requests' ? 'Requests' : 'Model tokens'} per day for ${title} in ${month}: ${chart.total.toLocaleString()} in all${chart.total > 0 ? `, most on day ${busiest.day} (${busiest.count})` : ''}.`;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${chart.width} ${chart.height}`} role="img" aria-label={summary} width="100%" preserveAspectRatio="xMinYMin meet">
        {chart.ticks.map((tick) => (
          <g key={tick.value} class="tick">
            <line x1={chart.plot.left} x2={chart.plot.left + chart.plot.width} y1={tick.y} y2={tick.y} />
            <text x={chart.plot.left - 6} y={tick.y + 4} text-anchor="end">
              {tick.value.toLocaleString()}
            </text>
          </g>
        ))}
        {chart.bars.map((bar) => (
          <g key={bar.day}>
            <rect class="bar" x={bar.x} y={bar.y} width={bar.width} height={Math.max(bar.height, bar.count > 0 ? 1 : 0)}>
              <title>{`${month}-${String(bar.day).padStart(2, '0')}: ${bar.count} ${unit}`}</title>
            </rect>
            {bar.day === 1 || bar.day % 5 === 0 ? (
              <text class="day" x={bar.x + bar.width / 2} y={chart.height - 6} text-anchor="middle">
                {bar.day}
              </text>
            ) : null}
          </g>
        ))}
      </svg>
      <figcaption>{summary}</figcaption>
    </figure>
  );
}
