import { useEffect, useState } from 'preact/hooks';
import type { PromptDetail, StoredVersion } from '../api/types';
import { DiffView } from '../components/diff-view';
import { useAction, useId, useLoad } from '../components/hooks';
import { Button, ConfirmDialog, DeniedNote, ErrorNote, Loading, PageTitle, When } from '../components/ui';
import { ApiProblem, type SavedBy, savedBy } from '../logic/api-errors';
import { contentOf, type DraftContent, type DraftField, type DraftForm, formOf, sameContent } from '../logic/draft-form';
import { placeholdersIn, previewPieces, unfilled } from '../logic/placeholders';
import { denial } from '../logic/roles';
import { hrefOf } from '../logic/route';
import { useWorkspace } from '../workspace';
import { NewDraft } from './prompt-page';

/** One version: a published one to read, or a draft to edit, preview, save and publish. */
export function VersionPage({ promptId, version }: { promptId: string; version: string }) {
  const { api, account } = useWorkspace();
  const stored = useLoad(() => api.version(account.accountId, promptId, version), [api, account.accountId, promptId, version]);
  const prompt = useLoad(() => api.prompt(account.accountId, promptId), [api, account.accountId, promptId, stored.data?.published]);
  const crumbs = (
    <p class="breadcrumb">
      <a href={hrefOf({ page: 'prompts', accountId: account.accountId })}>Prompts</a> /{' '}
      <a href={hrefOf({ page: 'prompt', accountId: account.accountId, promptId })} class="mono">
        {promptId}
      </a>{' '}
      / <span class="mono">{version}</span>
    </p>
  );
  if (!stored.data) {
    return (
      <>
        {crumbs}
        <PageTitle>{`Version ${version}`}</PageTitle>
        {stored.loading ? <Loading what="the version" /> : null}
        <ErrorNote problem={stored.problem} doing="Reading the version" />
      </>
    );
  }
  return (
    <>
      {crumbs}
      {stored.data.published ? (
        <Published promptId={promptId} stored={stored.data} detail={prompt.data} />
      ) : (
        <Editor key={stored.data.etag} promptId={promptId} stored={stored.data} detail={prompt.data} onPublished={stored.reload} />
      )}
    </>
  );
}

function Published({ promptId, stored, detail }: { promptId: string; stored: StoredVersion; detail: PromptDetail | undefined }) {
  const { account } = useWorkspace();
  const summary = detail?.versions.find((v) => v.version === stored.version);
  const [samples, setSamples] = useState<Record<string, string>>({});
  const form = formOf(stored);
  return (
    <>
      <PageTitle>{`${detail?.promptName ?? promptId} ${stored.version}`}</PageTitle>
      <p>
        <span class="badge ok">published</span> by {summary?.publishedBy ?? '—'} <When iso={summary?.publishedAt} />
        {summary?.note ? (
          <>
            {' '}
            · note: <q>{summary.note}</q>
          </>
        ) : null}
      </p>
      <p class="muted">
        A published version never changes: to change it, start a new draft from it below. Labels are moved on the{' '}
        <a href={hrefOf({ page: 'prompt', accountId: account.accountId, promptId })}>prompt's page</a>.
      </p>
      <div class="editor">
        <div class="fields">
          <ReadOnlyText label="System message" text={stored.systemMessage} />
          <ReadOnlyText label="User message template" text={stored.userMessage} />
          <dl class="config">
            <dt>Model</dt>
            <dd class="mono">{form.model}</dd>
            <dt>Temperature</dt>
            <dd class="mono">{form.temperature}</dd>
            <dt>Schema</dt>
            <dd>
              <pre>{form.schema}</pre>
            </dd>
            <dt>Input data</dt>
            <dd>
              <pre>{form.inputData || 'none'}</pre>
            </dd>
          </dl>
        </div>
        <Preview systemMessage={stored.systemMessage} userMessage={stored.userMessage} samples={samples} onSamples={setSamples} />
      </div>
      {detail ? <NewDraft detail={detail} initialFrom={stored.version} /> : null}
    </>
  );
}

