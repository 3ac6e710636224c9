import { useState } from 'preact/hooks';
import type { ChangeRequest, StoredVersion } from '../../api/types';
import { DiffView } from '../../components/diff-view';
import { type Loaded, useId, useLoad } from '../../components/hooks';
import { PlaceholderChangeView } from '../../components/placeholder-change';
import { ConfirmDialog } from '../../components/dialog';
import { ErrorNote, Loading } from '../../components/ui';
import { placeholderChange } from '../../logic/placeholders';
import { hrefOf } from '../../logic/route';
import { useWorkspace } from '../../workspace';

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
  const { promptId, label, from, to, restore, approvals } = props;
  const [note, setNote] = useState('');
  const noteId = useId('move-note');
  const variablesId = useId('move-variables');
  const contents = useVersionPair(promptId, from, to);
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
      <VersionPairDiff
        contents={contents}
        beforeTitle={from ? `${label} now (${from})` : 'Nothing'}
        afterTitle={`${label} after (${to})`}
        variablesId={variablesId}
      />
      <ChangeNoteField id={noteId} label="Reason (optional)" note={note} setNote={setNote} opensChangeRequest={approvals !== undefined} />
    </ConfirmDialog>
  );
}

type VersionPair = readonly [StoredVersion | undefined, StoredVersion];

/** The version a label points at (none: nothing) and the one it would point at, read together for their diff. */
export function useVersionPair(promptId: string, from: string | undefined, to: string) {
  const { api, account } = useWorkspace();
  return useLoad(
    (): Promise<VersionPair> =>
      Promise.all([from ? api.version(account.accountId, promptId, from) : Promise.resolve(undefined), api.version(account.accountId, promptId, to)]),
    [api, account.accountId, promptId, from, to],
  );
}

/** What changes for those who read the label: the diff of the two versions and the variables added and removed. */
export function VersionPairDiff(props: {
  contents: Pick<Loaded<VersionPair>, 'data' | 'problem'>;
  beforeTitle: string;
  afterTitle: string;
  variablesId: string;
}) {
  const { contents } = props;
  return (
    <>
      {contents.data ? (
        <>
          <DiffView before={contents.data[0]} after={contents.data[1]} beforeTitle={props.beforeTitle} afterTitle={props.afterTitle} />
          <PlaceholderChangeView
            change={placeholderChange(contents.data[0], contents.data[1])}
            hadBefore={contents.data[0] !== undefined}
            titleId={props.variablesId}
          />
        </>
      ) : (
        <Loading what="the two versions" />
      )}
      <ErrorNote problem={contents.problem} doing="Reading the two versions" />
    </>
  );
}

/** Why the label moves, in the person's words: kept in its history, and on the change request when one is opened. */
export function ChangeNoteField(props: { id: string; label: string; note: string; setNote(note: string): void; opensChangeRequest: boolean }) {
  const { id } = props;
  return (
    <div class="field">
      <label for={id} class="label">
        {props.label}
      </label>
      <textarea
        id={id}
        rows={2}
        maxLength={500}
        value={props.note}
        aria-describedby={`${id}-hint`}
        onInput={(event) => props.setNote(event.currentTarget.value)}
      />
      <span class="hint" id={`${id}-hint`}>
        Up to 500 characters, kept in the label's history{props.opensChangeRequest ? ' and shown on the request' : ''}.
      </span>
    </div>
  );
}

/** Said after a move that opened a change request instead: plainly, with the way to it (the page's live region announces it). */
export function ChangeRequestOpenedNote({ request }: { request: ChangeRequest }) {
  const { account } = useWorkspace();
  return (
    <p class="notice">
      A change request was opened: {request.label} stays at {request.from ?? 'no version'} until it is approved, then{' '}
      {request.to === null ? 'is removed' : `moves to ${request.to}`}.{' '}
      <a href={hrefOf({ page: 'change-request', accountId: account.accountId, requestId: request.requestId })}>Open the change request</a>
    </p>
  );
}
