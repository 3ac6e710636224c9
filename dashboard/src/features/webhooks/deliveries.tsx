import { useEffect, useState } from 'preact/hooks';
import type { Webhook } from '../../api/types';
import { useLoad, useVisibleInterval } from '../../components/hooks';
import { Button, ErrorNote, Loading, When } from '../../components/ui';
import { delivered, deliveryStatusInWords, durationInWords } from './webhooks';
import { useWorkspace } from '../../workspace';

/** Polled for this long after a test was sent: its first attempt is made within seconds. */
const WATCH_AFTER_TEST_MS = 30_000;

/** The webhook's last 100 attempts, newest first. */
export function Deliveries({ webhook, watchSince }: { webhook: Webhook; watchSince: number | undefined }) {
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
