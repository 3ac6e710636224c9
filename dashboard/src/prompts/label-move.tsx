import { useState } from 'preact/hooks';
import type { ChangeRequest } from '../api/types';
import { DiffView } from '../components/diff-view';
import { useId, useLoad } from '../components/hooks';
import { PlaceholderChangeView } from '../components/placeholder-change';
import { ConfirmDialog, ErrorNote, Loading } from '../components/ui';
import { placeholderChange } from '../logic/requests';
import { hrefOf } from '../logic/route';
import { useWorkspace } from '../workspace';

/**
 * Moving a protected label, one that needs approval, or restoring a label to a past version asks first, and
 * shows what changes for those who read it: the diff from the version it points at now to the new one, and the
 * variables added and removed. A note says why (the API keeps it in the label's history and on the request).
 */
export function LabelMoveDialog(props: {
  promptId: string;
  label: string;
  from: string | undefined;
  to: string;
  /** A move back to a version the label pointed at before, from its history. */
  restore?: boolean;
  isProtected: boolean;
  /** Approvals the move needs: it then opens a change request instead of moving. */
  approvals: number | undefined;
  busy: boolean;
  problem: unknown;
  onConfirm(note: string): void;
  onCancel(): void;
}) {
  const { api, account } = useWorkspace();
  const { promptId, label, from, to, restore, approvals } = props;
  const [note, setNote] = useState('');
  const noteId = useId('move-note');
  const variablesId = useId('move-variables');
  const contents = useLoad(
    () => Promise.all([from ? api.version(account.accountId, promptId, from) : Promise.resolve(undefined), api.version(account.accountId, promptId, to)]),
    [api, account.accountId, promptId, from, to],
  );
  const verb = restore ? 'restore' : 'move';
  const title = restore ? `Restore ${label} to ${to}?` : from ? `Move ${label} from ${from} to ${to}?` : `Point ${label} at ${to}?`;
  const confirmText = approvals !== undefined ? `Yes, ask to ${verb} ${label} to ${to}` : `Yes, ${verb} ${label} to ${to}`;
  return (
    <ConfirmDialog
      open
      title={title}
      confirmText={confirmText}
      busy={props.busy}
      problem={props.problem}
      doing={restore ? `Restoring ${label}` : `Moving ${label}`}
      onConfirm={() => props.onConfirm(note)}
      onCancel={props.onCancel}
    >
      {approvals !== undefined ? (
        <p>
          {label} needs {approvals === 1 ? 'an approval' : `${approvals} approvals`}: this opens a change request, and {label} moves to {to} only once{' '}
          {approvals === 1 ? 'someone else approves' : `${approvals} others approve`} it.
        </p>
      ) : (
        <p>
          {props.isProtected ? `${label} is protected: e` : 'E'}very application reading <code>?label={label}</code> gets version {to} from its next request.
        </p>
      )}
      {contents.data ? (
        <>
          <DiffView
            before={contents.data[0]}
            after={contents.data[1]}
            beforeTitle={from ? `${label} now (${from})` : 'Nothing'}
            afterTitle={`${label} after (${to})`}
          />
          <PlaceholderChangeView
            change={placeholderChange(contents.data[0], contents.data[1])}
            hadBefore={contents.data[0] !== undefined}
            titleId={variablesId}
          />
        </>
      ) : (
        <Loading what="the two versions" />
      )}
      <ErrorNote problem={contents.problem} doing="Reading the two versions" />
      <div class="field">
        <label for={noteId} class="label">
          Reason (optional)
        </label>
        <textarea
          id={noteId}
          rows={2}
          maxLength={500}
          value={note}
          aria-describedby={`${noteId}-hint`}
          onInput={(event) => setNote(event.currentTarget.value)}
        />
        <span class="hint" id={`${noteId}-hint`}>
          Up to 500 characters, kept in the label's history{approvals !== undefined ? ' and shown on the request' : ''}.
        </span>
      </div>
    </ConfirmDialog>
  );
}

/** Said after a move that opened a change request instead: plainly, with the way to it (the page's live region announces it). */
export function RequestOpenedNote({ request }: { request: ChangeRequest }) {
  const { account } = useWorkspace();
  return (
    <p class="notice">
      A change request was opened: {request.label} stays at {request.from ?? 'no version'} until it is approved, then{' '}
      {request.to === null ? 'is removed' : `moves to ${request.to}`}.{' '}
      <a href={hrefOf({ page: 'request', accountId: account.accountId, requestId: request.requestId })}>Open the change request</a>
    </p>
  );
}
