import { useRef, useState } from 'preact/hooks';
import type { PromptDetail } from '../../api/types';
import { ConfirmDialog } from '../../components/dialog';
import { useAction, useId } from '../../components/hooks';
import { Button, DeniedNote, ErrorNote } from '../../components/ui';
import { denial } from '../../logic/roles';
import { useWorkspace } from '../../workspace';

/** Deleting the prompt (after a confirmation) hides it from the read API; restoring brings it back, labels included. */
export function DeleteRestore({ detail, onChanged }: { detail: PromptDetail; onChanged(): void }) {
  const { api, account, role, announce } = useWorkspace();
  const [confirming, setConfirming] = useState(false);
  const denied = denial(role, 'delete and restore prompts');
  const deniedId = useId('delete-denied');
  const opener = useRef<HTMLDivElement>(null);
  const remove = useAction(async () => {
    await api.deletePrompt(account.accountId, detail.promptId);
    setConfirming(false);
    announce(`${detail.promptId} deleted.`);
    onChanged();
  });
  const restore = useAction(async () => {
    await api.restorePrompt(account.accountId, detail.promptId);
    announce(`${detail.promptId} restored.`);
    onChanged();
  });
  return (
    <section aria-labelledby="danger-title" class="card danger-zone">
      <h2 id="danger-title">{detail.deleted ? 'Restore' : 'Delete'}</h2>
      <DeniedNote id={deniedId} reason={denied} />
      <div ref={opener}>
        {detail.deleted ? (
          <>
            <p>Restoring brings the prompt back to the read API from the next request, with its versions and labels.</p>
            <Button kind="primary" busy={restore.busy} busyText="Restoring…" denied={denied} deniedId={deniedId} onClick={() => void restore.run()}>
              Restore prompt
            </Button>
            <ErrorNote problem={restore.problem} doing="Restoring the prompt" />
          </>
        ) : (
          <>
            <p>Deleting hides the prompt from the read API from the next request (404). It can be restored, labels included.</p>
            <Button kind="danger" denied={denied} deniedId={deniedId} onClick={() => setConfirming(true)}>
              Delete prompt
            </Button>
          </>
        )}
      </div>
      <ConfirmDialog
        open={confirming}
        title={`Delete ${detail.promptId}?`}
        confirmText="Yes, delete the prompt"
        busy={remove.busy}
        problem={remove.problem}
        doing="Deleting the prompt"
        onConfirm={() => void remove.run()}
        onCancel={() => {
          setConfirming(false);
          remove.clear();
        }}
      >
        <p>Applications asking for it get 404 from the next request until someone restores it.</p>
      </ConfirmDialog>
    </section>
  );
}
