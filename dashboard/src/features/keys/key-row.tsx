import { useState } from 'preact/hooks';
import type { ApiKey, IssuedKey } from '../../api/types';
import { useAction } from '../../components/hooks';
import { ConfirmDialog } from '../../components/dialog';
import { Button, ErrorNote, When } from '../../components/ui';
import { usedShare } from '../usage/usage-chart';
import { useWorkspace } from '../../workspace';

const keyTitle = (key: Pick<ApiKey, 'name' | 'keyId'>) => key.name ?? key.keyId;

const STATE_WORDS: Readonly<Record<string, string>> = { active: 'active', disabled: 'disabled', revoked: 'revoked', expired: 'expired' };

/** One key: its state, scope, expiry and use this month; rotating (its replacement shown once), disabling, enabling and revoking it. */
export function KeyRow({
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
