import * as z from 'zod/mini';
import { EVENT_TYPES } from '../../domain/events';
import { ALL_EVENTS, eventsProblem, MAX_WEBHOOK_DESCRIPTION_LENGTH, MAX_WEBHOOK_URL_LENGTH, SUBSCRIBABLE_EVENT_TYPES } from '../../domain/webhook-rules';
import { contract, described, named } from '../contract';

/** Webhooks (docs/events.md "Webhooks"): a secret is in the answers of create and rotate only, never in a webhook's body. */

/** Where deliveries go: a URL; where it may point (https, a public address) is checked after DNS by the operations. */
const WebhookUrl = z.string({ error: 'must be a URL' }).check(
  z.maxLength(MAX_WEBHOOK_URL_LENGTH, { error: `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters` }),
  z.refine((url) => URL.canParse(url), { error: 'must be an absolute URL' }),
);

/** Event types (docs/events.md), each once, or exactly `["*"]` for every one. */
const WebhookEvents = z
  .array(
    z
      .enum([...EVENT_TYPES, ALL_EVENTS], { error: 'must be an event type (docs/events.md lists them) or "*"' })
      .check(z.refine((type) => type !== 'webhook.test', { error: 'must not be webhook.test: a test is sent to the webhook tested, whatever it lists' })),
    { error: 'must be a list of event types' },
  )
  .check(
    z.maxLength(SUBSCRIBABLE_EVENT_TYPES.length, { error: `must list at most ${SUBSCRIBABLE_EVENT_TYPES.length} event types` }),
    z.superRefine((events, context) => {
      const problem = eventsProblem(events);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    }),
  );

const WebhookDescription = z.nullable(
  z.string().check(z.trim(), z.maxLength(MAX_WEBHOOK_DESCRIPTION_LENGTH, { error: `must be at most ${MAX_WEBHOOK_DESCRIPTION_LENGTH} characters` })),
);

export const WebhookCreateBody = named(
  'WebhookCreate',
  z.strictObject({ url: WebhookUrl, events: WebhookEvents, description: z.optional(WebhookDescription) }),
);

/** Each field given is set; `null` or `""` removes the description. */
export const WebhookPatchBody = named(
  'WebhookPatch',
  z
    .strictObject({
      url: z.optional(WebhookUrl),
      events: z.optional(WebhookEvents),
      enabled: z.optional(z.boolean({ error: 'must be true or false' })),
      description: z.optional(WebhookDescription),
    })
    .check(z.refine((body) => Object.keys(body).length > 0, { error: 'give at least one of url, events, enabled, description' })),
);

export const WebhookAnswer = named(
  'Webhook',
  z.strictObject({
    webhookId: z.string(),
    url: z.string(),
    events: described('Event types (docs/events.md), or `["*"]` for every one', z.array(z.string())),
    enabled: z.boolean(),
    description: z.nullable(z.string()),
    createdAt: z.string(),
    createdBy: z.string(),
    updatedAt: z.string(),
    secretRotatedAt: described('When the current secret replaced another; null if never rotated', z.nullable(z.string())),
    previousSecretExpiresAt: described('Until when the secret it replaced still signs deliveries too', z.nullable(z.string())),
  }),
);

const WebhookList = named('WebhookList', z.strictObject({ webhooks: z.array(WebhookAnswer) }));

export const WebhookWithSecret = named(
  'WebhookWithSecret',
  z.strictObject({
    webhook: WebhookAnswer,
    secret: described('The signing secret (`whsec_` + base64 of 32 bytes): in this answer only, never again', z.string()),
  }),
);

const WebhookTestSent = named(
  'WebhookTestSent',
  z.strictObject({ eventId: described("The `webhook.test` event's id: its delivery carries it as `webhook-id`", z.string()) }),
);

export const DeliveryAnswer = z.strictObject({
  deliveryId: z.string(),
  eventId: z.string(),
  type: z.string(),
  attempt: z.int().check(z.gte(1)),
  at: z.string(),
  status: described("The receiver's HTTP status; null when it did not answer", z.nullable(z.int())),
  durationMs: z.int(),
  error: z.optional(z.string()),
});

const DeliveryList = named('DeliveryList', z.strictObject({ deliveries: described('The last 100 attempts, newest first', z.array(DeliveryAnswer)) }));

const WEBHOOKS = '/api/accounts/{accountId}/webhooks';
const WEBHOOK = `${WEBHOOKS}/{webhookId}`;

export const listWebhooks = contract({ method: 'GET', path: WEBHOOKS, summary: 'Every webhook (never a secret)', answers: { 200: WebhookList } });

export const createWebhook = contract({
  method: 'POST',
  path: WEBHOOKS,
  summary: 'Create a webhook: its signing secret is in this answer only',
  description: 'An account has at most 20 (409).',
  body: WebhookCreateBody,
  answers: { 201: WebhookWithSecret },
  refusals: [409],
});

export const readWebhook = contract({ method: 'GET', path: WEBHOOK, summary: 'A webhook (never a secret)', answers: { 200: WebhookAnswer } });

export const updateWebhook = contract({
  method: 'PATCH',
  path: WEBHOOK,
  summary: "Change a webhook's URL, events, description, or enable or disable it",
  body: WebhookPatchBody,
  answers: { 200: WebhookAnswer },
});

export const deleteWebhook = contract({
  method: 'DELETE',
  path: WEBHOOK,
  summary: 'Delete a webhook: nothing more is sent to it',
  answers: { 204: null },
});

export const rotateWebhookSecret = contract({
  method: 'POST',
  path: `${WEBHOOK}/rotate`,
  summary: 'A new signing secret, in this answer only',
  description: 'The secret it replaces signs deliveries too for 24 hours.',
  answers: { 200: WebhookWithSecret },
});

export const testWebhook = contract({
  method: 'POST',
  path: `${WEBHOOK}/test`,
  summary: 'Send the webhook a `webhook.test` event',
  description: 'To this webhook alone, even while it is disabled.',
  answers: { 202: WebhookTestSent },
});

export const listDeliveries = contract({
  method: 'GET',
  path: `${WEBHOOK}/deliveries`,
  summary: "The webhook's last 100 delivery attempts, newest first",
  answers: { 200: DeliveryList },
});
