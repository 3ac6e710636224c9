import { randomBytes } from 'node:crypto';
import type { EventActor } from '../../domain/events';
import { recordedUrl } from '../../domain/webhook-rules';
import { ConflictError, NotFoundError } from '../../table/errors';
import type { AccountItem, WebhookItem, WithKeys } from '../../table/item-types';
import { eventTails, eventWrite } from '../../table/outbox';
import { keys } from '../../table/schema';
import type { Table } from '../../table/table';
import type { TransactionWrite } from '../../table/transaction';
import { buildCondition, buildUpdate } from '../../table/update-expression';
import type { PlannedChange } from '../planned-change';
import { findWebhook } from '../../table/webhooks';

/**
 * Webhooks (docs/events.md "Webhooks"): the changes people make to them, each planned here as one transaction
 * (created, counted on the account item against the limit; changed, deleted, its secret rotated, a test event
 * sent), and what the audit log may say of one. Their items are read through lambda/table/webhooks.ts.
 */

/** The most webhooks an account may have: every event is read against each of them. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 20;

/** How long a retired signing secret still signs deliveries after a rotation: receivers switch within it. */
export const RETIRED_SECRET_VALID_MS = 24 * 60 * 60 * 1000;

/** The attribute on the account item that counts its webhooks: the guard of the limit against racing creations. */
const WEBHOOK_COUNT = 'webhookCount';

/** A webhook as its creator asks for it, the secret already sealed (the plaintext never reaches the table). */
export interface NewWebhook {
  readonly url: string;
  readonly events: readonly string[];
  readonly description: string | null;
  readonly sealedSecret: string;
  readonly by: string;
}

/** What a change of a webhook may set; absent fields stay as they are. */
export interface WebhookChange {
  readonly url?: string;
  readonly events?: readonly string[];
  readonly enabled?: boolean;
  readonly description?: string | null;
}

/** The account already has MAX_WEBHOOKS_PER_ACCOUNT webhooks (409). */
export class WebhookLimitError extends ConflictError {
  override readonly name: string = 'WebhookLimitError';
  constructor(accountId: string) {
    super(`account ${accountId} has ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks, the most it may have: delete one first`);
  }
}

export const newWebhookId = (): string => `wh_${randomBytes(8).toString('hex')}`;

/** The webhook, or 404 naming it (a malformed id is no webhook either). */
export async function requireWebhook(table: Table, accountId: string, webhookId: string): Promise<WebhookItem> {
  const webhook = await findWebhook(table, accountId, webhookId);
  if (!webhook) throw new NotFoundError(`account ${accountId} has no webhook ${webhookId}`);
  return webhook;
}

/** A webhook item without the table's keys: what the plans hand back. */
function stored(item: WebhookItem): WebhookItem {
  const { accountId, webhookId, url, events, enabled, description, createdAt, createdBy, updatedAt, secrets, revision } = item;
  return { accountId, webhookId, url, events, enabled, description, createdAt, createdBy, updatedAt, secrets, revision };
}

/** The webhook as the table holds it: its keys and its `type` tag, as every item has. */
const webhookItem = (webhook: WebhookItem): WithKeys<WebhookItem> => ({ ...keys.webhook(webhook.accountId, webhook.webhookId), type: 'webhook', ...webhook });

/** Writes the webhook as it now is, on the condition that it is still the revision the plan read. */
function replaceWrite(next: WebhookItem, readRevision: number): TransactionWrite {
  return {
    Put: {
      Item: webhookItem(next),
      ...buildCondition((e) => `${e.name('revision')} = ${e.value(readRevision)}`),
    },
  };
}

/**
 * A new webhook, counted on the account item so two creations racing for the last place cannot both land:
 * the count's condition fails for the second, which is planned again and refused.
 */
export async function planCreateWebhook(table: Table, accountId: string, input: NewWebhook): Promise<PlannedChange<WebhookItem>> {
  const account = await table.get<AccountItem>('requireAccount', keys.account(accountId));
  if (!account) throw new NotFoundError(`account ${accountId} does not exist`);
  if ((account.webhookCount ?? 0) >= MAX_WEBHOOKS_PER_ACCOUNT) throw new WebhookLimitError(accountId);
  const now = table.timestamp();
  const webhook: WebhookItem = {
    accountId,
    webhookId: newWebhookId(),
    url: input.url,
    events: [...input.events],
    enabled: true,
    description: input.description,
    createdAt: now,
    createdBy: input.by,
    updatedAt: now,
    secrets: [{ sealed: input.sealedSecret, createdAt: now }],
    revision: 1,
  };
  return {
    writes: [
      { Put: { Item: webhookItem(webhook), ConditionExpression: 'attribute_not_exists(pk)' } },
      {
        Update: {
          Key: keys.account(accountId),
          ...buildUpdate({
            add: { [WEBHOOK_COUNT]: 1 },
            condition: (e) =>
              `attribute_exists(${e.name('pk')}) AND (attribute_not_exists(${e.name(WEBHOOK_COUNT)}) OR ${e.name(WEBHOOK_COUNT)} < ${e.value(MAX_WEBHOOKS_PER_ACCOUNT)})`,
          }),
        },
      },
    ],
    result: webhook,
    after: auditedWebhook(webhook),
  };
}

