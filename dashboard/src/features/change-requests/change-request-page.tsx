import type { RequestDetail } from '../../api/types';
import { DiffView } from '../../components/diff-view';
import { useLoad } from '../../components/hooks';
import { PlaceholderChangeView } from '../../components/placeholder-change';
import { ErrorNote, Loading, PageTitle, When } from '../../components/ui';
import { changeRequestTitle, stateExplanation, stateWord } from './change-requests';
import { percentText } from '../rollouts/rollouts';
import { hrefOf } from '../../logic/route';
import { useWorkspace } from '../../workspace';
import { Decision } from './change-request-decision';
import { Approvals } from './approval-list';

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
