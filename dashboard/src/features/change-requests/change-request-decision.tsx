import { useState } from 'preact/hooks';
import type { ChangeRequest } from '../../api/types';
import { useAction, useId } from '../../components/hooks';
import { Button, DeniedNote, ErrorNote } from '../../components/ui';
import { ApiProblem } from '../../logic/api-errors';
import { decisionDenial, enoughCounting, hasApproved, isPerson, stateExplanation, withdrawDenial } from './change-requests';
import { useWorkspace } from '../../workspace';

type Decided = 'approved' | 'rejected' | 'withdrew';

/** Approve or reject (with a comment) for those who may move the label but did not ask; withdraw for whoever asked. */
export function Decision({ request, onDecided }: { request: ChangeRequest; onDecided(): void }) {
  const { api, account, me, role, settings, announce, refreshAccount } = useWorkspace();
  const [comment, setComment] = useState('');
  const [outcome, setOutcome] = useState<{ did: Decided; request: ChangeRequest } | undefined>(undefined);
  const deniedId = useId('decision-denied');
  const commentId = useId('decision-comment');
  const protectedLabels = settings?.protectedLabels ?? ['production'];
  const finish = (did: Decided, answer: ChangeRequest) => {
    setOutcome({ did, request: answer });
    setComment('');
    announce(outcomeSentence(did, answer));
    refreshAccount();
    onDecided();
  };
  // A 409 is the request gone stale (the label moved since) or decided by someone else meanwhile: read it again to show why.
  const afterConflict = (problem: unknown) => {
    if (problem instanceof ApiProblem && problem.status === 409) {
      refreshAccount();
      onDecided();
    }
    throw problem;
  };
  const approve = useAction(async () => finish('approved', await api.approveRequest(account.accountId, request.requestId, comment).catch(afterConflict)));
  const reject = useAction(async () => finish('rejected', await api.rejectRequest(account.accountId, request.requestId, comment).catch(afterConflict)));
  const withdraw = useAction(async () => finish('withdrew', await api.withdrawRequest(account.accountId, request.requestId).catch(afterConflict)));
  const mine = isPerson(request.requestedBy, me);
  const denied = decisionDenial(request, me, role, protectedLabels);
  // Approving again is for one whose approval counts again and is then enough (they were demoted, then given their role back).
  const approveDenied = denied ?? (hasApproved(request, me) && !enoughCounting(request) ? 'You approved it already: it waits for someone else.' : undefined);
  const busy = approve.busy || reject.busy || withdraw.busy;
  const problem = approve.problem ?? reject.problem ?? withdraw.problem;
  const doing = approve.problem ? 'Approving' : reject.problem ? 'Rejecting' : 'Withdrawing';
  return (
    <section aria-labelledby="decision-title" class="card">
      <h2 id="decision-title">Decision</h2>
      {outcome ? (
        // Announced by the page's live region (finish); shown here for everyone.
        <p class="notice">{outcomeSentence(outcome.did, outcome.request)}</p>
      ) : null}
      <ErrorNote problem={problem} doing={doing} />
      {request.state !== 'open' ? (
        <p>Nothing left to decide.</p>
      ) : mine ? (
        <>
          <p>You asked for this change: someone else approves or rejects it. You can withdraw it while it is open.</p>
          <DeniedNote id={deniedId} reason={withdrawDenial(request, me)} />
          <Button
            kind="danger"
            busy={withdraw.busy}
            busyText="Withdrawing…"
            disabled={busy}
            denied={withdrawDenial(request, me)}
            deniedId={deniedId}
            onClick={() => void withdraw.run()}
          >
            Withdraw request
          </Button>
        </>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void approve.run();
          }}
        >
          <DeniedNote id={deniedId} reason={approveDenied} />
          <div class="field">
            <label for={commentId} class="label">
              Comment (optional)
            </label>
            <textarea
              id={commentId}
              rows={2}
              maxLength={500}
              value={comment}
              disabled={denied !== undefined}
              aria-describedby={`${commentId}-hint`}
              onInput={(event) => setComment(event.currentTarget.value)}
            />
            <span class="hint" id={`${commentId}-hint`}>
              Shown with your approval or rejection, up to 500 characters.
            </span>
          </div>
          <div class="actions">
            <Button type="submit" kind="primary" busy={approve.busy} busyText="Approving…" disabled={busy} denied={approveDenied} deniedId={deniedId}>
              Approve
            </Button>
            <Button
              kind="danger"
              busy={reject.busy}
              busyText="Rejecting…"
              disabled={busy}
              denied={denied}
              deniedId={deniedId}
              onClick={() => void reject.run()}
            >
              Reject
            </Button>
          </div>
        </form>
      )}
    </section>
  );
}

/** What just happened, from the answer: approved and applied, approved and still waiting, rejected, withdrawn. */
function outcomeSentence(did: Decided, request: ChangeRequest): string {
  const you = did === 'approved' ? 'You approved it.' : did === 'rejected' ? 'You rejected it.' : 'You withdrew it.';
  return `${you} ${stateExplanation(request)}`;
}
