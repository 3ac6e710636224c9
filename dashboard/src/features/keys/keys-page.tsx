import { useState } from 'preact/hooks';
import type { ApiKey, IssuedKey } from '../../api/types';
import { useAction, useId, useLoad } from '../../components/hooks';
import { ConfirmDialog } from '../../components/dialog';
import { Button, Control, CopyButton, DeniedNote, ErrorNote, isFieldProblem, Loading, PageTitle, When } from '../../components/ui';
import { prefixSuggestions, scopeEntryOf, scopeMatch } from './key-scope';
import { denial } from '../../logic/roles';
import { curlSnippet, mcpSnippet, pythonSnippet, typeScriptSnippet } from './snippets';
import { usedShare } from '../usage/usage-chart';
import { useWorkspace } from '../../workspace';

/** API keys: create one (its secret shown once), list them, rotate, disable, enable and revoke. */
export function KeysPage() {
  const { api, account, role } = useWorkspace();
  const keys = useLoad(() => api.keys(account.accountId), [api, account.accountId]);
  const [issued, setIssued] = useState<{ issued: IssuedKey; promptId: string | undefined; why: string } | undefined>(undefined);
  const [showRevoked, setShowRevoked] = useState(false);
  const denied = denial(role, 'manage keys');
  const deniedId = useId('keys-denied');
  const revokedCount = (keys.data ?? []).filter((key) => key.state === 'revoked').length;
  const shown = (keys.data ?? []).filter((key) => showRevoked || key.state !== 'revoked');
  return (
    <>
      <PageTitle>API keys</PageTitle>
      <p class="muted">
        Applications send a key as <code>Authorization: Bearer …</code> to the read API. Each key counts its requests against a monthly limit.
      </p>
      <DeniedNote id={deniedId} reason={denied} />
      {issued ? (
        <SecretPanel
          issued={issued.issued}
          why={issued.why}
          promptId={issued.promptId}
          onDone={() => {
            setIssued(undefined);
            keys.reload();
          }}
        />
      ) : (
        <NewKeyForm
          denied={denied}
          deniedId={deniedId}
          onCreated={(created, promptId) => {
            setIssued({ issued: created, promptId, why: `Key ${created.key.name ?? created.key.keyId} is created.` });
            keys.reload();
          }}
        />
      )}
      <section aria-labelledby="key-list-title">
        <h2 id="key-list-title">Keys</h2>
        {keys.loading && !keys.data ? <Loading what="keys" /> : null}
        <ErrorNote problem={keys.problem} doing="Reading the keys" />
        {keys.data && keys.data.length === 0 ? <p>No keys yet.</p> : null}
        {revokedCount > 0 ? (
          <label class="check">
            <input type="checkbox" checked={showRevoked} onChange={(event) => setShowRevoked(event.currentTarget.checked)} /> Show revoked keys ({revokedCount})
          </label>
        ) : null}
        {keys.data && shown.length === 0 && keys.data.length > 0 ? <p>Every key of this account is revoked.</p> : null}
        {shown.length > 0 ? (
          <table class="list">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">State</th>
                <th scope="col">Scope</th>
                <th scope="col">Expires</th>
                <th scope="col">This month</th>
                <th scope="col">Created</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((key) => (
                <KeyRow
                  key={key.keyId}
                  apiKey={key}
                  denied={denied}
                  deniedId={deniedId}
                  onChanged={keys.reload}
                  onIssued={(rotated) => {
                    setIssued({ issued: rotated, promptId: undefined, why: `Key ${key.name ?? key.keyId} is rotated: this is its replacement.` });
                    keys.reload();
                  }}
                />
              ))}
            </tbody>
          </table>
        ) : null}
      </section>
    </>
  );
}

export const keyTitle = (key: Pick<ApiKey, 'name' | 'keyId'>) => key.name ?? key.keyId;

const STATE_WORDS: Readonly<Record<string, string>> = { active: 'active', disabled: 'disabled', revoked: 'revoked', expired: 'expired' };

