import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { PromptDetail, StoredVersion } from '../../api/types';
import { InputField, TextField } from '../../components/fields';
import { useAction, useId } from '../../components/hooks';
import { leaveWithoutAsking, useLeaveGuard } from '../../components/leave-guard';
import { ConfirmDialog } from '../../components/dialog';
import { Button, DeniedNote, ErrorNote, PageTitle, When } from '../../components/ui';
import { ApiProblem } from '../../logic/api-errors';
import { ApiFieldProblem, isApiFieldProblem } from './api-field-problem';
import { type Gone, useDraftWatch } from './draft-watch';
import { GoneBanner } from './gone-banner';
import { PublishPanel } from './publish-panel';
import { contentOf, type DraftContent, type DraftField, type DraftForm, formOf, sameContent } from './draft-form';
import { placeholdersIn } from '../../logic/placeholders';
import { denial } from '../../logic/roles';
import { readUnsavedDraft, type UnsavedDraft, unsavedDraftKey, writeUnsavedDraft } from './unsaved-work';
import { useWorkspace } from '../../workspace';
import { type Conflict, ConflictPanel } from './conflict-panel';
import { Preview, useSampleValues } from './preview';
import { Playground } from '../playground/playground';

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
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [confirmDiscard, setConfirmDiscard] = useState(false);
  const [playing, setPlaying] = useState(false);
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

  useDraftWatch(
    promptId,
    stored.version,
    { baseEtag: base.etag, dirty, conflict: conflict !== undefined, gone: gone !== undefined },
    {
      onGone: setGone,
      onSaved: (now) => {
        // A teammate saved and this tab has nothing unsaved: show their draft.
        setBase(now);
        setForm(formOf(now));
      },
    },
  );

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
  const publish = useAction(async (note: string) => {
    const current = dirty ? await saveOver(base.etag) : base;
    if (!current) return;
    try {
      await api.publish(account.accountId, promptId, stored.version, current.etag, note);
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

  const formContent = contentOf(form).content;
  const variables = placeholdersIn(form.systemMessage, form.userMessage);
  const field = (name: DraftField) => ({ id: `field-${name}`, error: problems[name], locked });
  const savedByYou = base.updatedBy !== null && base.updatedBy === me.email;

  return (
    <>
      <PageTitle>{`Draft ${stored.version} of ${detail?.promptName ?? promptId}`}</PageTitle>
      {gone ? <GoneBanner gone={gone} promptId={promptId} version={stored.version} dirty={dirty} /> : null}
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
      <PublishPanel
        promptId={promptId}
        version={stored.version}
        latest={detail?.latestVersion ?? undefined}
        content={formContent}
        denied={publishDenied}
        locked={locked}
        deniedId={`${deniedId}-publish`}
        publish={publish}
      />
      <section aria-labelledby="editor-playground-title" class="editor-playground">
        <h2 id="editor-playground-title">Playground</h2>
        <p class="muted">Run this draft as it is in the editor, saved or not, beside versions and labels of the prompt, on the same variables.</p>
        <Button aria-expanded={playing ? 'true' : 'false'} onClick={() => setPlaying(!playing)}>
          {playing ? 'Close the Playground' : 'Open the Playground'}
        </Button>
        {playing && detail ? <Playground detail={detail} draft={{ version: stored.version, content: formContent }} /> : null}
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
