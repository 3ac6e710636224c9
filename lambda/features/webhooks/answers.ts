import { type Delivery, listDeliveries } from '../../table/deliveries';
import type { WebhookItem } from '../../table/item-types';
import type { Table } from '../../table/table';
import { listWebhooks } from '../../table/webhooks';
import { requireWebhook } from './webhooks';

/**
 * Webhooks as people see them (docs/events.md "Webhooks"), and the log of their deliveries: what the answers
 * hold, and the reads behind them. A secret is never in a webhook's answer, sealed or not.
 */

/** A webhook as people see it: where it sends, what, and when its secret last changed. */
export function webhookAnswer(webhook: WebhookItem, now: Date) {
  const [current, previous] = webhook.secrets;
  const rotatedAt = current && current.createdAt !== webhook.createdAt ? current.createdAt : null;
  const previousValid = previous?.expiresAt !== undefined && Date.parse(previous.expiresAt) > now.getTime();
  return {
    webhookId: webhook.webhookId,
    url: webhook.url,
    events: webhook.events,
    enabled: webhook.enabled,
    description: webhook.description,
    createdAt: webhook.createdAt,
    createdBy: webhook.createdBy,
    updatedAt: webhook.updatedAt,
    secretRotatedAt: rotatedAt,
    previousSecretExpiresAt: previousValid ? (previous?.expiresAt ?? null) : null,
  };
}

export type WebhookAnswer = ReturnType<typeof webhookAnswer>;

/** Every webhook of the account, in id order, as `now` sees them. */
export async function readWebhooks(table: Table, accountId: string, now: Date): Promise<WebhookAnswer[]> {
  const webhooks = await listWebhooks(table, accountId);
  return webhooks.map((webhook) => webhookAnswer(webhook, now));
}

/** One webhook, or 404 naming it. */
export async function readWebhook(table: Table, accountId: string, webhookId: string, now: Date): Promise<WebhookAnswer> {
  return webhookAnswer(await requireWebhook(table, accountId, webhookId), now);
}

/** The webhook's last attempts of delivery, newest first (lambda/table/deliveries.ts); 404 naming a webhook the account does not have. */
export async function readDeliveries(table: Table, accountId: string, webhookId: string): Promise<Delivery[]> {
  await requireWebhook(table, accountId, webhookId);
  return listDeliveries(table, accountId, webhookId);
}