function KeyRow({
  apiKey,
  denied,
  deniedId,
  onChanged,
  onIssued,
}: {
  apiKey: ApiKey;
  denied: string | undefined;
  deniedId: string;
  onChanged(): void;
  onIssued(issued: IssuedKey): void;
}) {
  const { api, account, announce } = useWorkspace();
  const [confirm, setConfirm] = useState<'revoke' | 'rotate' | undefined>(undefined);
  const [grace, setGrace] = useState('86400');
  const title = keyTitle(apiKey);
  const toggle = useAction(async () => {
    await api.updateKey(account.accountId, apiKey.keyId, { disabled: apiKey.state === 'active' });
    announce(`Key ${title} ${apiKey.state === 'active' ? 'disabled' : 'enabled'}.`);
    onChanged();
  });
  const revoke = useAction(async () => {
    await api.revokeKey(account.accountId, apiKey.keyId);
    setConfirm(undefined);
    announce(`Key ${title} revoked.`);
    onChanged();
  });
  const rotate = useAction(async () => {
    const rotated = await api.rotateKey(account.accountId, apiKey.keyId, Number(grace));
    setConfirm(undefined);
    onIssued(rotated);
  });
  const limit = apiKey.limit ?? apiKey.monthlyLimit ?? undefined;
  const used = apiKey.usedThisMonth ?? 0;
  const final = apiKey.state === 'revoked';
  return (
    <tr class={final ? 'deleted' : undefined}>
      <th scope="row">
        {title}
        <div class="muted mono">{apiKey.displayPrefix ? `${apiKey.displayPrefix}…` : apiKey.keyId}</div>
      </th>
      <td>
        <span class={`badge state-${apiKey.state}`}>{STATE_WORDS[apiKey.state] ?? apiKey.state}</span>
      </td>
      <td>{apiKey.scope ? <span class="mono">{apiKey.scope.join(', ')}</span> : 'every prompt'}</td>
      <td>{apiKey.expiresAt ? <When iso={apiKey.expiresAt} /> : 'never'}</td>
      <td>
        {limit !== undefined ? (
          <>
            <meter min={0} max={Math.max(limit, 1)} value={Math.min(used, Math.max(limit, 1))} aria-label={`Used this month by ${title}`} />
            <div>
              {used.toLocaleString()} of {limit.toLocaleString()} ({usedShare(used, limit)}%)
            </div>
          </>
        ) : (
          used.toLocaleString()
        )}
      </td>
      <td>
        <When iso={apiKey.createdAt} />
        {apiKey.createdBy ? <div class="muted">{apiKey.createdBy.replace(/^user:/, '')}</div> : null}
      </td>
      <td>
        {final ? (
          <span class="muted">revoked for good</span>
        ) : (
          <div class="actions">
            <Button denied={denied} deniedId={deniedId} onClick={() => setConfirm('rotate')} aria-label={`Rotate key ${title}`}>
              Rotate
            </Button>
            <Button
              denied={denied}
              deniedId={deniedId}
              busy={toggle.busy}
              busyText={apiKey.state === 'active' ? 'Disabling…' : 'Enabling…'}
              onClick={() => void toggle.run()}
              aria-label={`${apiKey.state === 'active' ? 'Disable' : 'Enable'} key ${title}`}
            >
              {apiKey.state === 'active' ? 'Disable' : 'Enable'}
            </Button>
            <Button kind="danger" denied={denied} deniedId={deniedId} onClick={() => setConfirm('revoke')} aria-label={`Revoke key ${title}`}>
              Revoke
            </Button>
          </div>
        )}
        <ErrorNote problem={toggle.problem} doing={`Changing key ${title}`} />
        <ConfirmDialog
          open={confirm === 'revoke'}
          title={`Revoke key ${title}?`}
          confirmText="Yes, revoke the key"
          busy={revoke.busy}
          problem={revoke.problem}
          doing="Revoking the key"
          onConfirm={() => void revoke.run()}
          onCancel={() => {
            setConfirm(undefined);
            revoke.clear();
          }}
        >
          <p>
            Requests with this key are refused from the next one, and <strong>this cannot be undone</strong>. To stop it for a while instead, disable it.
          </p>
        </ConfirmDialog>
        <ConfirmDialog
          open={confirm === 'rotate'}
          title={`Rotate key ${title}?`}
          confirmText="Yes, rotate the key"
          busy={rotate.busy}
          problem={rotate.problem}
          doing="Rotating the key"
          onConfirm={() => void rotate.run()}
          onCancel={() => {
            setConfirm(undefined);
            rotate.clear();
          }}
        >
          <p>A new key replaces this one, with the same name, limit and scope. The new key is shown once.</p>
          <label class="field">
            <span class="label">Old key keeps working for</span>
            <select value={grace} onChange={(event) => setGrace(event.currentTarget.value)}>
              <option value="0">no time: stop it now</option>
              <option value="3600">1 hour</option>
              <option value="86400">24 hours</option>
              <option value="604800">7 days</option>
            </select>
          </label>
        </ConfirmDialog>
      </td>
    </tr>
  );
}

