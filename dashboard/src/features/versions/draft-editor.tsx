import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { PromptDetail, StoredVersion } from '../../api/types';
import { DiffView } from '../../components/diff-view';
import { InputField, TextField } from '../../components/fields';
import { useAction, useId, useLoad } from '../../components/hooks';
import { leaveWithoutAsking, useLeaveGuard } from '../../components/leave-guard';
import { ConfirmDialog } from '../../components/dialog';
import { Button, DeniedNote, ErrorNote, Loading, PageTitle, When } from '../../components/ui';
import { ApiProblem } from '../../logic/api-errors';
import { contentOf, type DraftContent, type DraftField, type DraftForm, formOf, sameContent } from './draft-form';
import { placeholdersIn } from '../../logic/placeholders';
import { denial } from '../../logic/roles';
import { hrefOf } from '../../logic/route';
import { readUnsavedDraft, type UnsavedDraft, unsavedDraftKey, writeUnsavedDraft } from './unsaved-work';
import { useWorkspace } from '../../workspace';
import { type Conflict, ConflictPanel } from './conflict-panel';
import { Preview, useSampleValues } from './preview';

/** Why a tab's draft can no longer be edited: someone published or deleted it in another tab or browser. */
interface Gone {
  readonly reason: 'published' | 'deleted';
  readonly by?: string | null;
  readonly at?: string | null;
}

/** How often an open draft looks whether it was published or deleted elsewhere, beside each return to the tab. */
const CHECK_EVERY_MS = 30_000;
const LEAVE_QUESTION = 'This draft has unsaved changes. Leave without saving them?';

/** Where the editor starts: the draft as stored, or the person's kept text over it (a conflict if the draft moved on). */
function startingPoint(stored: StoredVersion, kept: UnsavedDraft | undefined): { form: DraftForm; conflict?: Conflict; restored: boolean } {
  const theirsForm = formOf(stored);
  if (!kept || sameContent(kept.form, theirsForm)) return { form: theirsForm, restored: false };
  if (kept.baseEtag === stored.etag) return { form: kept.form, restored: true };
  // Typed over an older draft: never put over the newer one without the person choosing, field by field.
  return { form: kept.form, restored: true, conflict: { cause: 'came-back', theirs: stored, theirsForm, mine: kept.form, by: undefined } };
}

/**
 * A draft to edit, preview, save and publish. No work is lost: unsaved text is kept for this person with the
 * ETag it was typed over; a save or a return that meets a newer draft opens the conflict panel; leaving asks;
 * a draft published or deleted elsewhere turns the tab read-only with the reason at the top.
 */
