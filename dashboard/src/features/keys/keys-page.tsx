import { useState } from 'preact/hooks';
import type { IssuedKey } from '../../api/types';
import { useId, useLoad } from '../../components/hooks';
import { DeniedNote, ErrorNote, Loading, PageTitle } from '../../components/ui';
import { denial } from '../../logic/roles';
import { useWorkspace } from '../../workspace';
import { KeyRow } from './key-row';
import { NewKeyForm } from './new-key-form';
import { SecretPanel } from './key-secret-panel';

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
