import { useState } from 'preact/hooks';
import type { IssuedWebhookSecret } from '../../api/types';
import { useLoad } from '../../components/hooks';
import { ErrorNote, Loading, PageTitle } from '../../components/ui';
import { denial } from '../../logic/roles';
import { useWorkspace } from '../../workspace';
import { SecretDialog } from './secret-dialog';
import { NewWebhookForm } from './new-webhook-form';
import { WebhookCard } from './webhook-card';

/**
 * Webhooks (docs/events.md "Webhooks"): where the account's events are sent. Admins and owners only, as the API
 * has it; a secret is on screen once, in the dialog after creating or rotating.
 */
export function WebhooksPage() {
  const { role } = useWorkspace();
  const denied = denial(role, 'manage webhooks');
  if (denied) {
    return (
      <>
        <PageTitle>Webhooks</PageTitle>
        <p class="denied">{denied} Ask one of them to add or change a webhook.</p>
      </>
    );
  }
  return <WebhookManager />;
}

function WebhookManager() {
  const { api, account } = useWorkspace();
  const webhooks = useLoad(() => api.webhooks(account.accountId), [api, account.accountId]);
  const [issued, setIssued] = useState<{ issued: IssuedWebhookSecret; rotated: boolean } | undefined>(undefined);
  return (
    <>
      <PageTitle>Webhooks</PageTitle>
      <p class="muted">
        Each webhook receives the account's events as signed <code>POST</code> requests: a label moved, a version published, a request approved. See
        docs/events.md for the body and the headers.
      </p>
      <NewWebhookForm
        onCreated={(created) => {
          setIssued({ issued: created, rotated: false });
          webhooks.reload();
        }}
      />
      <section aria-labelledby="webhook-list-title">
        <h2 id="webhook-list-title">Webhooks of this account</h2>
        {webhooks.loading && !webhooks.data ? <Loading what="webhooks" /> : null}
        <ErrorNote problem={webhooks.problem} doing="Reading the webhooks" />
        {webhooks.data && webhooks.data.length === 0 ? <p>No webhooks yet.</p> : null}
        {(webhooks.data ?? []).map((webhook) => (
          <WebhookCard
            key={webhook.webhookId}
            webhook={webhook}
            onChanged={webhooks.reload}
            onRotated={(rotated) => {
              setIssued({ issued: rotated, rotated: true });
              webhooks.reload();
            }}
          />
        ))}
      </section>
      {issued ? <SecretDialog issued={issued.issued} rotated={issued.rotated} onDone={() => setIssued(undefined)} /> : null}
    </>
  );
}
