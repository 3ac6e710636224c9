import { useState } from 'preact/hooks';
import type { DraftContent } from './draft-form';
import { DiffView } from '../../components/diff-view';
import { type Action, useLoad } from '../../components/hooks';
import { Button, DeniedNote, ErrorNote, Loading } from '../../components/ui';
import { useWorkspace } from '../../workspace';
import { isApiFieldProblem } from './api-field-problem';

/**
 * Publishing the draft, with a release note: what changes against the latest published version first (the form as
 * it is, unsaved changes included: they are saved before publishing).
 */
export function PublishPanel(props: {
  promptId: string;
  version: string;
  latest: string | undefined;
  /** The form's content, when it is valid. */
  content: DraftContent | undefined;
  denied: string | undefined;
  /** Said already at the top of the editor: not said again here. */
  locked: string | undefined;
  deniedId: string;
  publish: Action<[note: string]>;
}) {
  const { api, account } = useWorkspace();
  const { promptId, version, latest, publish } = props;
  const [note, setNote] = useState('');
  const [noteProblem, setNoteProblem] = useState<string | undefined>(undefined);
  const latestContent = useLoad(
    () => (latest ? api.version(account.accountId, promptId, latest) : Promise.resolve(undefined)),
    [api, account.accountId, promptId, latest],
  );
  return (
    <section aria-labelledby="publish-title" class="card">
      <h2 id="publish-title">Publish {version}</h2>
      <p class="muted">
        Publishing makes this draft an immutable version{latest ? `; it becomes the latest if it is above ${latest}` : ''}. Unsaved changes are saved first.
      </p>
      <DeniedNote id={props.deniedId} reason={props.denied === props.locked ? undefined : props.denied} />
      {props.content ? (
        <details open={latest !== undefined}>
          <summary>{latest ? `Changes against the latest published version, ${latest}` : 'Content to publish (no version is published yet)'}</summary>
          {latest && !latestContent.data ? <Loading what={`version ${latest}`} /> : null}
          {latest === undefined || latestContent.data ? (
            <DiffView
              before={latestContent.data}
              after={props.content}
              beforeTitle={latest ? `Latest (${latest})` : 'Nothing'}
              afterTitle={`This draft (${version})`}
            />
          ) : null}
        </details>
      ) : null}
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (note.trim() === '' || note.trim().length > 500) {
            publish.clear();
            setNoteProblem('Write a note of 1 to 500 characters: what changed and why.');
            return;
          }
          setNoteProblem(undefined);
          void publish.run(note.trim());
        }}
      >
        <div class="field">
          <label class="label" for="publish-note">
            Release note (required)
          </label>
          <textarea
            id="publish-note"
            value={note}
            rows={2}
            maxLength={500}
            required
            disabled={props.denied !== undefined}
            aria-invalid={noteProblem ? 'true' : undefined}
            aria-describedby="note-problem"
            onInput={(event) => setNote(event.currentTarget.value)}
          />
          <span id="note-problem" class={noteProblem ? 'field-error' : 'hint'} role={noteProblem ? 'alert' : undefined}>
            {noteProblem ?? `${note.trim().length} of 500 characters: what changed and why.`}
          </span>
        </div>
        <Button type="submit" kind="primary" busy={publish.busy} busyText={`Publishing ${version}…`} denied={props.denied} deniedId={props.deniedId}>
          Publish version {version}
        </Button>
        <ErrorNote problem={isApiFieldProblem(publish.problem) ? undefined : publish.problem} doing="Publishing" />
      </form>
    </section>
  );
}
