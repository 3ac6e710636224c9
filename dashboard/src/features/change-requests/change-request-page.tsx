import { useState } from 'preact/hooks';
import type { ChangeRequest, RequestDetail } from '../../api/types';
import { DiffView } from '../../components/diff-view';
import { useAction, useId, useLoad } from '../../components/hooks';
import { PlaceholderChangeView } from '../../components/placeholder-change';
import { Button, DeniedNote, ErrorNote, Loading, PageTitle, When } from '../../components/ui';
import { ApiProblem } from '../../logic/api-errors';
import {
  approvalCount,
  approvalStandingText,
  decisionDenial,
  enoughCounting,
  hasApproved,
  isPerson,
  changeRequestTitle,
  stateExplanation,
  stateWord,
  withdrawDenial,
} from './change-requests';
import { percentText } from '../rollouts/rollouts';
import { hrefOf } from '../../logic/route';
import { useWorkspace } from '../../workspace';

/** What the page shows: the request with both versions' content, and where its label points now (null: nowhere). */
interface Shown {
  readonly detail: RequestDetail;
  readonly current: string | null | undefined;
}

/**
 * One change request: what it would change (both versions side by side, the variables added and removed, a
 * warning when callers would miss one), the approvals so far, and the decision: approve or reject (with a
 * comment) for those who may move the label, withdraw for whoever asked; the outcome said after each.
 */
export function ChangeRequestPage({ requestId }: { requestId: string }) {
  const { api, account } = useWorkspace();
  const shown = useLoad(async (): Promise<Shown> => {
    const detail = await api.request(account.accountId, requestId);
    // Where the label is now: what a stale request is explained by (the prompt may be gone: then not known).
    const prompt = await api.prompt(account.accountId, detail.request.promptId).catch(() => undefined);
    return { detail, current: prompt ? (prompt.labels[detail.request.label] ?? null) : undefined };
  }, [api, account.accountId, requestId]);
  const breadcrumb = (
    <p class="breadcrumb">
      <a href={hrefOf({ page: 'change-requests', accountId: account.accountId })}>Requests</a> / <span class="mono">{requestId}</span>
    </p>
  );
  if (!shown.data) {
    return (
      <>
        {breadcrumb}
        <PageTitle>Change request</PageTitle>
        {shown.loading ? <Loading what="the request" /> : null}
        <ErrorNote problem={shown.problem} doing="Reading the request" />
      </>
    );
  }
  const { detail, current } = shown.data;
  const request = detail.request;
  const before = detail.fromVersion ?? undefined;
  const after = detail.toVersion ?? undefined;
  return (
    <>
      {breadcrumb}
      <PageTitle>{changeRequestTitle(request)}</PageTitle>
      <p>
        <span class={`badge request-${request.state}`}>{stateWord(request.state)}</span> {stateExplanation(request, current)}
      </p>
      <dl class="config request-facts">
        <dt>Prompt</dt>
        <dd>
          <a class="mono" href={hrefOf({ page: 'prompt', accountId: account.accountId, promptId: request.promptId })}>
            {request.promptId}
          </a>
        </dd>
        <dt>Label</dt>
        <dd>
          <span class="badge">{request.label}</span> from <strong class="mono">{request.from ?? 'no version'}</strong> to{' '}
          <strong class="mono">{request.to ?? 'no version (removed)'}</strong>
          {request.restore ? ' (a restore from its history)' : ''}
          {request.rollout ? ` (a rollout: ${percentText(request.rollout.percent)} of subjects at first, until someone completes it)` : ''}
          {current !== undefined && current !== request.from && request.state === 'open' ? (
            <span class="muted"> · it has moved since: now at {current ?? 'no version'}</span>
          ) : null}
        </dd>
        <dt>Asked by</dt>
        <dd>
          {request.requestedBy}, <When iso={request.requestedAt} />
        </dd>
        <dt>Note</dt>
        <dd>{request.note ? request.note : <span class="muted">—</span>}</dd>
      </dl>
      <Decision request={request} onDecided={shown.reload} />
      <Approvals request={request} />
      <section aria-labelledby="changes-title">
        <h2 id="changes-title">What changes</h2>
        {after ? (
          <>
            <DiffView
              before={before}
              after={after}
              beforeTitle={request.from ? `Version ${request.from} (${request.label} before)` : 'No version'}
              afterTitle={`Version ${request.to} (requested)`}
            />
            <PlaceholderChangeView change={detail.placeholders} hadBefore={before !== undefined} titleId="variables-title" />
          </>
        ) : request.to === null ? (
          <p>
            {request.label} would be taken off {request.promptId}: applications reading <code>?label={request.label}</code> would get 404 instead of version{' '}
            {request.from ?? 'none'}.
          </p>
        ) : (
          <p class="muted">Version {request.to} could not be read.</p>
        )}
      </section>
    </>
  );
}

function Approvals({ request }: { request: ChangeRequest }) {
  return (
    <section aria-labelledby="approvals-title">
      <h2 id="approvals-title">Approvals ({approvalCount(request)})</h2>
      {request.approvals.length === 0 ? (
        <p>No approvals yet.</p>
      ) : (
        <ul class="approvals">
          {request.approvals.map((approval) => (
            <li key={`${approval.by}-${approval.at}`}>
              <strong>{approval.by}</strong> approved, <When iso={approval.at} />
              {approval.comment ? <>: “{approval.comment}”</> : null}{' '}
              {approval.counts === false ? (
                <strong>{approvalStandingText(approval, request.state)}</strong>
              ) : (
                <span class="muted">{approvalStandingText(approval, request.state)}</span>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

type Decided = 'approved' | 'rejected' | 'withdrew';

/** Approve or reject (with a comment) for those who may move the label but did not ask; withdraw for whoever asked. */
function Decision({ request, onDecided }: { request: ChangeRequest; onDecided(): void }) {
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
