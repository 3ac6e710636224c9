import { useState } from 'preact/hooks';
import type { IssuedWebhookSecret } from '../../api/types';
import { useAction } from '../../components/hooks';
import { Button, Control, ErrorNote, isFieldProblem } from '../../components/ui';
import { type EventChoice, eventsToSend } from './webhooks';
import { useWorkspace } from '../../workspace';
import { EventPicker } from './event-picker';

/** A new webhook: where to, which events, and why; its secret is shown once, in the dialog after. */
export function NewWebhookForm({ onCreated }: { onCreated(issued: IssuedWebhookSecret): void }) {
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
