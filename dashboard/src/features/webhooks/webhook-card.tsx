import { useState } from 'preact/hooks';
import type { IssuedWebhookSecret, Webhook } from '../../api/types';
import { useAction, useId } from '../../components/hooks';
import { ConfirmDialog } from '../../components/dialog';
import { Button, ErrorNote, When } from '../../components/ui';
import { eventsInWords, ROTATION_OVERLAP_HOURS } from './webhooks';
import { useWorkspace } from '../../workspace';
import { EditDialog } from './edit-webhook-dialog';
import { Deliveries } from './deliveries';

/** One webhook: what it receives and since when, and enabling, editing, testing, rotating, deleting it, and its deliveries. */
export function WebhookCard({ webhook, onChanged, onRotated }: { webhook: Webhook; onChanged(): void; onRotated(issued: IssuedWebhookSecret): void }) {
  const { api, account, announce } = useWorkspace();
  const [open, setOpen] = useState<'edit' | 'rotate' | 'delete' | undefined>(undefined);
  const [showDeliveries, setShowDeliveries] = useState(false);
  const [testSent, setTestSent] = useState<{ eventId: string; at: number } | undefined>(undefined);
  const titleId = useId('webhook-title');
  const deliveriesId = useId('deliveries');
  const name = webhook.url;
  const toggle = useAction(async () => {
    await api.updateWebhook(account.accountId, webhook.webhookId, { enabled: !webhook.enabled });
    announce(`Webhook ${name} ${webhook.enabled ? 'disabled' : 'enabled'}.`);
    onChanged();
  });
  const rotate = useAction(async () => {
    const rotated = await api.rotateWebhookSecret(account.accountId, webhook.webhookId);
    setOpen(undefined);
    onRotated(rotated);
  });
  const remove = useAction(async () => {
    await api.deleteWebhook(account.accountId, webhook.webhookId);
    setOpen(undefined);
    announce(`Webhook ${name} deleted.`);
    onChanged();
  });
  const test = useAction(async () => {
    const eventId = await api.testWebhook(account.accountId, webhook.webhookId);
    setTestSent({ eventId, at: Date.now() });
    setShowDeliveries(true);
  });
  return (
    <section class="card webhook" aria-labelledby={titleId}>
      <h3 id={titleId} class="mono">
        {webhook.url}
      </h3>
      <dl class="facts">
        <dt>State</dt>
        <dd>
          <span class={`badge ${webhook.enabled ? 'state-active' : 'state-disabled'}`}>{webhook.enabled ? 'enabled' : 'disabled'}</span>
        </dd>
        <dt>Events</dt>
        <dd class="mono">{eventsInWords(webhook.events)}</dd>
        <dt>Description</dt>
        <dd>{webhook.description ?? <span class="muted">—</span>}</dd>
        <dt>Created</dt>
        <dd>
          <When iso={webhook.createdAt} />
          {webhook.createdBy ? <span class="muted"> by {webhook.createdBy.replace(/^user:/, '')}</span> : null}
        </dd>
        <dt>Secret rotated</dt>
        <dd>
          {webhook.secretRotatedAt ? <When iso={webhook.secretRotatedAt} /> : 'never'}
          {webhook.previousSecretExpiresAt ? (
            <span class="muted">
              {' '}
              (the old secret signs too until <When iso={webhook.previousSecretExpiresAt} />)
            </span>
          ) : null}
        </dd>
      </dl>
      <div class="actions">
        <Button onClick={() => setOpen('edit')} aria-label={`Edit webhook ${name}`}>
          Edit
        </Button>
        <Button
          busy={toggle.busy}
          busyText={webhook.enabled ? 'Disabling…' : 'Enabling…'}
          onClick={() => void toggle.run()}
          aria-label={`${webhook.enabled ? 'Disable' : 'Enable'} webhook ${name}`}
        >
          {webhook.enabled ? 'Disable' : 'Enable'}
        </Button>
        <Button busy={test.busy} busyText="Sending…" onClick={() => void test.run()} aria-label={`Send test to ${name}`}>
          Send test
        </Button>
        <Button onClick={() => setOpen('rotate')} aria-label={`Rotate secret of ${name}`}>
          Rotate secret
        </Button>
        <Button kind="danger" onClick={() => setOpen('delete')} aria-label={`Delete webhook ${name}`}>
          Delete
        </Button>
        <button
          type="button"
          class="button plain"
          aria-expanded={showDeliveries ? 'true' : 'false'}
          aria-controls={deliveriesId}
          aria-label={`Deliveries to ${name}`}
          onClick={() => setShowDeliveries(!showDeliveries)}
        >
          Deliveries
        </button>
      </div>
      <ErrorNote problem={toggle.problem} doing={`Changing webhook ${name}`} />
      <ErrorNote problem={test.problem} doing={`Sending a test to ${name}`} />
      {testSent ? (
        <p role="status" class="notice">
          Test event <span class="mono">{testSent.eventId}</span> sent{webhook.enabled ? '' : ' (to this webhook even while it is disabled)'}: its delivery
          shows below in a moment.
        </p>
      ) : null}
      <div id={deliveriesId}>{showDeliveries ? <Deliveries webhook={webhook} watchSince={testSent?.at} /> : null}</div>
      {open === 'edit' ? <EditDialog webhook={webhook} onClose={() => setOpen(undefined)} onSaved={onChanged} /> : null}
      <ConfirmDialog
        open={open === 'rotate'}
        title={`Rotate the secret of ${name}?`}
        confirmText="Yes, rotate the secret"
        busy={rotate.busy}
        problem={rotate.problem}
        doing="Rotating the secret"
        onConfirm={() => void rotate.run()}
        onCancel={() => {
          setOpen(undefined);
          rotate.clear();
        }}
      >
        <p>
          A new secret replaces the current one, and is shown once. For {ROTATION_OVERLAP_HOURS} hours both sign every delivery (the{' '}
          <code>webhook-signature</code> header carries two signatures), so the receiver keeps working while it is given the new secret; after that only the new
          one signs. Rotating again within those hours drops the oldest at once.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={open === 'delete'}
        title={`Delete webhook ${name}?`}
        confirmText="Yes, delete the webhook"
        busy={remove.busy}
        problem={remove.problem}
        doing="Deleting the webhook"
        onConfirm={() => void remove.run()}
        onCancel={() => {
          setOpen(undefined);
          remove.clear();
        }}
      >
        <p>
          Nothing more is sent to it, retries included, and <strong>this cannot be undone</strong>. To stop it for a while instead, disable it.
        </p>
      </ConfirmDialog>
    </section>
  );
}
