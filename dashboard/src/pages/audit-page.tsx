import { useState } from 'preact/hooks';
import { useLoad } from '../components/hooks';
import { Button, ErrorNote, Loading, PageTitle, When } from '../components/ui';
import { auditSentence, changeText, outcomeText } from '../logic/audit-text';
import { useWorkspace } from '../workspace';

/** Every change and every refused attempt, newest first, 50 to a page. */
export function AuditPage() {
  const { api, account } = useWorkspace();
  // The cursors of the pages seen so far: the first page has none.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors.at(-1);
  const page = useLoad(() => api.audit(account.accountId, cursor), [api, account.accountId, cursor]);
  // Role changes and removals name people by user id: the members list gives their emails.
  const members = useLoad(() => api.members(account.accountId), [api, account.accountId]);
  const emails = new Map((members.data ?? []).map((member) => [member.userId, member.email]));
  const pageNumber = cursors.length;
  return (
    <>
      <PageTitle>Audit log</PageTitle>
      <p class="muted">Every change made in this account, through the dashboard or the CLI, and every refused attempt. Entries never change.</p>
      <div class="inline-form">
        <Button onClick={() => (pageNumber === 1 ? page.reload() : setCursors([undefined]))}>Newest entries</Button>
        <span role="status">Page {pageNumber}</span>
      </div>
      {page.loading ? <Loading what="the audit log" /> : null}
      <ErrorNote problem={page.problem} doing="Reading the audit log" />
      {page.data ? (
        <>
          <table class="list audit">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">What</th>
                <th scope="col">Outcome</th>
                <th scope="col">Change</th>
              </tr>
            </thead>
            <tbody>
              {page.data.entries.map((entry) => (
                <tr key={entry.entryId} class={`outcome-${entry.outcome}`}>
                  <td>
                    <When iso={entry.at} />
                  </td>
                  <th scope="row">{auditSentence(entry, emails)}</th>
                  <td>
                    <span class={`badge outcome-${entry.outcome}`}>{outcomeText(entry)}</span>
                  </td>
                  <td class="mono small">{changeText(entry)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {page.data.entries.length === 0 ? <p>Nothing recorded yet.</p> : null}
          <div class="actions">
            <Button disabled={pageNumber === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
              Newer entries
            </Button>
            <Button disabled={!page.data.next} onClick={() => page.data?.next && setCursors([...cursors, page.data.next])}>
              Older entries
            </Button>
          </div>
        </>
      ) : null}
    </>
  );
}
