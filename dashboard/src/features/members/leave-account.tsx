import { useState } from 'preact/hooks';
import { useAction } from '../../components/hooks';
import { ConfirmDialog } from '../../components/dialog';
import { Button } from '../../components/ui';
import { useWorkspace } from '../../workspace';

/** Anyone may leave an account, whatever their role; an account keeps at least one owner (the API says so, 409). */
export function LeaveAccount() {
  const { api, account, me } = useWorkspace();
  const [confirming, setConfirming] = useState(false);
  const leave = useAction(async () => {
    await api.removeMember(account.accountId, me.userId);
    // Their accounts changed: the dashboard starts again from its first page.
    location.assign('#/');
    location.reload();
  });
  return (
    <section aria-labelledby="leave-title" class="card danger-zone">
      <h2 id="leave-title">Leave {account.name}</h2>
      <p>You lose access from your next request. An owner or an admin can add you again.</p>
      <Button kind="danger" onClick={() => setConfirming(true)}>
        Leave this account
      </Button>
      <ConfirmDialog
        open={confirming}
        title={`Leave ${account.name}?`}
        confirmText="Yes, leave"
        busy={leave.busy}
        problem={leave.problem}
        doing="Leaving the account"
        onConfirm={() => void leave.run()}
        onCancel={() => {
          setConfirming(false);
          leave.clear();
        }}
      >
        <p>You will no longer see its prompts, keys or members.</p>
      </ConfirmDialog>
    </section>
  );
}
