import { useState } from 'preact/hooks';
import type { PromptDetail, VersionContent } from '../../api/types';
import { useAction, useId } from '../../components/hooks';
import { Button, Control, DeniedNote, ErrorNote, FieldError } from '../../components/ui';
import { denial } from '../../logic/roles';
import { useWorkspace } from '../../workspace';
import { newestFirst, newVersionProblem, nextVersions, VERSION_HINT } from './versions';

export const EMPTY_CONTENT: VersionContent = {
  systemMessage: '',
  userMessage: '',
  config: { model: 'gpt-4o-mini', temperature: 0.7, schema: [], inputData: null, inputDataRootName: null },
};

/** A new draft from any version (or from nothing), numbered by default with the next patch. */
export function NewDraft({ detail, initialFrom }: { detail: PromptDetail; initialFrom?: string }) {
  const { api, account, role, navigate } = useWorkspace();
  const existing = detail.versions.map((v) => v.version);
  const suggested = nextVersions(existing);
  const sources = newestFirst(detail.versions);
  const [from, setFrom] = useState<string>(initialFrom ?? detail.latestVersion ?? sources[0]?.version ?? '');
  const [version, setVersion] = useState(suggested.patch);
  const [touched, setTouched] = useState(false);
  const denied = denial(role, 'edit drafts') ?? (detail.deleted ? 'This prompt is deleted: restore it before adding drafts.' : undefined);
  const deniedId = useId('new-draft-denied');
  const versionError = useId('draft-version-error');
  const versionId = useId('draft-version');
  const problem = touched ? newVersionProblem(version, existing) : undefined;
  const create = useAction(async () => {
    const content = from ? await api.version(account.accountId, detail.promptId, from) : EMPTY_CONTENT;
    await api.createDraft(account.accountId, detail.promptId, version, {
      systemMessage: content.systemMessage,
      userMessage: content.userMessage,
      config: content.config,
    });
    navigate({ page: 'version', accountId: account.accountId, promptId: detail.promptId, version });
  });
  return (
    <section aria-labelledby="new-draft-title" class="card">
      <h2 id="new-draft-title">New draft</h2>
      <DeniedNote id={deniedId} reason={denied} />
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          setTouched(true);
          if (newVersionProblem(version, existing) === undefined) void create.run();
        }}
      >
        <Control label="Start from">
          {(control) => (
            <select {...control} value={from} disabled={denied !== undefined} onChange={(event) => setFrom(event.currentTarget.value)}>
              {sources.map((v) => (
                <option key={v.version} value={v.version}>
                  version {v.version}
                  {v.published ? '' : ' (draft)'}
                </option>
              ))}
              <option value="">an empty prompt</option>
            </select>
          )}
        </Control>
        <div class="control">
          <label for={versionId}>Draft version</label>
          <input
            id={versionId}
            class="mono"
            value={version}
            disabled={denied !== undefined}
            aria-invalid={problem ? 'true' : undefined}
            aria-describedby={`${versionError} ${versionError}-api`}
            title={VERSION_HINT}
            onInput={(event) => {
              setVersion(event.currentTarget.value.trim());
              setTouched(true);
            }}
          />
          <span id={versionError} class={problem ? 'field-error' : 'hint'} role={problem ? 'alert' : undefined}>
            {problem ?? `Suggested: ${suggested.patch}, the next patch.`}
          </span>
          <FieldError problem={create.problem} field="version" id={`${versionError}-api`} />
        </div>
        <fieldset class="choices">
          <legend class="visually-hidden">Suggested versions</legend>
          {(['patch', 'minor', 'major'] as const).map((kind) => (
            <button key={kind} type="button" class="button plain small" disabled={denied !== undefined} onClick={() => setVersion(suggested[kind])}>
              Next {kind} {suggested[kind]}
            </button>
          ))}
        </fieldset>
        <Button type="submit" kind="primary" busy={create.busy} busyText="Creating the draft…" denied={denied} deniedId={deniedId}>
          Create draft
        </Button>
      </form>
      <ErrorNote problem={create.problem} doing="Creating the draft" />
    </section>
  );
}
