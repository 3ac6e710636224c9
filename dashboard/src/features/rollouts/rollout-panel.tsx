import { useEffect, useState } from 'preact/hooks';
import type { ChangeRequest, PromptDetail, Rollout } from '../../api/types';
import { useAction, useId } from '../../components/hooks';
import { ConfirmDialog } from '../../components/dialog';
import { Button, DeniedNote, ErrorNote, FieldError, isFieldProblem, Loading, When } from '../../components/ui';
import { ApiProblem } from '../../logic/api-errors';
import { approvalsNeeded } from '../settings/approval-settings';
import { labelDenial } from '../../logic/roles';
import {
  ACTIVE_SHARE_STEPS,
  delayText,
  endedText,
  parseShare,
  percentText,
  SHARE_PRESETS,
  SHARE_RULE,
  scheduledSteps,
  servedSides,
  shareChangeText,
} from './rollouts';
import { hrefOf } from '../../logic/route';
import { ChangeNoteField, useVersionPair, VersionPairDiff } from '../labels/label-move';
import { newestFirst } from '../versions/versions';
import { useWorkspace } from '../../workspace';

/**
 * Rollouts (docs/rollouts.md): per label, a way to start moving it to another version for a share of subjects
 * (after the diff), and while one is active the panel to watch it (share, served counts, who started it) and to
 * change the share, complete or abort it. Those who may not move the label see it read-only.
 */
export function RolloutsSection(props: {
  detail: PromptDetail;
  rollouts: ReadonlyMap<string, Rollout> | undefined;
  loading: boolean;
  problem: unknown;
  onChanged(): void;
}) {
  const labels = Object.keys(props.detail.labels).sort((a, b) => a.localeCompare(b));
  return (
    <section aria-labelledby="rollouts-title">
      <h2 id="rollouts-title">Rollouts</h2>
      <p class="muted">
        A rollout moves a label for a share of subjects first: each subject (sent as <code>X-Prompt-Subject</code>) stays on its side while the share holds.
        Raise the share as confidence grows, then complete it (the label moves) or abort it (the label stays).
      </p>
      {labels.length === 0 ? <p>Point a label at a version before rolling it out.</p> : null}
      {props.rollouts === undefined && props.loading ? <Loading what="the rollouts" /> : null}
      <ErrorNote problem={props.problem} doing="Reading the rollouts" />
      {props.rollouts
        ? labels.map((label) => (
            <LabelRollout
              key={label}
              detail={props.detail}
              label={label}
              version={props.detail.labels[label] ?? ''}
              rollout={props.rollouts?.get(label)}
              onChanged={props.onChanged}
            />
          ))
        : null}
    </section>
  );
}

function LabelRollout(props: { detail: PromptDetail; label: string; version: string; rollout: Rollout | undefined; onChanged(): void }) {
  const { role, settings, announce, refreshAccount } = useWorkspace();
  const { detail, label, version, rollout } = props;
  const [starting, setStarting] = useState(false);
  const [opened, setOpened] = useState<ChangeRequest | undefined>(undefined);
  const [ended, setEnded] = useState<Rollout | undefined>(undefined);
  const titleId = useId('rollout-title');
  const deniedId = useId('rollout-denied');
  const protectedLabels = settings?.protectedLabels ?? ['production'];
  const denied = labelDenial(role, label, protectedLabels);
  const candidates = newestFirst(detail.versions.filter((v) => v.published && v.version !== version)).map((v) => v.version);
  return (
    <section aria-labelledby={titleId} class="card rollout">
      <h3 id={titleId}>
        Rollout of <span class="badge">{label}</span>
      </h3>
      <DeniedNote id={deniedId} reason={denied} />
      {ended ? (
        <p class="notice" role="status">
          {endedText(ended)}
        </p>
      ) : null}
      {rollout ? (
        <ActiveRollout
          detail={detail}
          rollout={rollout}
          denied={denied}
          onEnded={(answer) => {
            setEnded(answer);
            props.onChanged();
          }}
          onChanged={props.onChanged}
        />
      ) : (
        <>
          <p>
            {label} is not rolling out: every read at <code>?label={label}</code> gets {version}.
          </p>
          {opened ? <RolloutChangeRequestNote request={opened} /> : null}
          {denied === undefined ? (
            <Button
              kind="primary"
              disabled={candidates.length === 0}
              aria-describedby={candidates.length === 0 ? `${titleId}-none` : undefined}
              onClick={() => {
                setEnded(undefined);
                setStarting(true);
              }}
            >
              Start a rollout of {label}
            </Button>
          ) : null}
          {candidates.length === 0 && denied === undefined ? (
            <p class="hint" id={`${titleId}-none`}>
              Publish another version to roll {label} out to it.
            </p>
          ) : null}
        </>
      )}
      {starting && candidates.length > 0 ? (
        <StartRolloutDialog
          detail={detail}
          label={label}
          from={version}
          candidates={candidates}
          approvals={approvalsNeeded(settings?.approvals, label)}
          onDone={(outcome) => {
            setStarting(false);
            if (outcome.kind === 'requested') {
              setOpened(outcome.request);
              announce(`A change request was opened to roll ${label} out to ${outcome.request.to ?? ''}.`);
              refreshAccount();
              return;
            }
            setOpened(undefined);
            announce(`The rollout of ${label} to ${outcome.rollout.to} started at ${percentText(outcome.rollout.percent)}.`);
            props.onChanged();
          }}
          onConflict={props.onChanged}
          onCancel={() => setStarting(false)}
        />
      ) : null}
    </section>
  );
}

