import { useEffect, useRef, useState } from 'preact/hooks';
import type { IssuedWebhookSecret, Webhook } from '../../api/types';
import { useAction, useId, useLoad, useVisibleInterval } from '../../components/hooks';
import { ConfirmDialog, Dialog } from '../../components/dialog';
import { Button, Control, CopyButton, ErrorNote, isFieldProblem, Loading, PageTitle, When } from '../../components/ui';
import { ApiProblem, fieldMessage } from '../../logic/api-errors';
import { denial } from '../../logic/roles';
import { PYTHON_VERIFICATION, TYPESCRIPT_VERIFICATION } from './webhook-verification';
import {
  choiceOf,
  delivered,
  deliveryStatusInWords,
  durationInWords,
  type EventChoice,
  eventGroups,
  eventsInWords,
  eventsToSend,
  groupState,
  ROTATION_OVERLAP_HOURS,
  withGroup,
  withType,
} from './webhooks';
import { useWorkspace } from '../../workspace';

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

/** The one time a webhook's secret is on screen: copy it now, with the code that checks a delivery with it. */
function SecretDialog({ issued, rotated, onDone }: { issued: IssuedWebhookSecret; rotated: boolean; onDone(): void }) {
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

/** The events a webhook takes: every event, or types picked by group. */
function EventPicker({ choice, onChange, problem, name }: { choice: EventChoice; onChange(choice: EventChoice): void; problem: unknown; name: string }) {
  const errorId = useId('events-error');
  const shown = problemOfEvents(problem);
  return (
    <fieldset class="event-picker" aria-describedby={shown ? errorId : undefined}>
      <legend>{name}</legend>
      <label class="check">
        <input type="checkbox" checked={choice.every} onChange={(event) => onChange({ ...choice, every: event.currentTarget.checked })} /> every event (*)
      </label>
      <span class="hint">Every type, those added later too.</span>
      {choice.every ? null : eventGroups().map((group) => <GroupChecks key={group.prefix} group={group} choice={choice} onChange={onChange} />)}
      {shown ? (
        <p class="field-error" id={errorId} role="alert">
          {shown}
        </p>
      ) : null}
    </fieldset>
  );
}

/** The words of a problem with the events: the page's own check, or the API's 400 naming them. */
function problemOfEvents(problem: unknown): string | undefined {
  if (typeof problem === 'string') return problem;
  if (isFieldProblem(problem, ['events']) && problem instanceof ApiProblem) return fieldMessage(problem);
  return undefined;
}

function GroupChecks({ group, choice, onChange }: { group: ReturnType<typeof eventGroups>[number]; choice: EventChoice; onChange(choice: EventChoice): void }) {
  const state = groupState(choice, group);
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = state === 'some';
  }, [state]);
  return (
    <fieldset class="event-group">
      <legend>
        <label class="check">
          <input ref={ref} type="checkbox" checked={state === 'all'} onChange={(event) => onChange(withGroup(choice, group, event.currentTarget.checked))} />{' '}
          every {group.prefix}.* event
        </label>
      </legend>
      {group.types.map((type) => (
        <label class="check mono" key={type}>
          <input type="checkbox" checked={choice.types.includes(type)} onChange={(event) => onChange(withType(choice, type, event.currentTarget.checked))} />{' '}
          {type}
        </label>
      ))}
    </fieldset>
  );
}

function NewWebhookForm({ onCreated }: { onCreated(issued: IssuedWebhookSecret): void }) {
  const { api, account } = useWorkspace();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [choice, setChoice] = useState<EventChoice>({ every: true, types: [] });
  const [eventsProblem, setEventsProblem] = useState<string | undefined>(undefined);
  const create = useAction(async () => {
    const events = eventsToSend(choice);
    if ('problem' in events) {
      setEventsProblem(events.problem);
      return;
    }
    const issued = await api.createWebhook(account.accountId, {
      url: url.trim(),
      events: events.events,
      ...(description.trim() === '' ? {} : { description: description.trim() }),
    });
    setUrl('');
    setDescription('');
    setChoice({ every: true, types: [] });
    onCreated(issued);
  });
  return (
    <section aria-labelledby="new-webhook-title" class="card">
      <h2 id="new-webhook-title">New webhook</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          setEventsProblem(undefined);
          void create.run();
        }}
      >
        <div class="inline-form">
          <Control label="Endpoint URL" hint="https, on a public address: where each event is POSTed." problem={create.problem} field="url">
            {(control) => (
              <input
                {...control}
                type="url"
                class="mono"
                required
                maxLength={2048}
                size={50}
                value={url}
                placeholder="https://example.com/hooks/prompts"
                onInput={(event) => setUrl(event.currentTarget.value)}
              />
            )}
          </Control>
          <Control label="Description (optional)" problem={create.problem} field="description">
            {(control) => <input {...control} maxLength={500} value={description} onInput={(event) => setDescription(event.currentTarget.value)} />}
          </Control>
        </div>
        <EventPicker name="Events to send" choice={choice} onChange={setChoice} problem={eventsProblem ?? create.problem} />
        <Button type="submit" kind="primary" busy={create.busy} busyText="Creating the webhook…">
          Create webhook
        </Button>
        {isFieldProblem(create.problem, ['url', 'events', 'description']) ? null : <ErrorNote problem={create.problem} doing="Creating the webhook" />}
      </form>
    </section>
  );
}

