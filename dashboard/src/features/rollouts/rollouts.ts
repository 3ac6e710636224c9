import type { LabelHistoryEntry, Rollout, RolloutStep } from '../../api/types';

/**
 * Rollouts (docs/rollouts.md) in words for the person: the share as they type it, the served counts as shares
 * of the reads, the scheduled steps, and the label history's rollout entries. The API decides; this only
 * checks early and explains.
 */

/** A rollout as `GET .../labels/{label}/rollout` and the other rollout routes answer it (its route's contract). */
export type { Rollout, RolloutStep };
export type RolloutState = Rollout['state'];
export type ServedCounts = Rollout['served'];

/** What a label history entry carries of the rollout that wrote it (its reason is `rollout <id>`). */
export type HistoryRollout = NonNullable<LabelHistoryEntry['rollout']>;

/** The shares offered with one press: the number input's presets when starting, and the step buttons while active. */
export const SHARE_PRESETS: readonly number[] = [1, 5, 10, 25, 50];
/** While active the step buttons go all the way: at 100% every subject gets `to`, until someone completes it. */
export const ACTIVE_SHARE_STEPS: readonly number[] = [...SHARE_PRESETS, 100];

/** How often an open rollout panel reads its served counts again (only while the page is visible). */
export const SERVED_POLL_MS = 10_000;

export const SHARE_RULE = 'A share from 0 to 100, at most two decimals.';

/** The share typed into a field, as the API takes it (0 to 100, at most two decimals), or the problem with it. */
export function parseShare(text: string): { readonly percent: number } | { readonly problem: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { problem: 'Enter the share of subjects that get the new version.' };
  if (!/^\d{1,3}(\.\d{1,2})?$/.test(trimmed)) return { problem: SHARE_RULE };
  const percent = Number(trimmed);
  if (percent > 100) return { problem: SHARE_RULE };
  return { percent };
}

/** `12.5%`, `33.33%`, `10%`: at most two decimals, none when whole. */
export function percentText(percent: number): string {
  return `${Number(percent.toFixed(2))}%`;
}

export interface ServedSide {
  readonly version: string;
  readonly count: number;
  /** Its share of the reads served so far, in words (`60%`), or `—` before any read. */
  readonly shareText: string;
}

/** Each side's reads and its share of the total: what the panel's table shows. */
export function servedSides(rollout: Pick<Rollout, 'from' | 'to' | 'served'>): { readonly from: ServedSide; readonly to: ServedSide; readonly total: number } {
  const from = safeCount(rollout.served?.from);
  const to = safeCount(rollout.served?.to);
  const total = from + to;
  const share = (count: number) => (total === 0 ? '—' : percentText(Math.round((count / total) * 10_000) / 100));
  return {
    from: { version: rollout.from, count: from, shareText: share(from) },
    to: { version: rollout.to, count: to, shareText: share(to) },
    total,
  };
}

const safeCount = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0);

const reads = (count: number) => `${count.toLocaleString('en')} ${count === 1 ? 'read' : 'reads'}`;

/** `120 reads of 1.0.0, 80 of 1.1.0`: the served counts in a phrase, for the history. */
export function servedText(served: ServedCounts, from: string | null, to: string): string {
  return `served ${reads(safeCount(served.from))}${from ? ` of ${from}` : ' of the old version'}, ${safeCount(served.to).toLocaleString('en')} of ${to}`;
}

/** A rollout history entry in words: `rollout started: 10% of subjects on 1.1.0`, `rollout share changed to 50% on 1.1.0`, `rollout completed: now 1.1.0`, `rollout aborted at 10%: stays on 1.0.0`. */
export function rolloutEventText(entry: { readonly from: string | null; readonly rollout: HistoryRollout }): string {
  const { rollout } = entry;
  const counts = rollout.served ? ` (${servedText(rollout.served, entry.from, rollout.to)})` : '';
  switch (rollout.event) {
    case 'started':
      return `rollout started: ${percentText(rollout.percent)} of subjects on ${rollout.to}`;
    case 'changed':
      return `rollout share changed to ${percentText(rollout.percent)} on ${rollout.to}${counts}`;
    case 'completed':
      return `rollout completed: now ${rollout.to}${counts}`;
    case 'aborted':
      return `rollout aborted at ${percentText(rollout.percent)}: stays on ${entry.from ?? 'the old version'}${counts}`;
    default:
      return `rollout ${rollout.event}: ${percentText(rollout.percent)} on ${rollout.to}${counts}`;
  }
}

/** The rollout id a history reason names (`rollout <id>`), if it is one. */
export function rolloutOfReason(reason: string | null | undefined): string | undefined {
  const match = /^rollout (ro_[0-9A-Za-z_]+)$/.exec(reason ?? '');
  return match?.[1];
}

/** The steps still scheduled, each with when it comes: `25% at 12:30` from the rollout's start. */
export function scheduledSteps(
  rollout: Pick<Rollout, 'startedAt' | 'steps'>,
): { readonly percent: number; readonly at: string; readonly afterMinutes: number }[] {
  const started = Date.parse(rollout.startedAt);
  return (rollout.steps ?? []).map((step) => ({
    percent: step.percent,
    afterMinutes: step.afterMinutes,
    at: Number.isNaN(started) ? '' : new Date(started + step.afterMinutes * 60_000).toISOString(),
  }));
}

/** `after 90 minutes`, `after 2 hours`, `after 1 day 3 hours`: a step's delay in words. */
export function delayText(minutes: number): string {
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  const parts = [
    days > 0 ? `${days} ${days === 1 ? 'day' : 'days'}` : '',
    hours > 0 ? `${hours} ${hours === 1 ? 'hour' : 'hours'}` : '',
    rest > 0 || minutes === 0 ? `${rest} ${rest === 1 ? 'minute' : 'minutes'}` : '',
  ].filter(Boolean);
  return `after ${parts.join(' ')}`;
}

/** What a change of share does, for the confirmation: who moves, and that nobody moves back from a raise. */
export function shareChangeText(rollout: Pick<Rollout, 'label' | 'from' | 'to' | 'percent'>, percent: number): string {
  const now = percentText(rollout.percent);
  const next = percentText(percent);
  if (percent > rollout.percent) {
    return `${next} of subjects get ${rollout.to} instead of ${now}: subjects already on ${rollout.to} stay there, and more move from ${rollout.from} to it.`;
  }
  if (percent < rollout.percent) {
    return `${next} of subjects get ${rollout.to} instead of ${now}: some subjects on ${rollout.to} go back to ${rollout.from}.`;
  }
  return `The share stays at ${now}.`;
}

/** Why the label's move and remove buttons are off while it rolls out (the API answers them 409). */
export function rollingOutNote(rollout: Pick<Rollout, 'label' | 'to' | 'percent'>): string {
  return `${rollout.label} is rolling out to ${rollout.to} (${percentText(rollout.percent)}): complete or abort the rollout before moving or removing it.`;
}

/** What an ended rollout did, said after Complete or Abort. */
export function endedText(rollout: Pick<Rollout, 'label' | 'from' | 'to' | 'state' | 'served'>): string {
  const counts = servedText(rollout.served, rollout.from, rollout.to);
  if (rollout.state === 'completed') return `Rollout completed: ${rollout.label} now points at ${rollout.to} for everyone (${counts}).`;
  if (rollout.state === 'aborted') return `Rollout aborted: ${rollout.label} stays on ${rollout.from} for everyone (${counts}).`;
  return `The rollout of ${rollout.label} is ${rollout.state}.`;
}
