import { useState } from 'preact/hooks';
import { useLoad } from '../../components/hooks';
import { Button, ErrorNote, Loading, PageTitle, When } from '../../components/ui';
import { approvalCount, type ChangeRequestState, changeRequestTitle, STATE_FILTERS, stateWord } from './change-requests';
import { hrefOf } from '../../logic/route';
import { useWorkspace } from '../../workspace';

/** The account's change requests, newest first, by state (open ones first of all): what each asks, who asked, its approvals. */
export function ChangeRequestsPage() {
  const { api, account } = useWorkspace();
  const [state, setState] = useState<ChangeRequestState | ''>('open');
  // The cursors of the pages seen so far: the first page has none (every open request is on it).
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors.at(-1);
  const page = useLoad(() => api.requests(account.accountId, state || undefined, cursor), [api, account.accountId, state, cursor]);
  const requests = { ...page, data: page.data?.requests };
  const next = page.data?.next ?? undefined;
  const shown = STATE_FILTERS.find((filter) => filter.value === state)?.text ?? 'All';
  return (
    <>
      <PageTitle>Requests</PageTitle>
      <p class="muted">
        A move of a label that needs approval waits here as a change request until enough others approve it (the label then moves), someone rejects it, or
        whoever asked withdraws it. Owners choose the labels and the number of approvals on the{' '}
        <a href={hrefOf({ page: 'settings', accountId: account.accountId })}>Settings</a> page.
      </p>
      <fieldset class="choices state-filter">
        <legend>Show requests</legend>
        {STATE_FILTERS.map((filter) => (
          <label key={filter.value} class="check">
            <input
              type="radio"
              name="request-state"
              value={filter.value}
              checked={state === filter.value}
              onChange={() => {
                setState(filter.value);
                setCursors([undefined]);
              }}
            />
            {filter.text}
          </label>
        ))}
      </fieldset>
      {requests.loading ? <Loading what="the requests" /> : null}
      <ErrorNote problem={requests.problem} doing="Reading the requests" />
      {requests.data ? (
        <>
          <p role="status">
            {requests.data.length === 0
              ? `No ${state === '' ? '' : `${shown.toLowerCase()} `}requests${cursors.length > 1 ? ' on this page' : ''}.`
              : `${requests.data.length} ${state === '' ? '' : `${shown.toLowerCase()} `}${requests.data.length === 1 ? 'request' : 'requests'}${cursors.length > 1 || next ? `, page ${cursors.length}` : ''}.`}
          </p>
          {requests.data.length > 0 ? (
            <table class="list">
              <thead>
                <tr>
                  <th scope="col">Request</th>
                  <th scope="col">Asked by</th>
                  <th scope="col">Approvals</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {requests.data.map((request) => (
                  <tr key={request.requestId}>
                    <th scope="row">
                      <a href={hrefOf({ page: 'change-request', accountId: account.accountId, requestId: request.requestId })}>{changeRequestTitle(request)}</a>
                      {request.note ? <div class="muted">{request.note}</div> : null}
                    </th>
                    <td>
                      {request.requestedBy}
                      <div class="muted">
                        <When iso={request.requestedAt} />
                      </div>
                    </td>
                    <td>{approvalCount(request)}</td>
                    <td>
                      <span class={`badge request-${request.state}`}>{stateWord(request.state)}</span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
          {cursors.length > 1 || next ? (
            <div class="actions">
              <Button disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
                Newer requests
              </Button>
              <Button disabled={!next} onClick={() => next && setCursors([...cursors, next])}>
                Older requests
              </Button>
            </div>
          ) : null}
        </>
      ) : null}
    </>
  );
}
