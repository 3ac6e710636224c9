import { WEBHOOK_ID_PATTERN } from '../domain/webhook-rules';
import type { WebhookItem } from './item-types';
import { keys, prefixes } from './schema';
import type { Table } from './table';

/**
 * Webhook items (docs/events.md "Webhooks"): one item each in the account's partition. The dispatcher reads the
 * account's webhooks for every event, and a delivery reads its webhook again before each attempt (it may have
 * been disabled, changed or deleted since the event was queued). The changes people make to them are the webhooks
 * feature's (lambda/features/webhooks/).
 */

export async function findWebhook(table: Table, accountId: string, webhookId: string): Promise<WebhookItem | undefined> {
  if (!WEBHOOK_ID_PATTERN.test(webhookId)) return undefined;
  return table.get<WebhookItem>('readWebhook', keys.webhook(accountId, webhookId));
}

/** Every webhook of the account, in id order, strongly consistent: a webhook just disabled is seen so. */
export function listWebhooks(table: Table, accountId: string): Promise<WebhookItem[]> {
  return table.queryPartition<WebhookItem>('listWebhooks', accountId, prefixes.webhooks, { ConsistentRead: true });
}
