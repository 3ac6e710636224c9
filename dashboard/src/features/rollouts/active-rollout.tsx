import { useEffect, useState } from 'preact/hooks';
import type { PromptDetail, Rollout } from '../../api/types';
import { ConfirmDialog } from '../../components/dialog';
import { useAction, useId } from '../../components/hooks';
import { Button, ErrorNote, When } from '../../components/ui';
import { useWorkspace } from '../../workspace';
import { ACTIVE_SHARE_STEPS, delayText, endedText, percentText, scheduledSteps, servedSides, shareChangeText } from './rollouts';

/**
 * The active rollout: its share, its served counts and who started it; the share, Complete and Abort for those who may
 * move the label. Each dialog speaks of, and acts on, the rollout shown when it was opened: the request names it
 * (`rolloutId`), so a tab left open while someone ended it and started another is refused (409) and ends nothing.
 */
export function ActiveRollout(props: {
  detail: PromptDetail;
  rollout: Rollout;
  denied: string | undefined;
  onEnded(rollout: Rollout): void;
  onChanged(): void;
}) {
  const { api, account, announce } = useWorkspace();
  const { rollout, denied } = props;
  const { label } = rollout;
  const [share, setShare] = useState(rollout.percent);
  const [confirming, setConfirming] = useState<{ readonly kind: 'share' | 'complete' | 'abort'; readonly rollout: Rollout } | undefined>(undefined);
  const meant = confirming?.rollout ?? rollout;
  const [reason, setReason] = useState('');
  const sliderId = useId('rollout-slider');
  const reasonId = useId('rollout-reason');
  const factsId = useId('rollout-facts');
  const served = servedSides(rollout);
  // A step (or another person) changed the share: the slider follows the rollout, not a stale choice.
  useEffect(() => setShare(rollout.percent), [rollout.percent]);
  const close = () => setConfirming(undefined);
  const change = useAction(async () => {
    const answer = await api.changeRolloutShare(account.accountId, props.detail.promptId, label, share, meant.rolloutId);
    close();
    announce(`The share of ${label} is now ${percentText(answer.percent)}.`);
    props.onChanged();
  });
  const complete = useAction(async () => {
    const answer = await api.completeRollout(account.accountId, props.detail.promptId, label, meant.rolloutId);
    close();
    announce(endedText(answer));
    props.onEnded(answer);
  });
  const abort = useAction(async () => {
    const answer = await api.abortRollout(account.accountId, props.detail.promptId, label, reason, meant.rolloutId);
    close();
    setReason('');
    announce(endedText(answer));
    props.onEnded(answer);
  });
  const steps = scheduledSteps(rollout);
  const shareWords = `${percentText(share)} of subjects get ${rollout.to}`;
  return (
    <>
      <p class="rollout-summary">
        <span class="badge ok">rolling out</span> from <strong class="mono">{rollout.from}</strong> to <strong class="mono">{rollout.to}</strong>, at{' '}
        <strong>{percentText(rollout.percent)}</strong> of subjects
      </p>
      <dl class="config rollout-facts" id={factsId}>
        <dt>Share</dt>
        <dd>
          <meter min={0} max={100} value={rollout.percent} aria-label={`Share of ${label} on ${rollout.to}`} /> {percentText(rollout.percent)} get {rollout.to},{' '}
          {percentText(100 - rollout.percent)} stay on {rollout.from}
        </dd>
        <dt>Started</dt>
        <dd>
          by {rollout.startedBy}, <When iso={rollout.startedAt} />
        </dd>
        <dt>Rollout id</dt>
        <dd class="mono">{rollout.rolloutId}</dd>
        {rollout.note ? (
          <>
            <dt>Note</dt>
            <dd>{rollout.note}</dd>
          </>
        ) : null}
        <dt>Steps</dt>
        <dd>
          {steps.length === 0 ? (
            <span class="muted">none scheduled: the share changes only by hand</span>
          ) : (
            <ul class="rollout-steps">
              {steps.map((step) => (
                <li key={step.afterMinutes}>
                  {percentText(step.percent)} {delayText(step.afterMinutes)} (<When iso={step.at} />)
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt>Guard alarm</dt>
        <dd>{rollout.guardAlarm ? <span class="mono">{rollout.guardAlarm}</span> : <span class="muted">none</span>}</dd>
      </dl>
      <table class="list served">
        <caption>Reads served since it started (refreshed every 10 seconds)</caption>
        <thead>
          <tr>
            <th scope="col">Side</th>
            <th scope="col">Version</th>
            <th scope="col">Reads</th>
            <th scope="col">Share of reads</th>
          </tr>
        </thead>
        <tbody>
          {(['from', 'to'] as const).map((side) => (
            <tr key={side}>
              <th scope="row">{side === 'from' ? 'Stays (from)' : 'New (to)'}</th>
              <td class="mono">{served[side].version}</td>
              <td>{served[side].count.toLocaleString('en')}</td>
              <td>{served[side].shareText}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {denied === undefined ? (
        <>
          <form
            class="rollout-share"
            aria-label={`Change the share of ${label}`}
            onSubmit={(event) => {
              event.preventDefault();
              change.clear();
              setConfirming({ kind: 'share', rollout });
            }}
          >
            <div class="control">
              <label for={sliderId}>New share for {label}</label>
              <input
                id={sliderId}
                type="range"
                min={0}
                max={100}
                step={0.01}
                value={share}
                aria-valuetext={shareWords}
                onInput={(event) => setShare(Number(event.currentTarget.value))}
              />
              <output for={sliderId}>{percentText(share)}</output>
            </div>
            <fieldset class="choices">
              <legend>Steps</legend>
              {ACTIVE_SHARE_STEPS.map((step) => (
                <button
                  key={step}
                  type="button"
                  class="button plain small"
                  aria-pressed={share === step ? 'true' : 'false'}
                  aria-label={`Set the new share to ${step}%`}
                  onClick={() => setShare(step)}
                >
                  {step}%
                </button>
              ))}
            </fieldset>
            <Button type="submit" kind="primary" disabled={share === rollout.percent}>
              Apply share
            </Button>
          </form>
          {confirming?.kind === 'share' ? null : <ErrorNote problem={change.problem} doing={`Changing the share of ${label}`} />}
          <div class="actions">
            <Button
              kind="primary"
              onClick={() => {
                complete.clear();
                setConfirming({ kind: 'complete', rollout });
              }}
            >
              Complete rollout of {label}
            </Button>
            <Button
              kind="danger"
              onClick={() => {
                abort.clear();
                setConfirming({ kind: 'abort', rollout });
              }}
            >
              Abort rollout of {label}
            </Button>
          </div>
        </>
      ) : null}
      <ConfirmDialog
        open={confirming?.kind === 'share'}
        title={`Change the share of ${label} to ${percentText(share)}?`}
        confirmText={`Yes, change the share to ${percentText(share)}`}
        busy={change.busy}
        problem={change.problem}
        doing={`Changing the share of ${label}`}
        onConfirm={() => void change.run()}
        onCancel={close}
      >
        <p>{shareChangeText(meant, share)}</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming?.kind === 'complete'}
        title={`Complete the rollout of ${label}?`}
        confirmText={`Yes, move ${label} to ${meant.to}`}
        busy={complete.busy}
        problem={complete.problem}
        doing={`Completing the rollout of ${label}`}
        onConfirm={() => void complete.run()}
        onCancel={close}
      >
        <p>
          {label} moves to {meant.to} for everyone: every application reading <code>?label={label}</code> gets {meant.to} from its next request, the{' '}
          {percentText(100 - meant.percent)} still on {meant.from} included.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming?.kind === 'abort'}
        title={`Abort the rollout of ${label}?`}
        confirmText={`Yes, abort: keep ${label} on ${meant.from}`}
        busy={abort.busy}
        problem={abort.problem}
        doing={`Aborting the rollout of ${label}`}
        onConfirm={() => void abort.run()}
        onCancel={close}
      >
        <p>
          {label} stays on {meant.from}: the {percentText(meant.percent)} of subjects on {meant.to} go back to {meant.from} from their next request.
        </p>
        <div class="field">
          <label for={reasonId} class="label">
            Reason (optional)
          </label>
          <textarea id={reasonId} rows={2} maxLength={500} value={reason} onInput={(event) => setReason(event.currentTarget.value)} />
        </div>
      </ConfirmDialog>
    </>
  );
}