function NewKeyForm({
  denied,
  deniedId,
  onCreated,
}: {
  denied: string | undefined;
  deniedId: string;
  onCreated(issued: IssuedKey, promptId: string | undefined): void;
}) {
  const { api, account } = useWorkspace();
  const [name, setName] = useState('');
  const [limit, setLimit] = useState('');
  const [scope, setScope] = useState<readonly string[]>([]);
  const [expires, setExpires] = useState('');
  const create = useAction(async () => {
    const issued = await api.createKey(account.accountId, {
      name: name.trim(),
      ...(limit.trim() === '' ? {} : { monthlyLimit: Number(limit) }),
      ...(scope.length === 0 ? {} : { scope }),
      ...(expires === '' ? {} : { expiresAt: `${expires}T23:59:59Z` }),
    });
    setName('');
    setLimit('');
    setScope([]);
    setExpires('');
    onCreated(
      issued,
      scope.find((entry) => !entry.endsWith('*')),
    );
  });
  const disabled = denied !== undefined;
  return (
    <section aria-labelledby="new-key-title" class="card">
      <h2 id="new-key-title">New key</h2>
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          void create.run();
        }}
      >
        <Control label="Key name" problem={create.problem} field="name" describedBy={denied ? deniedId : undefined}>
          {(control) => (
            <input {...control} value={name} required maxLength={100} disabled={disabled} onInput={(event) => setName(event.currentTarget.value)} />
          )}
        </Control>
        <Control
          label="Monthly limit"
          hint="Empty: the account plan's limit, which is also the most a key may have."
          problem={create.problem}
          field="monthlyLimit"
        >
          {(control) => (
            <input
              {...control}
              type="number"
              min={0}
              step={1}
              value={limit}
              placeholder="the plan's"
              disabled={disabled}
              onInput={(event) => setLimit(event.currentTarget.value)}
            />
          )}
        </Control>
        <Control label="Expires on" hint="At the end of that day (UTC). Empty: never." problem={create.problem} field="expiresAt">
          {(control) => <input {...control} type="date" value={expires} disabled={disabled} onInput={(event) => setExpires(event.currentTarget.value)} />}
        </Control>
        <ScopePicker scope={scope} onChange={setScope} disabled={disabled} problem={create.problem} />
        <Button type="submit" kind="primary" busy={create.busy} busyText="Creating the key…" denied={denied} deniedId={deniedId}>
          Create key
        </Button>
      </form>
      {isFieldProblem(create.problem, ['name', 'monthlyLimit', 'scope', 'expiresAt']) ? null : <ErrorNote problem={create.problem} doing="Creating the key" />}
    </section>
  );
}