function ReadOnlyText({ label, text }: { label: string; text: string }) {
  return (
    <label class="field">
      <span class="label">{label}</span>
      <textarea readOnly class="mono" rows={Math.min(12, Math.max(2, text.split('\n').length + 1))} value={text} />
    </label>
  );
}

/** Unsaved text survives a new sign-in in this tab: it waits in sessionStorage until it is saved. */
const unsavedKey = (accountId: string, promptId: string, version: string) => `dashboard.unsaved:${accountId}/${promptId}/${version}`;

function readUnsaved(key: string): DraftForm | undefined {
  try {
    const text = sessionStorage.getItem(key);
    return text ? (JSON.parse(text) as DraftForm) : undefined;
  } catch {
    return undefined;
  }
}

type Conflict = { readonly by: SavedBy | undefined; readonly theirs?: StoredVersion };

function Editor({ promptId, stored, detail, onPublished }: { promptId: string; stored: StoredVersion; detail: PromptDetail | undefined; onPublished(): void }) {
  const { api, account, role, navigate, announce } = useWorkspace();
  const storageKey = unsavedKey(account.accountId, promptId, stored.version);
  const [base, setBase] = useState<StoredVersion>(stored);
  const [restored] = useState(() => readUnsaved(storageKey));
  const [form, setForm] = useState<DraftForm>(() => restored ?? formOf(stored));
  const [samples, setSamples] = useState<Record<string, string>>({});
  const [problems, setProblems] = useState<Partial<Record<DraftField, string>>>({});
  const [conflict, setConflict] = useState<Conflict | undefined>(undefined);
  const [savedAt, setSavedAt] = useState<string | undefined>(undefined);
  const [note, setNote] = useState('');
  const [noteProblem, setNoteProblem] = useState<string | undefined>(undefined);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const dirty = !sameContent(form, formOf(base));
  const denied = denial(role, 'edit drafts');
  const publishDenied = denial(role, 'publish versions');
  const deniedId = useId('editor-denied');

  useEffect(() => {
    if (dirty) sessionStorage.setItem(storageKey, JSON.stringify(form));
    else sessionStorage.removeItem(storageKey);
  }, [dirty, form, storageKey]);

  const set = (field: keyof DraftForm) => (event: Event) => {
    const value = (event.currentTarget as HTMLInputElement | HTMLTextAreaElement).value;
    setForm((previous) => ({ ...previous, [field]: value }));
  };

  const checked = (): DraftContent | undefined => {
    const result = contentOf(form);
    setProblems(result.problems ?? {});
    return result.content;
  };

  /** Saves what is in the form over `etag`; a 412 becomes the conflict panel, and the form keeps the text. */
  const saveOver = async (etag: string): Promise<StoredVersion | undefined> => {
    const content = checked();
    if (!content) return undefined;
    try {
      const saved = await api.saveDraft(account.accountId, promptId, stored.version, content, etag);
      setBase(saved);
      setForm(formOf(saved));
      setConflict(undefined);
      setSavedAt(new Date().toLocaleTimeString());
      sessionStorage.removeItem(storageKey);
      announce('Draft saved.');
      return saved;
    } catch (error) {
      if (error instanceof ApiProblem && error.status === 412) {
        setConflict({ by: error.current });
        return undefined;
      }
      throw error;
    }
  };

  const save = useAction(() => saveOver(base.etag));
  const showTheirs = useAction(async () => {
    const theirs = await api.version(account.accountId, promptId, stored.version);
    setConflict((previous) => ({ by: previous?.by ?? { updatedAt: theirs.updatedAt ?? undefined, updatedBy: theirs.updatedBy ?? undefined }, theirs }));
  });
  const keepMine = useAction(async () => {
    const theirs = conflict?.theirs ?? (await api.version(account.accountId, promptId, stored.version));
    await saveOver(theirs.etag);
  });
  const takeTheirs = useAction(async () => {
    const theirs = conflict?.theirs ?? (await api.version(account.accountId, promptId, stored.version));
    setBase(theirs);
    setForm(formOf(theirs));
    setConflict(undefined);
    sessionStorage.removeItem(storageKey);
    announce('Their version is loaded; your changes were dropped.');
  });
  const publish = useAction(async () => {
    if (note.trim() === '' || note.trim().length > 500) {
      setNoteProblem('Write a note of 1 to 500 characters: what changed and why.');
      return;
    }
    setNoteProblem(undefined);
    const current = dirty ? await saveOver(base.etag) : base;
    if (!current) return;
    await api.publish(account.accountId, promptId, stored.version, current.etag, note.trim());
    sessionStorage.removeItem(storageKey);
    announce(`Version ${stored.version} published.`);
    onPublished();
  });
  const remove = useAction(async () => {
    await api.deleteDraft(account.accountId, promptId, stored.version, base.etag);
    sessionStorage.removeItem(storageKey);
    navigate({ page: 'prompt', accountId: account.accountId, promptId });
  });

  const latest = detail?.latestVersion ?? undefined;
  const latestContent = useLoad(
    () => (latest ? api.version(account.accountId, promptId, latest) : Promise.resolve(undefined)),
    [api, account.accountId, promptId, latest],
  );
  const formContent = contentOf(form).content;
  const variables = placeholdersIn(form.systemMessage, form.userMessage);
  const field = (name: DraftField) => ({ id: `field-${name}`, error: problems[name] });

  return (
    <>
      <PageTitle>{`Draft ${stored.version} of ${detail?.promptName ?? promptId}`}</PageTitle>
      <p class="muted">
        <span class="badge draft">draft</span> last saved by {base.updatedBy ?? '—'} <When iso={base.updatedAt} />
        {savedAt ? ` · saved by you at ${savedAt}` : ''}
        {dirty ? <strong class="unsaved"> · unsaved changes</strong> : null}
      </p>
      {restored && dirty ? (
        <p class="notice" role="status">
          Your unsaved changes from earlier in this tab are back in the form. Save them, or reload the page after discarding.
        </p>
      ) : null}
      <DeniedNote id={deniedId} reason={denied} />
      {conflict ? (
        <section class="conflict" aria-labelledby="conflict-title">
          <h2 id="conflict-title">Someone saved this draft in between</h2>
          <p role="alert">
            {conflict.by?.updatedBy ? (
              <>
                <strong>{conflict.by.updatedBy}</strong> saved it{conflict.by.updatedAt ? <> at <When iso={conflict.by.updatedAt} /></> : null} after you opened it.
              </>
            ) : (
              <>Someone else saved it{savedBy(conflict.by)} after you opened it.</>
            )}{' '}
            Your text is kept here, unsaved. Compare, then keep yours or take theirs.
          </p>
          <div class="actions">
            <Button onClick={() => void showTheirs.run()} busy={showTheirs.busy} busyText="Loading theirs…">
              Compare with their version
            </Button>
            <Button kind="primary" onClick={() => void keepMine.run()} busy={keepMine.busy} busyText="Saving…">
              Save mine over theirs
            </Button>
            <Button kind="danger" onClick={() => void takeTheirs.run()} busy={takeTheirs.busy} busyText="Loading…">
              Discard mine and load theirs
            </Button>
          </div>
          <ErrorNote problem={showTheirs.problem ?? keepMine.problem ?? takeTheirs.problem} doing="Resolving the conflict" />
          {conflict.theirs && formContent ? <DiffView before={conflict.theirs} after={formContent} beforeTitle="Their saved version" afterTitle="Your text" /> : null}
        </section>
      ) : null}
      <div class="editor">
        <form
          class="fields"
          aria-label="Draft content"
          onSubmit={(event) => {
            event.preventDefault();
            void save.run();
          }}
        >
          <TextField label="System message" value={form.systemMessage} onInput={set('systemMessage')} disabled={denied} rows={6} {...field('systemMessage')} />
          <TextField label="User message template" value={form.userMessage} onInput={set('userMessage')} disabled={denied} rows={8} hint="Write ${name} for a variable; $${ for a literal ${." {...field('userMessage')} />
          <div class="row">
            <InputField label="Model" value={form.model} onInput={set('model')} disabled={denied} {...field('config.model')} />
            <InputField label="Temperature" value={form.temperature} onInput={set('temperature')} disabled={denied} inputMode="decimal" hint="0 to 2" {...field('config.temperature')} />
          </div>
          <TextField label="Schema (JSON array)" value={form.schema} onInput={set('schema')} disabled={denied} rows={4} mono {...field('config.schema')} />
          <TextField label="Input data (JSON, optional)" value={form.inputData} onInput={set('inputData')} disabled={denied} rows={4} mono {...field('config.inputData')} />
          <InputField label="Input data root name (optional)" value={form.inputDataRootName} onInput={set('inputDataRootName')} disabled={denied} {...field('config.inputDataRootName')} />
          <ApiFieldProblem problem={save.problem ?? publish.problem} />
          <div class="actions">
            <Button type="submit" kind="primary" busy={save.busy} busyText="Saving…" denied={denied} deniedId={deniedId} disabled={!dirty}>
              Save draft
            </Button>
            <Button kind="danger" denied={denied} deniedId={deniedId} onClick={() => setConfirmDelete(true)}>
              Delete draft
            </Button>
            {dirty ? null : <span class="muted">No unsaved changes.</span>}
          </div>
          <ErrorNote problem={isApiFieldProblem(save.problem) ? undefined : save.problem} doing="Saving the draft" />
        </form>
        <div class="side">
          <section aria-labelledby="variables-title">
            <h2 id="variables-title">Variables</h2>
            {variables.length === 0 ? (
              <p class="muted">No variables yet: write {'${name}'} in a message.</p>
            ) : (
              <ul class="variables" aria-label="Variables found">
                {variables.map((name) => (
                  <li key={name} class="mono">
                    {name}
                  </li>
                ))}
              </ul>
            )}
          </section>
          <Preview systemMessage={form.systemMessage} userMessage={form.userMessage} samples={samples} onSamples={setSamples} />
        </div>
      </div>
      <section aria-labelledby="publish-title" class="card">
        <h2 id="publish-title">Publish {stored.version}</h2>
        <p class="muted">
          Publishing makes this draft an immutable version{latest ? `; it becomes the latest if it is above ${latest}` : ''}. Unsaved changes are saved first.
        </p>
        <DeniedNote id={`${deniedId}-publish`} reason={publishDenied} />
        {formContent ? (
          <details open={latest !== undefined}>
            <summary>{latest ? `Changes against the latest published version, ${latest}` : 'Content to publish (no version is published yet)'}</summary>
            {latest && !latestContent.data ? <Loading what={`version ${latest}`} /> : null}
            {latest === undefined || latestContent.data ? (
              <DiffView before={latestContent.data} after={formContent} beforeTitle={latest ? `Latest (${latest})` : 'Nothing'} afterTitle={`This draft (${stored.version})`} />
            ) : null}
          </details>
        ) : null}
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            void publish.run();
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
              disabled={publishDenied !== undefined}
              aria-invalid={noteProblem ? 'true' : undefined}
              aria-describedby="note-problem"
              onInput={(event) => setNote(event.currentTarget.value)}
            />
            <span id="note-problem" class={noteProblem ? 'field-error' : 'hint'} role={noteProblem ? 'alert' : undefined}>
              {noteProblem ?? `${note.trim().length} of 500 characters: what changed and why.`}
            </span>
          </div>
          <Button type="submit" kind="primary" busy={publish.busy} busyText={`Publishing ${stored.version}…`} denied={publishDenied} deniedId={`${deniedId}-publish`}>
            Publish version {stored.version}
          </Button>
          <ErrorNote problem={isApiFieldProblem(publish.problem) ? undefined : publish.problem} doing="Publishing" />
        </form>
      </section>
      <ConfirmDialog
        open={confirmDelete}
        title={`Delete draft ${stored.version}?`}
        confirmText="Yes, delete the draft"
        busy={remove.busy}
        problem={remove.problem}
        doing="Deleting the draft"
        onConfirm={() => void remove.run()}
        onCancel={() => {
          setConfirmDelete(false);
          remove.clear();
        }}
      >
        <p>The draft's text is gone for good. Published versions are not affected.</p>
      </ConfirmDialog>
    </>
  );
}

