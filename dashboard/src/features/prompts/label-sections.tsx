import { useEffect, useRef } from 'preact/hooks';
import type { PromptDetail, Rollout } from '../../api/types';
import { useLoad, useVisibleInterval } from '../../components/hooks';
import { useWorkspace } from '../../workspace';
import { LabelHistory } from '../labels/label-history';
import { LabelsPanel } from '../labels/labels-panel';
import { SERVED_POLL_MS } from '../rollouts/rollouts';
import { RolloutsSection } from '../rollouts/rollouts-section';

/**
 * The labels, their rollouts and their history, which share one read of the labels' rollouts: a label rolling out
 * cannot be moved, removed or restored (409), and its history gains an entry at each change of the rollout. The
 * rollouts are read again every few seconds while the page is visible and one is active, for its served counts.
 */
export function LabelSections({ detail, onChanged }: { detail: PromptDetail; onChanged(): void }) {
  const { api, account } = useWorkspace();
  const labels = Object.keys(detail.labels).sort((a, b) => a.localeCompare(b));
  const rollouts = useLoad(async () => {
    const found = await Promise.all(labels.map(async (label) => [label, await api.rollout(account.accountId, detail.promptId, label)] as const));
    return new Map(found.flatMap(([label, rollout]) => (rollout ? [[label, rollout] as const] : [])));
  }, [api, account.accountId, detail.promptId, labels.join('\n'), Object.values(detail.labels).join('\n')]);
  const active = rollouts.data !== undefined && rollouts.data.size > 0;
  useVisibleInterval(rollouts.reload, SERVED_POLL_MS, active);
  // A rollout that ended elsewhere (a person in another tab, the guard alarm) may have moved its label: read the prompt again.
  const seen = useRef<ReadonlySet<string>>(new Set());
  useEffect(() => {
    if (!rollouts.data) return;
    const now = new Set(rollouts.data.keys());
    const ended = [...seen.current].some((label) => !now.has(label));
    seen.current = now;
    if (ended) onChanged();
  }, [rollouts.data, onChanged]);
  const changed = () => {
    rollouts.reload();
    onChanged();
  };
  // The history reads again when a rollout starts, changes share or ends: each writes an entry.
  const rolloutMarks = new Map(labels.map((label) => [label, rolloutMark(rollouts.data?.get(label))]));
  return (
    <>
      <LabelsPanel detail={detail} rollouts={rollouts.data} onChanged={changed} />
      <RolloutsSection detail={detail} rollouts={rollouts.data} loading={rollouts.loading} problem={rollouts.problem} onChanged={changed} />
      <LabelHistory detail={detail} rollouts={rollouts.data} rolloutMarks={rolloutMarks} onChanged={changed} />
    </>
  );
}

const rolloutMark = (rollout: Rollout | undefined): string => (rollout ? `${rollout.rolloutId}:${rollout.percent}` : 'none');
