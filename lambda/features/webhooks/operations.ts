import { eventActor } from '../../domain/actor';
import { descriptionProblem, eventsProblem, MAX_WEBHOOK_URL_LENGTH, recordedUrl } from '../../domain/webhook-rules';
import type { OperationContext } from '../../operations/context';
import type { WebhookItem } from '../../table/item-types';
import type { WebhookTools } from '../../webhook-delivery/sealer-from-config';
import { generateSecret } from '../../webhook-delivery/signature';
import { InvalidWebhookError } from '../errors';
import {
  auditedChange,
  planCreateWebhook,
  planDeleteWebhook,
  planRotateWebhookSecret,
  planTestWebhook,
  planUpdateWebhook,
  type WebhookChange,
} from './webhooks';

/**
 * An account's webhooks (`ops.webhooks`, docs/events.md "Webhooks"): a secret is answered once, stored sealed, and
 * written to no audit entry.
 */
export class WebhookOperations {
  constructor(private readonly context: OperationContext) {}

  private get tools(): WebhookTools {
    const tools = this.context.deps.webhooks;
    if (!tools) throw new Error('managing webhooks needs the secret sealer (WEBHOOK_KEY_ID or WEBHOOK_LOCAL_KEY_FILE)');
    return tools;
  }

  /** The URL within its length, and a place the destination policy lets deliveries go (after DNS, deployed). */
  private async requireDestination(url: string): Promise<void> {
    if (url.length > MAX_WEBHOOK_URL_LENGTH) throw new InvalidWebhookError(`must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`, 'url');
    if (!URL.canParse(url)) throw new InvalidWebhookError('must be an absolute URL', 'url');
    const checked = await this.tools.checkDestination(url);
    if (!checked.ok) throw new InvalidWebhookError(checked.reason, 'url');
  }

  private async requireValidSettings(change: WebhookChange): Promise<void> {
    const eventsWrong = change.events === undefined ? undefined : eventsProblem(change.events);
    if (eventsWrong) throw new InvalidWebhookError(eventsWrong, 'events');
    const descriptionWrong = change.description ? descriptionProblem(change.description) : undefined;
    if (descriptionWrong) throw new InvalidWebhookError(descriptionWrong, 'description');
    if (change.url !== undefined) await this.requireDestination(change.url);
  }

  /** A new webhook, enabled, with a new secret: the answer is the only place the secret ever appears in plaintext. */
  async create(
    accountId: string,
    input: { url: string; events: readonly string[]; description?: string | null },
  ): Promise<{ webhook: WebhookItem; secret: string }> {
    const description = input.description || null;
    const requested = { url: recordedUrl(input.url), events: input.events, description };
    const secret = generateSecret();
    return this.context.audited({ accountId, action: 'webhook.create', target: { url: recordedUrl(input.url) }, requested }, async () => {
      await this.requireValidSettings({ url: input.url, events: input.events, description });
      const sealedSecret = await this.tools.sealer.seal(secret);
      const planned = await planCreateWebhook(this.context.table, accountId, {
        url: input.url,
        events: input.events,
        description,
        sealedSecret,
        by: this.context.by,
      });
      return { ...planned, result: { webhook: planned.result, secret } };
    });
  }

  /** A new URL (checked as at creation), events, description, or enabled flag; the secrets stay. */
  update(accountId: string, webhookId: string, change: WebhookChange): Promise<WebhookItem> {
    return this.context.audited({ accountId, action: 'webhook.update', target: { webhookId }, requested: auditedChange(change) }, async () => {
      await this.requireValidSettings(change);
      return planUpdateWebhook(this.context.table, accountId, webhookId, change);
    });
  }

  delete(accountId: string, webhookId: string): Promise<WebhookItem> {
    return this.context.audited({ accountId, action: 'webhook.delete', target: { webhookId } }, () =>
      planDeleteWebhook(this.context.table, accountId, webhookId),
    );
  }

  /** A new secret, answered once; the one it replaces still signs deliveries for 24 hours. */
  async rotateSecret(accountId: string, webhookId: string): Promise<{ webhook: WebhookItem; secret: string }> {
    const secret = generateSecret();
    return this.context.audited({ accountId, action: 'webhook.rotate', target: { webhookId } }, async () => {
      const sealedSecret = await this.tools.sealer.seal(secret);
      const planned = await planRotateWebhookSecret(this.context.table, accountId, webhookId, sealedSecret);
      return { ...planned, result: { webhook: planned.result, secret } };
    });
  }

  /** A `webhook.test` event, delivered to this webhook alone as any event is; its id, to find its delivery. */
  test(accountId: string, webhookId: string): Promise<{ eventId: string }> {
    return this.context.audited({ accountId, action: 'webhook.test', target: { webhookId } }, () =>
      planTestWebhook(this.context.table, accountId, webhookId, eventActor(this.context.actor)),
    );
  }
}
