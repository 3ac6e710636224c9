import { useState } from 'preact/hooks';
import type { ChangeRequest } from '../../api/types';
import { ConfirmDialog } from '../../components/dialog';
import { useId } from '../../components/hooks';
import { FieldError, isFieldProblem } from '../../components/ui';
import { hrefOf } from '../../logic/route';
import { useWorkspace } from '../../workspace';
import type { LabelChange } from '../labels/label-change';
import { MovePreview } from '../labels/move-preview';
import type { LabelMove } from '../labels/use-label-move';
import { parseShare, percentText, SHARE_PRESETS, SHARE_RULE } from './rollouts';

/** Choosing the version, the share and a note, with the diff from where the label is; where the label needs approval, it asks instead. */
export function StartRolloutDialog(props: {
  move: LabelMove;
  /** The rollout as the dialog opens: the newest version the label is not on, and the first share. */
  start: Extract<LabelChange, { readonly kind: 'rollout' }>;
  from: string;
  candidates: readonly string[];
}) {
  const { move, from } = props;
  const { label, approvals } = move;
  const [to, setTo] = useState(props.start.to);
  const [shareText, setShareText] = useState(String(props.start.percent));
  const [touched, setTouched] = useState(false);
  const shareId = useId('rollout-share');
  const parsed = parseShare(shareText);
  const shareProblem = touched && 'problem' in parsed ? parsed.problem : undefined;
  const shareWords = 'percent' in parsed ? percentText(parsed.percent) : 'the share';
  return (
    <ConfirmDialog
      open
      title={`Start a rollout of ${label}?`}
      confirmText={approvals !== undefined ? `Yes, ask to roll out ${to} to ${shareWords}` : `Yes, roll out ${to} to ${shareWords}`}
      busy={move.sending !== undefined}
      problem={isFieldProblem(move.problem, ['percent']) ? undefined : move.problem}
      doing={`Starting the rollout of ${label}`}
      onConfirm={() => {
        setTouched(true);
        if ('percent' in parsed) move.confirm({ kind: 'rollout', to, percent: parsed.percent });
      }}
      onCancel={move.cancel}
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
          <FieldError problem={move.problem} field="percent" id={`${shareId}-api`} />
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
      <MovePreview
        move={move}
        from={from}
        to={to}
        beforeTitle={`${label} now (${from})`}
        afterTitle={`the rollout's version (${to})`}
        noteLabel="Note (optional)"
      />
    </ConfirmDialog>
  );
}

/** Said after starting a rollout opened a change request instead: plainly, with the way to it. */
export function RolloutChangeRequestNote({ request }: { request: ChangeRequest }) {
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