function WebhookCard({ webhook, onChanged, onRotated }: { webhook: Webhook; onChanged(): void; onRotated(issued: IssuedWebhookSecret): void }) {
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

function EditDialog({ webhook, onClose, onSaved }: { webhook: Webhook; onClose(): void; onSaved(): void }) {
  const { api, account, announce } = useWorkspace();
  const [url, setUrl] = useState(webhook.url);
  const [description, setDescription] = useState(webhook.description ?? '');
  const [choice, setChoice] = useState<EventChoice>(() => choiceOf(webhook.events));
  const [eventsProblem, setEventsProblem] = useState<string | undefined>(undefined);
  const save = useAction(async () => {
    const events = eventsToSend(choice);
    if ('problem' in events) {
      setEventsProblem(events.problem);
      return;
    }
    await api.updateWebhook(account.accountId, webhook.webhookId, { url: url.trim(), events: events.events, description: description.trim() || null });
    announce(`Webhook ${url.trim()} saved.`);
    onSaved();
    onClose();
  });
  return (
    <Dialog title={`Edit webhook ${webhook.url}`} onDismiss={onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          setEventsProblem(undefined);
          void save.run();
        }}
      >
        <Control label="Endpoint URL" problem={save.problem} field="url">
          {(control) => (
            <input
              {...control}
              type="url"
              class="mono"
              required
              maxLength={2048}
              size={50}
              value={url}
              onInput={(event) => setUrl(event.currentTarget.value)}
            />
          )}
        </Control>
        <Control label="Description (optional)" problem={save.problem} field="description">
          {(control) => <input {...control} maxLength={500} value={description} onInput={(event) => setDescription(event.currentTarget.value)} />}
        </Control>
        <EventPicker name="Events to send" choice={choice} onChange={setChoice} problem={eventsProblem ?? save.problem} />
        {isFieldProblem(save.problem, ['url', 'events', 'description']) ? null : <ErrorNote problem={save.problem} doing="Saving the webhook" />}
        <div class="actions">
          <Button type="submit" kind="primary" busy={save.busy} busyText="Saving…">
            Save changes
          </Button>
          <Button onClick={onClose}>Cancel</Button>
        </div>
      </form>
    </Dialog>
  );
}

/** Polled for this long after a test was sent: its first attempt is made within seconds. */
const WATCH_AFTER_TEST_MS = 30_000;

/** The webhook's last 100 attempts, newest first. */
function Deliveries({ webhook, watchSince }: { webhook: Webhook; watchSince: number | undefined }) {
  const { api, account } = useWorkspace();
  const deliveries = useLoad(() => api.webhookDeliveries(account.accountId, webhook.webhookId), [api, account.accountId, webhook.webhookId]);
  const [now, setNow] = useState(() => Date.now());
  const watching = watchSince !== undefined && now - watchSince < WATCH_AFTER_TEST_MS;
  useVisibleInterval(
    () => {
      setNow(Date.now());
      deliveries.reload();
    },
    2000,
    watching,
  );
  useEffect(() => {
    if (watchSince !== undefined) {
      setNow(Date.now());
      deliveries.reload();
    }
  }, [watchSince]);
  const rows = deliveries.data ?? [];
  return (
    <div class="deliveries">
      <div class="actions">
        <Button
          busy={deliveries.loading && deliveries.data !== undefined}
          busyText="Refreshing…"
          onClick={deliveries.reload}
          aria-label={`Refresh deliveries to ${webhook.url}`}
        >
          Refresh
        </Button>
      </div>
      {deliveries.loading && !deliveries.data ? <Loading what="deliveries" /> : null}
      <ErrorNote problem={deliveries.problem} doing="Reading the deliveries" />
      {deliveries.data && rows.length === 0 ? <p>No deliveries yet. Send a test to try the receiver.</p> : null}
      {rows.length > 0 ? (
        <table class="list deliveries-table">
          <caption>Deliveries to {webhook.url}: the last 100 attempts, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Event</th>
              <th scope="col">Attempt</th>
              <th scope="col">Status</th>
              <th scope="col">Duration</th>
              <th scope="col">Error</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((delivery) => (
              <tr key={delivery.deliveryId}>
                <th scope="row">
                  <When iso={delivery.at} />
                </th>
                <td class="mono">
                  {delivery.type}
                  <div class="muted">{delivery.eventId}</div>
                </td>
                <td>{delivery.attempt}</td>
                <td>
                  <span class={`badge ${delivered(delivery.status) ? 'ok' : 'warn'}`}>{deliveryStatusInWords(delivery.status)}</span>
                </td>
                <td>{durationInWords(delivery.durationMs)}</td>
                <td>{delivery.error ?? <span class="muted">—</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
