import type { WebhookItem } from '../../table/item-types';
import { listDeliveries } from '../../table/deliveries';
import type { WebhookChange } from '../../features/webhooks/webhooks';
import { requireWebhook } from '../../features/webhooks/webhooks';
import { defineRoute, type ManagementRoute } from '../route';
import { listWebhooks } from '../../table/webhooks';
import * as contracts from './webhook-contracts';

/**
 * Webhooks (docs/events.md "Webhooks"), admins' and owners' alone: a webhook's URL and events say much of what
 * the account does. A secret is in the answers of create and rotate only, never in a webhook's body.
 */

/** A webhook as people see it: where it sends, what, and when its secret last changed; never a secret, sealed or not. */
export function webhookBody(webhook: WebhookItem, now: Date) {
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

export const webhookRoutes: readonly ManagementRoute[] = [
  defineRoute(contracts.listWebhooks, {
    access: 'manage webhooks',
    async handle(request) {
      const webhooks = await listWebhooks(request.table, request.params.accountId);
      return { status: 200, body: { webhooks: webhooks.map((webhook) => webhookBody(webhook, request.now)) } };
    },
  }),
  defineRoute(contracts.createWebhook, {
    access: 'manage webhooks',
    action: 'webhook.create',
    bodyTarget: ['url'],
    urlFields: ['url'],
    async handle(request) {
      const { url, events, description } = request.body;
      const { webhook, secret } = await request.ops.webhooks.create(request.params.accountId, { url, events, description: description ?? null });
      // The only answer that ever holds this secret.
      return { status: 201, body: { webhook: webhookBody(webhook, request.now), secret } };
    },
  }),
  defineRoute(contracts.readWebhook, {
    access: 'manage webhooks',
    async handle(request) {
      const webhook = await requireWebhook(request.table, request.params.accountId, request.params.webhookId);
      return { status: 200, body: webhookBody(webhook, request.now) };
    },
  }),
  defineRoute(contracts.updateWebhook, {
    access: 'manage webhooks',
    action: 'webhook.update',
    urlFields: ['url'],
    async handle(request) {
      const { url, events, enabled, description } = request.body;
      const change: WebhookChange = {
        ...(url === undefined ? {} : { url }),
        ...(events === undefined ? {} : { events }),
        ...(enabled === undefined ? {} : { enabled }),
        ...(description === undefined ? {} : { description: description || null }),
      };
      const webhook = await request.ops.webhooks.update(request.params.accountId, request.params.webhookId, change);
      return { status: 200, body: webhookBody(webhook, request.now) };
    },
  }),
  defineRoute(contracts.deleteWebhook, {
    access: 'manage webhooks',
    action: 'webhook.delete',
    async handle(request) {
      await request.ops.webhooks.delete(request.params.accountId, request.params.webhookId);
      return { status: 204 };
    },
  }),
  defineRoute(contracts.rotateWebhookSecret, {
    access: 'manage webhooks',
    action: 'webhook.rotate',
    async handle(request) {
      const { webhook, secret } = await request.ops.webhooks.rotateSecret(request.params.accountId, request.params.webhookId);
      return { status: 200, body: { webhook: webhookBody(webhook, request.now), secret } };
    },
  }),
  defineRoute(contracts.testWebhook, {
    access: 'manage webhooks',
    action: 'webhook.test',
    async handle(request) {
      const { eventId } = await request.ops.webhooks.test(request.params.accountId, request.params.webhookId);
      return { status: 202, body: { eventId } };
    },
  }),
  defineRoute(contracts.listDeliveries, {
    access: 'manage webhooks',
    async handle(request) {
      const { accountId, webhookId } = request.params;
      await requireWebhook(request.table, accountId, webhookId);
      const deliveries = await listDeliveries(request.table, accountId, webhookId);
      return { status: 200, body: { deliveries } };
    },
  }),
];
