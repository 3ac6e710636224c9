import type { IssuedWebhookSecret } from '../../api/types';
import { Dialog } from '../../components/dialog';
import { Button, CopyButton } from '../../components/ui';
import { PYTHON_VERIFICATION, TYPESCRIPT_VERIFICATION } from './webhook-verification';
import { ROTATION_OVERLAP_HOURS } from './webhooks';

/** The one time a webhook's secret is on screen: copy it now, with the code that checks a delivery with it. */
export function SecretDialog({ issued, rotated, onDone }: { issued: IssuedWebhookSecret; rotated: boolean; onDone(): void }) {
  const samples = [
    { title: 'Verify a delivery in TypeScript (Node)', text: TYPESCRIPT_VERIFICATION, copy: 'Copy TypeScript code' },
    { title: 'Verify a delivery in Python', text: PYTHON_VERIFICATION, copy: 'Copy Python code' },
  ];
  return (
    <Dialog title="Copy the signing secret now">
      <p>
        {rotated ? `The secret of ${issued.webhook.url} is rotated: this is its new one.` : `The webhook to ${issued.webhook.url} is created.`}{' '}
        <strong>This secret will not be shown again:</strong> it is stored sealed, and nobody can show it later. Keep it in the receiver's secret settings; if
        it is lost, rotate it.
      </p>
      {rotated ? (
        <p>
          For the next {ROTATION_OVERLAP_HOURS} hours each delivery carries two signatures, one with the new secret and one with the old, so the receiver keeps
          accepting deliveries while you give it the new secret. After that only the new one signs.
        </p>
      ) : null}
      <div class="field copy-row">
        <label>
          <span class="label">Signing secret</span>
          <input class="mono" readOnly value={issued.secret} size={Math.min(60, issued.secret.length + 2)} onFocus={(event) => event.currentTarget.select()} />
        </label>
        <CopyButton text={issued.secret} label="Copy secret" copiedText="Secret copied" />
      </div>
      <p class="muted">
        A receiver checks each delivery's <code>webhook-signature</code> with this secret before it trusts the body (docs/events.md "Verifying a delivery"):
      </p>
      {samples.map((sample) => (
        <div class="field copy-row" key={sample.title}>
          <label>
            <span class="label">{sample.title}</span>
            <textarea class="mono" readOnly rows={10} cols={80} value={sample.text} />
          </label>
          <CopyButton text={sample.text} label={sample.copy} />
        </div>
      ))}
      <div class="actions">
        <Button kind="primary" onClick={onDone}>
          I have copied the secret
        </Button>
      </div>
    </Dialog>
  );
}