/** The prompts a key may read: picked from the account's prompt ids and their prefixes; an id no prompt has is pointed out. */
function ScopePicker({
  scope,
  onChange,
  disabled,
  problem,
}: {
  scope: readonly string[];
  onChange(scope: readonly string[]): void;
  disabled: boolean;
  problem: unknown;
}) {
  const { api, account } = useWorkspace();
  const prompts = useLoad(() => api.prompts(account.accountId), [api, account.accountId]);
  const promptIds = (prompts.data ?? []).filter((prompt) => !prompt.deleted).map((prompt) => prompt.promptId);
  const [text, setText] = useState('');
  const listId = useId('scope-choices');
  const entry = scopeEntryOf(text);
  const add = () => {
    if (entry === undefined || scope.includes(entry)) return;
    onChange([...scope, entry]);
    setText('');
  };
  return (
    <fieldset class="scope-picker">
      <legend>Scope</legend>
      <p class="hint">
        Which prompts the key may read: pick prompt ids, or prefixes like <code>web.*</code>. None: every prompt of the account.
      </p>
      {scope.length === 0 ? (
        <p>Every prompt.</p>
      ) : (
        <ul class="scope-entries" aria-label="Prompts the key may read">
          {scope.map((item) => {
            const match = scopeMatch(item, promptIds);
            return (
              <li key={item}>
                <span class="mono">{item}</span> <span class={match.matches === 0 ? 'field-error' : 'muted'}>({match.words})</span>{' '}
                <button
                  type="button"
                  class="button plain small"
                  disabled={disabled}
                  aria-label={`Remove ${item} from the scope`}
                  onClick={() => onChange(scope.filter((other) => other !== item))}
                >
                  Remove
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <div class="inline-form">
        <Control label="Add to the scope" problem={problem} field="scope" hint={entry !== undefined ? scopeMatch(entry, promptIds).words : undefined}>
          {(control) => (
            <input
              {...control}
              class="mono"
              list={listId}
              value={text}
              disabled={disabled}
              onInput={(event) => setText(event.currentTarget.value)}
              onKeyDown={(event) => {
                if (event.key === 'Enter') {
                  event.preventDefault();
                  add();
                }
              }}
            />
          )}
        </Control>
        <datalist id={listId}>
          {[...promptIds, ...prefixSuggestions(promptIds)].map((id) => (
            <option key={id} value={id} />
          ))}
        </datalist>
        <Button disabled={disabled || entry === undefined} onClick={add}>
          Add
        </Button>
      </div>
    </fieldset>
  );
}

/** The one time a key's secret is on screen: copy it now, with code that uses it. */
function SecretPanel({ issued, why, promptId, onDone }: { issued: IssuedKey; why: string; promptId: string | undefined; onDone(): void }) {
  const { config } = useWorkspace();
  const samples = [
    { title: 'Try it with curl', text: curlSnippet(config.readApiUrl, issued.apiKey, promptId), copy: 'Copy curl command', rows: 2 },
    { title: 'Use it from TypeScript', text: typeScriptSnippet(config.readApiUrl, promptId), copy: 'Copy TypeScript code', rows: 6 },
    { title: 'Use it from Python', text: pythonSnippet(config.readApiUrl, promptId), copy: 'Copy Python code', rows: 7 },
    { title: "An MCP client's configuration", text: mcpSnippet(config.readApiUrl, issued.apiKey), copy: 'Copy MCP configuration', rows: 10 },
  ];
  return (
    <section aria-labelledby="secret-title" class="card secret">
      <h2 id="secret-title">Copy your new key now</h2>
      <p>
        {why} <strong>This is the only time it is shown:</strong> only its hash is stored, so nobody can show it again. Keep it in your application's secret
        settings.
      </p>
      <div class="field copy-row">
        <label>
          <span class="label">New API key</span>
          <input class="mono" readOnly value={issued.apiKey} size={Math.min(60, issued.apiKey.length + 2)} onFocus={(event) => event.currentTarget.select()} />
        </label>
        <CopyButton text={issued.apiKey} label="Copy key" copiedText="Key copied" />
      </div>
      <p class="muted">
        Each sample reads what the <code>production</code> label points at: drop the label for the latest version.
      </p>
      {samples.map((sample) => (
        <div class="field copy-row" key={sample.title}>
          <label>
            <span class="label">{sample.title}</span>
            <textarea class="mono" readOnly rows={sample.rows} value={sample.text} />
          </label>
          <CopyButton text={sample.text} label={sample.copy} />
        </div>
      ))}
      <Button kind="primary" onClick={onDone}>
        I have copied the key
      </Button>
    </section>
  );
}