type StartOutcome = { kind: 'started'; rollout: Rollout } | { kind: 'requested'; request: ChangeRequest };

/** Choosing the version, the share and a note, with the diff from where the label is; where the label needs approval, it asks instead. */
function StartRolloutDialog(props: {
  detail: PromptDetail;
  label: string;
  from: string;
  candidates: readonly string[];
  approvals: number | undefined;
  onDone(outcome: StartOutcome): void;
  onConflict(): void;
  onCancel(): void;
}) {
  const { api, account } = useWorkspace();
  const { detail, label, from, approvals } = props;
  const [to, setTo] = useState(props.candidates[0] ?? '');
  const [shareText, setShareText] = useState('10');
  const [note, setNote] = useState('');
  const [touched, setTouched] = useState(false);
  const shareId = useId('rollout-share');
  const noteId = useId('rollout-note');
  const variablesId = useId('rollout-variables');
  const parsed = parseShare(shareText);
  const shareProblem = touched && 'problem' in parsed ? parsed.problem : undefined;
  const contents = useVersionPair(detail.promptId, from, to);
  const start = useAction(async () => {
    if (!('percent' in parsed)) return;
    try {
      props.onDone(await api.startRollout(account.accountId, detail.promptId, label, { to, percent: parsed.percent, note }));
    } catch (problem) {
      // Someone started a rollout or opened a request meanwhile: the panel reads it again behind the dialog.
      if (problem instanceof ApiProblem && problem.status === 409) props.onConflict();
      throw problem;
    }
  });
  const shareWords = 'percent' in parsed ? percentText(parsed.percent) : 'the share';
  return (
    <ConfirmDialog
      open
      title={`Start a rollout of ${label}?`}
      confirmText={approvals !== undefined ? `Yes, ask to roll out ${to} to ${shareWords}` : `Yes, roll out ${to} to ${shareWords}`}
      busy={start.busy}
      problem={isFieldProblem(start.problem, ['percent']) ? undefined : start.problem}
      doing={`Starting the rollout of ${label}`}
      onConfirm={() => {
        setTouched(true);
        if ('percent' in parsed) void start.run();
      }}
      onCancel={props.onCancel}
    >
      <p>
        {label} stays on {from} for most subjects: {'percent' in parsed ? percentText(parsed.percent) : 'a share'} of them get {to} instead, each one always the
        same side while the share holds.
        {approvals !== undefined
          ? ` ${label} needs ${approvals === 1 ? 'an approval' : `${approvals} approvals`}: this opens a change request, and the rollout starts only once ${approvals === 1 ? 'someone else approves' : `${approvals} others approve`} it.`
          : ''}
      </p>
      <div class="inline-form rollout-start">
        <div class="control">
          <label for={`${shareId}-version`}>Version to roll out</label>
          <select id={`${shareId}-version`} value={to} onChange={(event) => setTo(event.currentTarget.value)}>
            {props.candidates.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        </div>
        <div class="control">
          <label for={shareId}>Share of subjects (%)</label>
          <input
            id={shareId}
            type="number"
            min={0}
            max={100}
            step={0.01}
            inputMode="decimal"
            value={shareText}
            aria-invalid={shareProblem ? 'true' : undefined}
            aria-describedby={`${shareId}-hint ${shareId}-api`}
            onInput={(event) => {
              setShareText(event.currentTarget.value);
              setTouched(true);
            }}
          />
          <span id={`${shareId}-hint`} class={shareProblem ? 'field-error' : 'hint'} role={shareProblem ? 'alert' : undefined}>
            {shareProblem ?? SHARE_RULE}
          </span>
          <FieldError problem={start.problem} field="percent" id={`${shareId}-api`} />
        </div>
      </div>
      <fieldset class="choices">
        <legend>Common shares</legend>
        {SHARE_PRESETS.map((preset) => (
          <button
            key={preset}
            type="button"
            class="button plain small"
            aria-pressed={'percent' in parsed && parsed.percent === preset ? 'true' : 'false'}
            onClick={() => {
              setShareText(String(preset));
              setTouched(true);
            }}
          >
            {preset}%
          </button>
        ))}
      </fieldset>
      <VersionPairDiff contents={contents} beforeTitle={`${label} now (${from})`} afterTitle={`the rollout's version (${to})`} variablesId={variablesId} />
      <ChangeNoteField id={noteId} label="Note (optional)" note={note} setNote={setNote} opensChangeRequest={approvals !== undefined} />
    </ConfirmDialog>
  );
}

/** Said after starting a rollout opened a change request instead: plainly, with the way to it. */
function RolloutChangeRequestNote({ request }: { request: ChangeRequest }) {
  const { account } = useWorkspace();
  return (
    <p class="notice">
      A change request was opened: the rollout of {request.label} to {request.to ?? 'its version'}
      {request.rollout ? ` at ${percentText(request.rollout.percent)}` : ''} starts once it is approved; until then {request.label} stays on{' '}
      {request.from ?? 'no version'}.{' '}
      <a href={hrefOf({ page: 'change-request', accountId: account.accountId, requestId: request.requestId })}>Open the change request</a>
    </p>
  );
}

/**
 * The active rollout: its share, its served counts and who started it; the share, Complete and Abort for those who may
 * move the label. Each dialog speaks of, and acts on, the rollout shown when it was opened: the request names it
 * (`rolloutId`), so a tab left open while someone ended it and started another is refused (409) and ends nothing.
 */
function ActiveRollout(props: { detail: PromptDetail; rollout: Rollout; denied: string | undefined; onEnded(rollout: Rollout): void; onChanged(): void }) {
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
