import { useState } from 'preact/hooks';
import type { Webhook } from '../../api/types';
import { useAction } from '../../components/hooks';
import { Dialog } from '../../components/dialog';
import { Button, Control, ErrorNote, isFieldProblem } from '../../components/ui';
import { choiceOf, type EventChoice, eventsToSend } from './webhooks';
import { useWorkspace } from '../../workspace';
import { EventPicker } from './event-picker';

/** Changing a webhook's URL, description and events, in a dialog that Escape closes. */
export function EditDialog({ webhook, onClose, onSaved }: { webhook: Webhook; onClose(): void; onSaved(): void }) {
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
