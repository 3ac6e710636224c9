import { readDeliveries, readWebhook, readWebhooks, webhookAnswer } from '../../features/webhooks/answers';
import type { WebhookChange } from '../../features/webhooks/webhooks';
import { defineRoute, type ManagementRoute } from '../route';
import * as contracts from './webhook-contracts';

/**
 * Webhooks (docs/events.md "Webhooks"), admins' and owners' alone: a webhook's URL and events say much of what
 * the account does. A secret is in the answers of create and rotate only, never in a webhook's body.
 */

export const webhookRoutes: readonly ManagementRoute[] = [
  defineRoute(contracts.listWebhooks, {
    access: 'manage webhooks',
    async handle(request) {
      return { status: 200, body: { webhooks: await readWebhooks(request.table, request.params.accountId, request.now) } };
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
      return { status: 201, body: { webhook: webhookAnswer(webhook, request.now), secret } };
    },
  }),
  defineRoute(contracts.readWebhook, {
    access: 'manage webhooks',
    async handle(request) {
      return { status: 200, body: await readWebhook(request.table, request.params.accountId, request.params.webhookId, request.now) };
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
      return { status: 200, body: webhookAnswer(webhook, request.now) };
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
      return { status: 200, body: { webhook: webhookAnswer(webhook, request.now), secret } };
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
      return { status: 200, body: { deliveries: await readDeliveries(request.table, accountId, webhookId) } };
    },
  }),
];