const DRAFT_FIELDS = ['systemMessage', 'userMessage', 'config'];
const isApiFieldProblem = (problem: unknown) => problem instanceof ApiProblem && problem.status === 400 && DRAFT_FIELDS.some((name) => problem.field?.startsWith(name) === true);

/** A 400 about a field of the content: said in the form, by the field's name. */
function ApiFieldProblem({ problem }: { problem: unknown }) {
  if (!isApiFieldProblem(problem) || !(problem instanceof ApiProblem)) return null;
  return (
    <p class="error" role="alert">
      The service did not accept the draft: {problem.message}.
    </p>
  );
}

interface FieldProps {
  label: string;
  value: string;
  onInput(event: Event): void;
  disabled: string | undefined;
  id: string;
  error: string | undefined;
  hint?: string;
  mono?: boolean;
}

function TextField({ label, value, onInput, disabled, id, error, hint, rows, mono }: FieldProps & { rows: number }) {
  return (
    <div class="field">
      <label for={id} class="label">
        {label}
      </label>
      <textarea
        id={id}
        class={[mono ? 'mono' : '', disabled !== undefined ? 'locked' : ''].join(' ').trim() || undefined}
        value={value}
        rows={rows}
        spellcheck={!mono}
        readOnly={disabled !== undefined}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={`${id}-note`}
        onInput={onInput}
      />
      <span id={`${id}-note`} class={error ? 'field-error' : 'hint'} role={error ? 'alert' : undefined}>
        {error ?? hint ?? ''}
      </span>
    </div>
  );
}