/** A new URL, events, description or enabled flag; planned again when another change landed since the read. */
export async function planUpdateWebhook(table: Table, accountId: string, webhookId: string, change: WebhookChange): Promise<PlannedChange<WebhookItem>> {
  const item = await requireWebhook(table, accountId, webhookId);
  const before = stored(item);
  const next: WebhookItem = {
    ...before,
    ...(change.url === undefined ? {} : { url: change.url }),
    ...(change.events === undefined ? {} : { events: [...change.events] }),
    ...(change.enabled === undefined ? {} : { enabled: change.enabled }),
    ...(change.description === undefined ? {} : { description: change.description }),
    updatedAt: table.timestamp(),
    revision: before.revision + 1,
  };
  return { writes: [replaceWrite(next, before.revision)], result: next, after: auditedWebhook(next) };
}

/** The webhook and its place in the account's count; its deliveries stay until their TTL. */
export async function planDeleteWebhook(table: Table, accountId: string, webhookId: string): Promise<PlannedChange<WebhookItem>> {
  const item = await requireWebhook(table, accountId, webhookId);
  return {
    writes: [
      { Delete: { Key: keys.webhook(accountId, webhookId), ...buildCondition((e) => `${e.name('revision')} = ${e.value(item.revision)}`) } },
      { Update: { Key: keys.account(accountId), ...buildUpdate({ add: { [WEBHOOK_COUNT]: -1 }, condition: (e) => `attribute_exists(${e.name('pk')})` }) } },
    ],
    result: stored(item),
    after: { ...auditedWebhook(item), deleted: true },
  };
}

/**
 * A new current secret; the one it replaces signs too until 24 hours from now. At most two secrets: a retired
 * one from an earlier rotation is dropped, valid or not, since a rotation may be the answer to a leak.
 */
export async function planRotateWebhookSecret(table: Table, accountId: string, webhookId: string, sealedSecret: string): Promise<PlannedChange<WebhookItem>> {
  const item = await requireWebhook(table, accountId, webhookId);
  const before = stored(item);
  const now = table.now();
  const current = before.secrets.find((secret) => secret.expiresAt === undefined) ?? before.secrets[0];
  const retired = current
    ? [{ sealed: current.sealed, createdAt: current.createdAt, expiresAt: new Date(now.getTime() + RETIRED_SECRET_VALID_MS).toISOString() }]
    : [];
  const next: WebhookItem = {
    ...before,
    secrets: [{ sealed: sealedSecret, createdAt: now.toISOString() }, ...retired],
    updatedAt: now.toISOString(),
    revision: before.revision + 1,
  };
  return {
    writes: [replaceWrite(next, before.revision)],
    result: next,
    after: { secretRotatedAt: now.toISOString(), ...(retired[0] ? { previousSecretExpiresAt: retired[0].expiresAt } : {}) },
  };
}

/**
 * What the audit log may say of a webhook: the origin it sends to (recordedUrl: a path or query may hold the
 * receiver's token) and what, never a secret, sealed or not.
 */
export function auditedWebhook(webhook: WebhookItem): Record<string, unknown> {
  const { webhookId, url, events, enabled, description } = webhook;
  return { webhookId, url: recordedUrl(url), events, enabled, description };
}

/** A change as the audit log records what was asked: a new URL by its origin alone, as auditedWebhook. */
export function auditedChange(change: WebhookChange): Record<string, unknown> {
  return { ...change, ...(change.url === undefined ? {} : { url: recordedUrl(change.url) }) };
}

/**
 * A `webhook.test` event for this webhook alone (the dispatcher sends it only there, whatever the others list),
 * put by the change's own transaction like every event. A disabled webhook is sent it too: an admin tries the
 * receiver before enabling it.
 */
export async function planTestWebhook(table: Table, accountId: string, webhookId: string, actor: EventActor): Promise<PlannedChange<{ eventId: string }>> {
  await requireWebhook(table, accountId, webhookId);
  const { write, body } = eventWrite({ accountId, type: 'webhook.test', time: table.timestamp(), actor, data: { webhookId } }, eventTails()(0));
  return { writes: [write], result: { eventId: body.id }, after: { eventId: body.id } };
}
