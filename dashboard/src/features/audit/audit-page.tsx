import { useState } from 'preact/hooks';
import { useLoad } from '../../components/hooks';
import { Button, ErrorNote, Loading, PageTitle, When } from '../../components/ui';
import { ACTIONS, auditSentence, changeText, FILTER_OUTCOMES, OUTCOME_WORDS, outcomeText } from './audit-text';
import { useWorkspace } from '../../workspace';

/** The log's filters as the form holds them; empty ones do not filter. */
interface AuditFilters {
  readonly actor: string;
  readonly prompt: string;
  readonly action: string;
  readonly outcome: string;
  readonly from: string;
  readonly to: string;
}

const NO_FILTERS: AuditFilters = { actor: '', prompt: '', action: '', outcome: '', from: '', to: '' };

/** Every change and every refused attempt, newest first, 50 to a page, in sentences; narrowed by person, prompt, action, outcome and days. */
export function AuditPage() {
  const { api, account } = useWorkspace();
  const [filters, setFilters] = useState<AuditFilters>(NO_FILTERS);
  const [draft, setDraft] = useState<AuditFilters>(NO_FILTERS);
  // The cursors of the pages seen so far: the first page has none.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors.at(-1);
  const page = useLoad(() => api.audit(account.accountId, cursor, { ...filters }), [api, account.accountId, cursor, filters]);
  // Role changes and removals name people by user id: the members list gives their emails.
  const members = useLoad(() => api.members(account.accountId), [api, account.accountId]);
  const prompts = useLoad(() => api.prompts(account.accountId), [api, account.accountId]);
  const emails = new Map((members.data ?? []).map((member) => [member.userId, member.email]));
  const pageNumber = cursors.length;
  const apply = (next: AuditFilters) => {
    setFilters(next);
    setCursors([undefined]);
  };
  const set = (field: keyof AuditFilters) => (event: Event) => setDraft({ ...draft, [field]: (event.currentTarget as HTMLInputElement).value });
  const filtered = Object.values(filters).some((value) => value !== '');
  return (
    <>
      <PageTitle>Audit log</PageTitle>
      <p class="muted">Every change made in this account, through the dashboard or the CLI, and every refused attempt. Entries never change.</p>
      <form
        class="filters"
        aria-label="Filter the audit log"
        onSubmit={(event) => {
          event.preventDefault();
          apply(draft);
        }}
      >
        <label>
          Who
          <input value={draft.actor} list="audit-people" placeholder="an email, or a CLI operator" onInput={set('actor')} />
        </label>
        <datalist id="audit-people">
          {(members.data ?? []).map((member) => (
            <option key={member.userId} value={member.email} />
          ))}
        </datalist>
        <label>
          Prompt
          <input value={draft.prompt} list="audit-prompts" placeholder="a prompt id" onInput={set('prompt')} />
        </label>
        <datalist id="audit-prompts">
          {(prompts.data ?? []).map((prompt) => (
            <option key={prompt.promptId} value={prompt.promptId} />
          ))}
        </datalist>
        <label>
          Action
          <select value={draft.action} onChange={set('action')}>
            <option value="">any action</option>
            {[...ACTIONS].map(([action, words]) => (
              <option key={action} value={action}>
                {action === 'label.set' ? 'moved label' : words}
              </option>
            ))}
          </select>
        </label>
        <label>
          Outcome
          <select value={draft.outcome} onChange={set('outcome')}>
            <option value="">any outcome</option>
            {FILTER_OUTCOMES.map((outcome) => (
              <option key={outcome} value={outcome}>
                {OUTCOME_WORDS[outcome]}
              </option>
            ))}
          </select>
        </label>
        <label>
          From
          <input type="date" value={draft.from} onInput={set('from')} />
        </label>
        <label>
          To
          <input type="date" value={draft.to} onInput={set('to')} />
        </label>
        <Button type="submit" kind="primary">
          Apply filters
        </Button>
        <Button
          disabled={!filtered && Object.values(draft).every((value) => value === '')}
          onClick={() => {
            setDraft(NO_FILTERS);
            apply(NO_FILTERS);
          }}
        >
          Clear filters
        </Button>
      </form>
      <div class="inline-form">
        <Button onClick={() => (pageNumber === 1 ? page.reload() : setCursors([undefined]))}>Newest entries</Button>
        <span role="status">
          Page {pageNumber}
          {filtered ? ', filtered' : ''}
        </span>
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
                  <td class="small">
                    <span class="mono">{changeText(entry)}</span>
                    <details class="raw">
                      <summary>Raw record</summary>
                      <pre>{JSON.stringify(entry, null, 2)}</pre>
                    </details>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {page.data.entries.length === 0 ? <p>{filtered ? 'No entry matches these filters on this page.' : 'Nothing recorded yet.'}</p> : null}
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