function InputField({ label, value, onInput, disabled, id, error, hint, inputMode }: FieldProps & { inputMode?: 'decimal' }) {
  return (
    <div class="field">
      <label for={id} class="label">
        {label}
      </label>
      <input
        id={id}
        class={disabled !== undefined ? 'locked' : undefined}
        value={value}
        readOnly={disabled !== undefined}
        inputMode={inputMode}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={`${id}-note`}
        onInput={onInput}
      />
      <span id={`${id}-note`} class={error ? 'field-error' : 'hint'} role={error ? 'alert' : undefined}>
        {error ?? hint ?? ''}
      </span>
    </div>
  );
}

/** The messages with sample values put in: what the application will send, once it fills the variables. */
function Preview({ systemMessage, userMessage, samples, onSamples }: { systemMessage: string; userMessage: string; samples: Record<string, string>; onSamples(samples: Record<string, string>): void }) {
  const variables = placeholdersIn(systemMessage, userMessage);
  const missing = unfilled(variables, samples);
  return (
    <section aria-labelledby="preview-title" class="preview">
      <h2 id="preview-title">Preview</h2>
      {variables.length > 0 ? (
        <fieldset>
          <legend>Sample values</legend>
          {variables.map((name) => (
            <label key={name} class="field">
              <span class="label">
                Sample value for <span class="mono">{name}</span>
              </span>
              <input value={samples[name] ?? ''} aria-label={`Sample value for ${name}`} onInput={(event) => onSamples({ ...samples, [name]: event.currentTarget.value })} />
            </label>
          ))}
        </fieldset>
      ) : null}
      <p class="muted" role="status">
        {missing.length === 0 ? (variables.length === 0 ? 'Nothing to fill in.' : 'Every variable has a sample value.') : `Still to fill in: ${missing.join(', ')}.`}
      </p>
      <section aria-labelledby="preview-system">
        <h3 id="preview-system">System message preview</h3>
        <PreviewText template={systemMessage} samples={samples} />
      </section>
      <section aria-labelledby="preview-user">
        <h3 id="preview-user">User message preview</h3>
        <PreviewText template={userMessage} samples={samples} />
      </section>
    </section>
  );
}

function PreviewText({ template, samples }: { template: string; samples: Record<string, string> }) {
  const pieces = previewPieces(template, samples);
  return (
    <pre class="message">
      {pieces.length === 0 ? <span class="muted">(empty)</span> : null}
      {pieces.map((piece, index) =>
        'text' in piece ? (
          piece.text
        ) : piece.value !== undefined ? (
          <mark key={index} title={`\${${piece.variable}}`}>
            {piece.value}
          </mark>
        ) : (
          <span key={index} class="gap">{`\${${piece.variable}}`}</span>
        ),
      )}
    </pre>
  );
}