export function DraftEditor({
  promptId,
  stored,
  detail,
  onPublished,
}: {
  promptId: string;
  stored: StoredVersion;
  detail: PromptDetail | undefined;
  onPublished(): void;
}) {
  const { api, account, role, me, navigate, announce } = useWorkspace();
  const keptKey = unsavedDraftKey({ userId: me.userId, accountId: account.accountId, promptId, version: stored.version });
  const [start] = useState(() => startingPoint(stored, readUnsavedDraft(sessionStorage, keptKey)));
  const [base, setBase] = useState<StoredVersion>(stored);
  const [form, setForm] = useState<DraftForm>(start.form);
  const [conflict, setConflict] = useState<Conflict | undefined>(start.conflict);
  const [restored, setRestored] = useState(start.restored && !start.conflict);
  const [gone, setGone] = useState<Gone | undefined>(undefined);
  const [samples, setSamples] = useSampleValues(promptId);
  const [problems, setProblems] = useState<Partial<Record<DraftField, string>>>({});
  const [note, setNote] = useState('');
  const [noteProblem, setNoteProblem] = useState<string | undefined>(undefined);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [confirmDiscard, setConfirmDiscard] = useState(false);
  const goneRef = useRef<HTMLDivElement>(null);
  const dirty = !sameContent(form, formOf(base));
  const denied = denial(role, 'edit drafts');
  const locked =
    denied ?? (gone ? 'This draft is no longer editable here.' : undefined) ?? (conflict ? 'Choose between your text and theirs above first.' : undefined);
  const publishDenied = denial(role, 'publish versions') ?? (gone || conflict ? locked : undefined);
  const deniedId = useId('editor-denied');

  useLeaveGuard(dirty, LEAVE_QUESTION);

  // The kept text follows the form, with the ETag it is typed over; while a conflict is open it keeps the old
  // one, so a reload in between opens the conflict again instead of saving over their draft.
  // A layout effect, as the leave guard's: written with the render that shows the change, not after the next
  // paint, so a reload right after typing still finds it.
  useLayoutEffect(() => {
    if (conflict) return;
    if (dirty) writeUnsavedDraft(sessionStorage, keptKey, { form, baseEtag: base.etag });
    else sessionStorage.removeItem(keptKey);
  }, [dirty, form, base.etag, keptKey, conflict]);

  // Published or deleted in another tab or by a teammate: said at the top, where it is seen.
  useEffect(() => {
    if (gone) goneRef.current?.focus();
  }, [gone]);
  useEffect(() => {
    if (gone) return;
    let current = true;
    const look = () => {
      api.version(account.accountId, promptId, stored.version).then(
        (now) => {
          if (!current) return;
          if (now.published) setGone({ reason: 'published', by: now.updatedBy, at: now.updatedAt });
          else if (now.etag !== base.etag && !dirty && !conflict) {
            // A teammate saved and this tab has nothing unsaved: show their draft.
            setBase(now);
            setForm(formOf(now));
          }
        },
        (error: unknown) => {
          if (current && error instanceof ApiProblem && error.status === 404) setGone({ reason: 'deleted' });
        },
      );
    };
    const onVisible = () => {
      if (document.visibilityState === 'visible') look();
    };
    window.addEventListener('focus', look);
    document.addEventListener('visibilitychange', onVisible);
    const timer = setInterval(look, CHECK_EVERY_MS);
    return () => {
      current = false;
      window.removeEventListener('focus', look);
      document.removeEventListener('visibilitychange', onVisible);
      clearInterval(timer);
    };
  }, [api, account.accountId, promptId, stored.version, base.etag, dirty, conflict, gone]);

  const set = (field: keyof DraftForm) => (event: Event) => {
    const value = (event.currentTarget as HTMLInputElement | HTMLTextAreaElement).value;
    setForm((previous) => ({ ...previous, [field]: value }));
  };

  const checked = (): DraftContent | undefined => {
    const result = contentOf(form);
    setProblems(result.problems ?? {});
    return result.content;
  };

  /** A refusal that says the draft is gone turns the tab read-only; anything else is the caller's to show. */
  const goneFrom = (error: unknown): boolean => {
    if (!(error instanceof ApiProblem)) return false;
    if (error.status === 409) setGone({ reason: 'published' });
    else if (error.status === 404) setGone({ reason: 'deleted' });
    else return false;
    return true;
  };

  /** Saves the form over `etag`; a 412 opens the conflict panel with their draft, and the form keeps the text. */
  const saveOver = async (etag: string): Promise<StoredVersion | undefined> => {
    const content = checked();
    if (!content) return undefined;
    try {
      const saved = await api.saveDraft(account.accountId, promptId, stored.version, content, etag);
      setBase(saved);
      setForm(formOf(saved));
      setRestored(false);
      announce('Draft saved.');
      return saved;
    } catch (error) {
      if (error instanceof ApiProblem && error.status === 412) {
        const theirs = await api.version(account.accountId, promptId, stored.version);
        setConflict({ cause: 'save', theirs, theirsForm: formOf(theirs), mine: form, by: error.current });
        return undefined;
      }
      if (goneFrom(error)) return undefined;
      throw error;
    }
  };

  const save = useAction(() => saveOver(base.etag));
  const resolve = (merged: DraftForm) => {
    if (!conflict) return;
    setBase(conflict.theirs);
    setForm(merged);
    setConflict(undefined);
    setRestored(false);
    announce(
      sameContent(merged, conflict.theirsForm)
        ? 'Their draft is loaded; your changes were dropped.'
        : 'Your choices are in the form, over their draft: save to keep them.',
    );
  };
  const discard = () => {
    setForm(formOf(base));
    setRestored(false);
    setConfirmDiscard(false);
    sessionStorage.removeItem(keptKey);
    announce('Unsaved changes discarded.');
  };
  const publish = useAction(async () => {
    if (note.trim() === '' || note.trim().length > 500) {
      setNoteProblem('Write a note of 1 to 500 characters: what changed and why.');
      return;
    }
    setNoteProblem(undefined);
    const current = dirty ? await saveOver(base.etag) : base;
    if (!current) return;
    try {
      await api.publish(account.accountId, promptId, stored.version, current.etag, note.trim());
    } catch (error) {
      if (goneFrom(error)) return;
      throw error;
    }
    sessionStorage.removeItem(keptKey);
    announce(`Version ${stored.version} published.`);
    onPublished();
  });
  const remove = useAction(async () => {
    await api.deleteDraft(account.accountId, promptId, stored.version, base.etag);
    sessionStorage.removeItem(keptKey);
    leaveWithoutAsking();
    navigate({ page: 'prompt', accountId: account.accountId, promptId });
  });

  // Ctrl+S (Cmd+S) saves, as in every editor; the listener reads the editor as it is when the keys are pressed.
  const saveByKey = useRef(() => {});
  saveByKey.current = () => {
    if (dirty && locked === undefined && !save.busy) void save.run();
  };
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key.toLowerCase() !== 's' || !(event.ctrlKey || event.metaKey) || event.altKey) return;
      event.preventDefault();
      saveByKey.current();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  const latest = detail?.latestVersion ?? undefined;
  const latestContent = useLoad(
    () => (latest ? api.version(account.accountId, promptId, latest) : Promise.resolve(undefined)),
    [api, account.accountId, promptId, latest],
  );
  const formContent = contentOf(form).content;
  const variables = placeholdersIn(form.systemMessage, form.userMessage);
  const field = (name: DraftField) => ({ id: `field-${name}`, error: problems[name], locked });
  const savedByYou = base.updatedBy !== null && base.updatedBy === me.email;

  return (
    <>
      <PageTitle>{`Draft ${stored.version} of ${detail?.promptName ?? promptId}`}</PageTitle>
      {gone ? (
        <div class="banner" role="alert" tabIndex={-1} ref={goneRef}>
          {gone.reason === 'published' ? (
            <>
              Version {stored.version} was published{gone.by ? ` by ${gone.by}` : ''}
              {gone.at ? (
                <>
                  {' '}
                  at <When iso={gone.at} />
                </>
              ) : null}{' '}
              in the meantime, so it can no longer be edited here.{' '}
              <a href={hrefOf({ page: 'version', accountId: account.accountId, promptId, version: stored.version })} onClick={() => location.reload()}>
                Open the published version
              </a>
              .
            </>
          ) : (
            <>Draft {stored.version} was deleted in the meantime, so it can no longer be edited here.</>
          )}{' '}
          {dirty ? 'Your unsaved text is kept below: copy what you need into a new draft.' : ''}
        </div>
      ) : null}
      <p class="muted">
        <span class="badge draft">draft</span> last saved by {savedByYou ? 'you' : (base.updatedBy ?? 'nobody yet')} <When iso={base.updatedAt} />
        {dirty ? <strong class="unsaved"> · unsaved changes</strong> : null}
      </p>
      {restored && dirty && !gone ? (
        <p class="notice" role="status">
          Your unsaved changes from before are back in the form, over the draft as it is now.
        </p>
      ) : null}
      <DeniedNote id={deniedId} reason={denied} />
      {conflict && !gone ? <ConflictPanel conflict={conflict} onResolve={resolve} /> : null}
      <div class="editor">
        <form
          class="fields"
          aria-label="Draft content"
          onSubmit={(event) => {
            event.preventDefault();
            void save.run();
          }}
        >
          <TextField label="System message" value={form.systemMessage} onInput={set('systemMessage')} rows={6} {...field('systemMessage')} />
          <TextField
            label="User message template"
            value={form.userMessage}
            onInput={set('userMessage')}
            rows={8}
            hint="Write ${name} for a variable; $${ for a literal ${."
            {...field('userMessage')}
          />
          <div class="row">
            <InputField label="Model" value={form.model} onInput={set('model')} {...field('config.model')} />
            <InputField
              label="Temperature"
              value={form.temperature}
              onInput={set('temperature')}
              inputMode="decimal"
              hint="0 to 2"
              {...field('config.temperature')}
            />
          </div>
          <TextField label="Schema (JSON array)" value={form.schema} onInput={set('schema')} rows={4} mono {...field('config.schema')} />
          <TextField label="Input data (JSON, optional)" value={form.inputData} onInput={set('inputData')} rows={4} mono {...field('config.inputData')} />
          <InputField
            label="Input data root name (optional)"
            value={form.inputDataRootName}
            onInput={set('inputDataRootName')}
            {...field('config.inputDataRootName')}
          />
          <ApiFieldProblem problem={save.problem ?? publish.problem} />
          <div class="actions">
            <Button
              type="submit"
              kind="primary"
              busy={save.busy}
              busyText="Saving…"
              denied={locked}
              deniedId={deniedId}
              disabled={!dirty}
              aria-keyshortcuts="Control+S Meta+S"
            >
              Save draft
            </Button>
            {dirty ? (
              <Button denied={gone || conflict ? locked : undefined} deniedId={deniedId} onClick={() => setConfirmDiscard(true)}>
                Discard unsaved changes
              </Button>
            ) : (
              <span class="muted">No unsaved changes.</span>
            )}
            <Button kind="danger" denied={locked} deniedId={deniedId} onClick={() => setConfirmDelete(true)}>
              Delete draft
            </Button>
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
        <DeniedNote id={`${deniedId}-publish`} reason={publishDenied === locked ? undefined : publishDenied} />
        {formContent ? (
          <details open={latest !== undefined}>
            <summary>{latest ? `Changes against the latest published version, ${latest}` : 'Content to publish (no version is published yet)'}</summary>
            {latest && !latestContent.data ? <Loading what={`version ${latest}`} /> : null}
            {latest === undefined || latestContent.data ? (
              <DiffView
                before={latestContent.data}
                after={formContent}
                beforeTitle={latest ? `Latest (${latest})` : 'Nothing'}
                afterTitle={`This draft (${stored.version})`}
              />
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
          <Button
            type="submit"
            kind="primary"
            busy={publish.busy}
            busyText={`Publishing ${stored.version}…`}
            denied={publishDenied}
            deniedId={`${deniedId}-publish`}
          >
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
      <ConfirmDialog
        open={confirmDiscard}
        title="Discard your unsaved changes?"
        confirmText="Yes, discard them"
        onConfirm={discard}
        onCancel={() => setConfirmDiscard(false)}
      >
        <p>The form goes back to the draft as last saved{base.updatedBy ? ` by ${savedByYou ? 'you' : base.updatedBy}` : ''}. What you typed since is gone.</p>
      </ConfirmDialog>
    </>
  );
}

const API_DRAFT_FIELDS = ['systemMessage', 'userMessage', 'config'];
const isApiFieldProblem = (problem: unknown) =>
  problem instanceof ApiProblem && problem.status === 400 && API_DRAFT_FIELDS.some((name) => problem.field?.startsWith(name) === true);

/** A 400 about a field of the content: said in the form, by the field's name. */
function ApiFieldProblem({ problem }: { problem: unknown }) {
  if (!isApiFieldProblem(problem) || !(problem instanceof ApiProblem)) return null;
  return (
    <p class="error" role="alert">
      The service did not accept the draft: {problem.message}.
    </p>
  );
}
