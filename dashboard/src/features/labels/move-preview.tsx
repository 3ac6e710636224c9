import type { StoredVersion } from '../../api/types';
import { DiffView } from '../../components/diff-view';
import { useId, useLoad } from '../../components/hooks';
import { PlaceholderChangeView } from '../../components/placeholder-change';
import { ErrorNote, Loading } from '../../components/ui';
import { placeholderChange } from '../../logic/placeholders';
import { useWorkspace } from '../../workspace';
import type { LabelMove } from './use-label-move';

/**
 * What a label change does for those who read the label, shown before it is confirmed: the diff from the version
 * it points at now (none: nothing) to the new one, the variables added and removed, and the note that says why
 * (the API keeps it in the label's history, and on the change request when one is opened).
 */
export function MovePreview(props: { move: LabelMove; from: string | undefined; to: string; beforeTitle: string; afterTitle: string; noteLabel: string }) {
  const { move } = props;
  const variablesId = useId('move-variables');
  const noteId = useId('move-note');
  const contents = useVersionPair(move.promptId, props.from, props.to);
  return (
    <>
      {contents.data ? (
        <>
          <DiffView before={contents.data[0]} after={contents.data[1]} beforeTitle={props.beforeTitle} afterTitle={props.afterTitle} />
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
          {props.noteLabel}
        </label>
        <textarea
          id={noteId}
          rows={2}
          maxLength={500}
          value={move.note}
          aria-describedby={`${noteId}-hint`}
          onInput={(event) => move.setNote(event.currentTarget.value)}
        />
        <span class="hint" id={`${noteId}-hint`}>
          Up to 500 characters, kept in the label's history{move.approvals !== undefined ? ' and shown on the request' : ''}.
        </span>
      </div>
    </>
  );
}

/** The version a label points at (none: nothing) and the one it would point at, read together for their diff. */
function useVersionPair(promptId: string, from: string | undefined, to: string) {
  const { api, account } = useWorkspace();
  return useLoad(
    (): Promise<readonly [StoredVersion | undefined, StoredVersion]> =>
      Promise.all([from ? api.version(account.accountId, promptId, from) : Promise.resolve(undefined), api.version(account.accountId, promptId, to)]),
    [api, account.accountId, promptId, from, to],
  );
}
