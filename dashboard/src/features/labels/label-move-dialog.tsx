import { ConfirmDialog } from '../../components/dialog';
import { moveDialogText } from './label-change';
import { MovePreview } from './move-preview';
import type { LabelMove } from './use-label-move';

/**
 * The confirmation of a move or a restore the label needs asked first (protected, or under approval; a restore
 * always): what changes for those who read it, and, where approvals cover it, that a change request opens instead.
 * Shown while `move` asks; `from` is where the label points now.
 */
export function LabelMoveDialog({ move, from }: { move: LabelMove; from: string | undefined }) {
  const change = move.asking;
  if (change === undefined || change.kind === 'remove' || change.kind === 'rollout') return null;
  const { label, approvals } = move;
  const text = moveDialogText(label, change, from, approvals);
  return (
    <ConfirmDialog
      open
      title={text.title}
      confirmText={text.confirm}
      busy={move.sending !== undefined}
      problem={move.problem}
      doing={text.doing}
      onConfirm={() => move.confirm()}
      onCancel={move.cancel}
    >
      {approvals !== undefined ? (
        <p>
          {label} needs {approvals === 1 ? 'an approval' : `${approvals} approvals`}: this opens a change request, and {label} moves to {change.to} only once{' '}
          {approvals === 1 ? 'someone else approves' : `${approvals} others approve`} it.
        </p>
      ) : (
        <p>
          {move.isProtected ? `${label} is protected: e` : 'E'}very application reading <code>?label={label}</code> gets version {change.to} from its next
          request.
        </p>
      )}
      <MovePreview
        move={move}
        from={from}
        to={change.to}
        beforeTitle={from ? `${label} now (${from})` : 'Nothing'}
        afterTitle={`${label} after (${change.to})`}
        noteLabel="Reason (optional)"
      />
    </ConfirmDialog>
  );
}
