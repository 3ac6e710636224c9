import { useState } from 'preact/hooks';
import { useAction, useId, useLoad } from '../../components/hooks';
import { Button, Control, DeniedNote, ErrorNote, isFieldProblem, Loading, PageTitle, When } from '../../components/ui';
import { ALL_PROMPTS, facetsOf, type PromptListView, type PromptSort, promptsShown } from './prompt-list';
import { denial } from '../../logic/roles';
import { hrefOf } from '../../logic/route';
import { useWorkspace } from '../../workspace';

/** Every prompt of the account: searched by words, filtered by label and tag, sorted; and a new one. */
export function PromptsPage() {
  const { api, account, role, navigate } = useWorkspace();
  const prompts = useLoad(() => api.prompts(account.accountId), [api, account.accountId]);
  const [view, setView] = useState<PromptListView>(ALL_PROMPTS);
  const all = prompts.data ?? [];
  const shown = promptsShown(all, view);
  const facets = facetsOf(all);
  const narrowed = view.text !== '' || view.label !== '' || view.tag !== '';
  const set = (change: Partial<PromptListView>) => setView((previous) => ({ ...previous, ...change }));
  return (
    <>
      <PageTitle>Prompts</PageTitle>
      <NewPrompt denied={denial(role, 'create prompts')} onCreated={(promptId) => navigate({ page: 'prompt', accountId: account.accountId, promptId })} />
      <section aria-labelledby="prompt-list-title">
        <h2 id="prompt-list-title">All prompts</h2>
        <search class="filters" aria-label="Find prompts">
          <label>
            Search prompts
            <input
              type="search"
              value={view.text}
              onInput={(event) => set({ text: event.currentTarget.value })}
              placeholder="id, name, description, tag or label"
            />
          </label>
          <label>
            With label
            <select value={view.label} onChange={(event) => set({ label: event.currentTarget.value })}>
              <option value="">any label or none</option>
              {facets.labels.map((label) => (
                <option key={label} value={label}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label>
            With tag
            <select value={view.tag} onChange={(event) => set({ tag: event.currentTarget.value })}>
              <option value="">any tag or none</option>
              {facets.tags.map((tag) => (
                <option key={tag} value={tag}>
                  {tag}
                </option>
              ))}
            </select>
          </label>
          <label>
            Sort by
            <select value={view.sort} onChange={(event) => set({ sort: event.currentTarget.value as PromptSort })}>
              <option value="id">id</option>
              <option value="name">name</option>
              <option value="changed">last change, newest first</option>
            </select>
          </label>
        </search>
        {prompts.loading && !prompts.data ? <Loading what="prompts" /> : null}
        <ErrorNote problem={prompts.problem} doing="Reading the prompts" />
        {prompts.data ? (
          <>
            <p class="muted" role="status">
              {narrowed ? `${shown.length} of ${all.length} prompts match` : `${all.length} prompts`}
            </p>
            <table class="list">
              <caption class="visually-hidden">Prompts of {account.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Prompt</th>
                  <th scope="col">Latest</th>
                  <th scope="col">Labels</th>
                  <th scope="col">Drafts</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((prompt) => (
                  <tr key={prompt.promptId} class={prompt.deleted ? 'deleted' : undefined}>
                    <th scope="row">
                      <a href={hrefOf({ page: 'prompt', accountId: account.accountId, promptId: prompt.promptId })}>{prompt.promptName}</a>
                      <div class="muted mono">{prompt.promptId}</div>
                      {prompt.description ? <div class="muted small">{prompt.description}</div> : null}
                      {prompt.tags.length > 0 ? (
                        <ul class="tags" aria-label={`Tags of ${prompt.promptId}`}>
                          {prompt.tags.map((tag) => (
                            <li key={tag} class="badge draft">
                              {tag}
                            </li>
                          ))}
                        </ul>
                      ) : null}
                      {prompt.deleted ? <span class="badge warn">deleted</span> : null}
                    </th>
                    <td class="mono">{prompt.latestVersion ?? <span class="muted">none published</span>}</td>
                    <td>
                      <Labels labels={prompt.labels} />
                    </td>
                    <td class="mono">{prompt.drafts.length > 0 ? prompt.drafts.join(', ') : <span class="muted">—</span>}</td>
                    <td>
                      <When iso={prompt.updatedAt} />
                      {prompt.updatedBy ? <div class="muted">{prompt.updatedBy}</div> : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {shown.length === 0 ? <p>{narrowed ? 'No prompt matches.' : 'No prompts yet: create the first one above.'}</p> : null}
          </>
        ) : null}
      </section>
    </>
  );
}

export function Labels({ labels }: { labels: Readonly<Record<string, string>> }) {
  const entries = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return <span class="muted">—</span>;
  return (
    <ul class="labels">
      {entries.map(([label, version]) => (
        <li key={label} class="badge">
          {label} <span class="mono">{version}</span>
        </li>
      ))}
    </ul>
  );
}

const PROMPT_ID_HINT = '1 to 128 characters: letters, digits, _ . -';

function NewPrompt({ denied, onCreated }: { denied: string | undefined; onCreated(promptId: string): void }) {
  const { api, account } = useWorkspace();
  const [promptId, setPromptId] = useState('');
  const [promptName, setPromptName] = useState('');
  const create = useAction(async () => {
    await api.createPrompt(account.accountId, promptId.trim(), promptName.trim());
    onCreated(promptId.trim());
  });
  const deniedId = useId('new-prompt-denied');
  return (
    <section aria-labelledby="new-prompt-title" class="card">
      <h2 id="new-prompt-title">New prompt</h2>
      <DeniedNote id={deniedId} reason={denied} />
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          void create.run();
        }}
      >
        <Control label="Prompt id" problem={create.problem} field="promptId" describedBy={denied ? deniedId : undefined}>
          {(control) => (
            <input
              {...control}
              value={promptId}
              required
              pattern="[A-Za-z0-9_.\-]{1,128}"
              title={PROMPT_ID_HINT}
              disabled={denied !== undefined}
              aria-invalid={isFieldProblem(create.problem, ['promptId']) ? 'true' : undefined}
              onInput={(event) => setPromptId(event.currentTarget.value)}
            />
          )}
        </Control>
        <Control label="Prompt name" problem={create.problem} field="promptName">
          {(control) => (
            <input
              {...control}
              value={promptName}
              required
              maxLength={200}
              disabled={denied !== undefined}
              onInput={(event) => setPromptName(event.currentTarget.value)}
            />
          )}
        </Control>
        <Button type="submit" kind="primary" busy={create.busy} busyText="Creating…" denied={denied} deniedId={deniedId}>
          Create prompt
        </Button>
      </form>
      {isFieldProblem(create.problem, ['promptId', 'promptName']) ? null : <ErrorNote problem={create.problem} doing="Creating the prompt" />}
    </section>
  );
}
