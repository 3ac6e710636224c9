import type { EventBody } from '../domain/events';
import type { WebhookItem } from '../table/item-types';
import type { Table } from '../table/table';
import type { DeliveryJob, EventBus, JobQueue } from '../webhook-delivery/delivery-job';
import { wantsEvent } from '../domain/webhook-rules';
import { listWebhooks } from '../table/webhooks';

/**
 * The dispatcher (docs/events.md "How it is delivered"): committed events in, a publish on the bus and one delivery
 * job per webhook that wants each event out. The same code runs deployed (the table's stream:
 * dispatch-function.ts) and locally (npm start's poller: local/event-poller.ts).
 */
export interface DispatchDependencies {
  readonly table: Table;
  readonly bus: EventBus;
  readonly queue: JobQueue;
}

export interface DispatchSummary {
  readonly published: number;
  readonly queued: number;
}

/**
 * Anything that fails throws, and the caller runs the whole batch again (the stream's retry, the poller's next run):
 * an event may then be published or queued twice, never lost. Receivers deduplicate on `webhook-id`.
 */
export async function dispatchEvents(events: readonly EventBody[], deps: DispatchDependencies): Promise<DispatchSummary> {
  // A test is the sender's check of their own URL: not an event of the account for the bus's rules.
  const published = events.filter((event) => event.type !== 'webhook.test');
  const accounts = [...new Set(events.map((event) => event.accountId))];
  const webhooks = new Map(await Promise.all(accounts.map(async (accountId) => [accountId, await listWebhooks(deps.table, accountId)] as const)));
  const jobs: DeliveryJob[] = events.flatMap((event) =>
    (webhooks.get(event.accountId) ?? [])
      .filter((webhook) => receives(webhook, event))
      .map((webhook) => ({ accountId: event.accountId, webhookId: webhook.webhookId, event, attempt: 1 })),
  );
  await Promise.all([published.length > 0 ? deps.bus.publish(published) : undefined, jobs.length > 0 ? deps.queue.enqueue(jobs) : undefined]);
  return { published: published.length, queued: jobs.length };
}

/**
 * A test goes to the webhook it names alone, whatever types that webhook lists (none lists `webhook.test`) and
 * even while it is disabled (an admin tries a receiver before enabling it; attempt.ts sends it so); every other
 * event to each enabled webhook that names its type or takes every one.
 */
function receives(webhook: WebhookItem, event: EventBody): boolean {
  if (event.type === 'webhook.test') return event.data.webhookId === webhook.webhookId;
  return wantsEvent(webhook, event.type);
}
