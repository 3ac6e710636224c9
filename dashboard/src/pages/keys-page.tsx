import { useState } from 'preact/hooks';
import type { ApiKey, IssuedKey } from '../api/types';
import { useAction, useId, useLoad } from '../components/hooks';
import { Button, ConfirmDialog, Control, CopyButton, DeniedNote, ErrorNote, isFieldProblem, Loading, PageTitle, When } from '../components/ui';
import { denial } from '../logic/roles';
import { clientSnippet, curlSnippet } from '../logic/snippets';
import { usedShare } from '../logic/usage-chart';
import { useWorkspace } from '../workspace';

/** API keys: create one (its secret shown once), list them, rotate, disable, enable and revoke. */
export function KeysPage() {
  const { api, account, role } = useWorkspace();
  const keys = useLoad(() => api.keys(account.accountId), [api, account.accountId]);
  const [issued, setIssued] = useState<{ issued: IssuedKey; promptId: string | undefined; why: string } | undefined>(undefined);
  const denied = denial(role, 'manage keys');
  const deniedId = useId('keys-denied');
  return (
    <>
      <PageTitle>API keys</PageTitle>
      <p class="muted">Applications send a key as <code>Authorization: Bearer …</code> to the read API. Each key counts its requests against a monthly limit.</p>
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
        {keys.data && keys.data.length > 0 ? (
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
              {keys.data.map((key) => (
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

function KeyRow({ apiKey, denied, deniedId, onChanged, onIssued }: { apiKey: ApiKey; denied: string | undefined; deniedId: string; onChanged(): void; onIssued(issued: IssuedKey): void }) {
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

function NewKeyForm({ denied, deniedId, onCreated }: { denied: string | undefined; deniedId: string; onCreated(issued: IssuedKey, promptId: string | undefined): void }) {
  const { api, account } = useWorkspace();
  const [name, setName] = useState('');
  const [limit, setLimit] = useState('');
  const [scope, setScope] = useState('');
  const [expires, setExpires] = useState('');
  const scopeList = scope
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter(Boolean);
  const create = useAction(async () => {
    const issued = await api.createKey(account.accountId, {
      name: name.trim(),
      ...(limit.trim() === '' ? {} : { monthlyLimit: Number(limit) }),
      ...(scopeList.length === 0 ? {} : { scope: scopeList }),
      ...(expires === '' ? {} : { expiresAt: `${expires}T23:59:59Z` }),
    });
    setName('');
    setLimit('');
    setScope('');
    setExpires('');
    onCreated(issued, scopeList.find((entry) => !entry.endsWith('*')));
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
          {(control) => <input {...control} value={name} required maxLength={100} disabled={disabled} onInput={(event) => setName(event.currentTarget.value)} />}
        </Control>
        <Control label="Monthly limit" hint="Empty: the account plan's limit." problem={create.problem} field="monthlyLimit">
          {(control) => (
            <input {...control} type="number" min={0} step={1} value={limit} placeholder="the plan's" disabled={disabled} onInput={(event) => setLimit(event.currentTarget.value)} />
          )}
        </Control>
        <Control
          label="Scope"
          hint={
            <>
              Prompt ids or prefixes like <code>web.*</code>, separated by commas. Empty: every prompt.
            </>
          }
          problem={create.problem}
          field="scope"
        >
          {(control) => <input {...control} value={scope} placeholder="every prompt" disabled={disabled} onInput={(event) => setScope(event.currentTarget.value)} />}
        </Control>
        <Control label="Expires on" hint="At the end of that day (UTC). Empty: never." problem={create.problem} field="expiresAt">
          {(control) => <input {...control} type="date" value={expires} disabled={disabled} onInput={(event) => setExpires(event.currentTarget.value)} />}
        </Control>
        <Button type="submit" kind="primary" busy={create.busy} busyText="Creating the key…" denied={denied} deniedId={deniedId}>
          Create key
        </Button>
      </form>
      {isFieldProblem(create.problem, ['name', 'monthlyLimit', 'scope', 'expiresAt']) ? null : <ErrorNote problem={create.problem} doing="Creating the key" />}
    </section>
  );
}

/** The one time a key's secret is on screen: copy it now, with code that uses it. */
function SecretPanel({ issued, why, promptId, onDone }: { issued: IssuedKey; why: string; promptId: string | undefined; onDone(): void }) {
  const { config } = useWorkspace();
  const curl = curlSnippet(config.readApiUrl, issued.apiKey, promptId);
  const client = clientSnippet(config.readApiUrl, promptId);
  return (
    <section aria-labelledby="secret-title" class="card secret">
      <h2 id="secret-title">Copy your new key now</h2>
      <p>
        {why} <strong>This is the only time it is shown:</strong> only its hash is stored, so nobody can show it again. Keep it in your
        application's secret settings.
      </p>
      <div class="field copy-row">
        <label>
          <span class="label">New API key</span>
          <input class="mono" readOnly value={issued.apiKey} size={Math.min(60, issued.apiKey.length + 2)} onFocus={(event) => event.currentTarget.select()} />
        </label>
        <CopyButton text={issued.apiKey} label="Copy key" copiedText="Key copied" />
      </div>
      <div class="field copy-row">
        <label>
          <span class="label">Try it with curl</span>
          <textarea class="mono" readOnly rows={2} value={curl} />
        </label>
        <CopyButton text={curl} label="Copy curl command" />
      </div>
      <div class="field copy-row">
        <label>
          <span class="label">Use it with the client</span>
          <textarea class="mono" readOnly rows={6} value={client} />
        </label>
        <CopyButton text={client} label="Copy client code" />
      </div>
      <Button kind="primary" onClick={onDone}>
        I have copied the key
      </Button>
    </section>
  );
}
