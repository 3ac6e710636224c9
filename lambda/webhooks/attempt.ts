import { urlsRecordedIn } from '../domain/webhook-rules';
import { recordDelivery } from '../table/deliveries';
import type { WebhookItem } from '../table/item-types';
import type { Table } from '../table/table';
import { findWebhook, wantsEvent } from '../table/webhooks';
import { type AttemptOutcome, type DeliveryJob, RETRY_DELAYS_SECONDS } from './delivery-job';
import { type DestinationMode, type Resolve, resolveDestination, resolveWithDns } from './destination';
import type { SecretSealer } from './secret-sealer';
import { type Send, sendOnce } from './sender';
import { sign } from './signature';

/**
 * One attempt of a delivery job (docs/events.md "Delivery"), as the job queue runs it: the webhook as it is now,
 * its URL checked again now, the body signed with every secret valid now, one POST, one line in the delivery log.
 * Whoever runs the job schedules the next attempt after nextDelay(job.attempt) unless the outcome is delivered or
 * final. A store or KMS failure is thrown: the queue runs the same attempt again.
 */

export interface AttemptDependencies {
  readonly table: Table;
  readonly sealer: SecretSealer;
  /** DNS unless a test stubs it. */
  readonly resolve?: Resolve;
  /** `deployed` unless npm start or a test says `local`: the safe side. */
  readonly mode?: DestinationMode;
  readonly now?: () => Date;
  /** The POST itself: sendOnce() unless a test stands in for it. */
  readonly send?: Send;
}

/** Seconds before the attempt after this one, or undefined when this was the last. */
export function nextDelay(attempt: number): number | undefined {
  return Number.isInteger(attempt) && attempt >= 1 ? RETRY_DELAYS_SECONDS[attempt - 1] : undefined;
}

/** Nothing was sent and nothing will be: not an attempt, so not in the delivery log. */
const notSent = (error: string): AttemptOutcome => ({ delivered: false, status: null, durationMs: 0, error, final: true });

/** A test goes to the webhook it was sent from, whatever its events and even while disabled: an admin asked for it. */
function whyNotWanted(webhook: WebhookItem, job: DeliveryJob): string | undefined {
  if (job.event.type === 'webhook.test') return job.event.data.webhookId === webhook.webhookId ? undefined : 'a test of another webhook';
  if (!webhook.enabled) return 'the webhook is disabled';
  return wantsEvent(webhook, job.event.type) ? undefined : `the webhook no longer takes ${job.event.type}`;
}

/** The secrets a receiver may hold now: the current one and, for 24 hours after a rotation, the one before it. */
async function validSecrets(webhook: WebhookItem, sealer: SecretSealer, now: Date): Promise<string[]> {
  const valid = webhook.secrets.filter((secret) => secret.expiresAt === undefined || Date.parse(secret.expiresAt) > now.getTime());
  return Promise.all(valid.map((secret) => sealer.unseal(secret.sealed)));
}

export async function attemptDelivery(job: DeliveryJob, deps: AttemptDependencies): Promise<AttemptOutcome> {
  const now = deps.now ?? (() => new Date());
  const webhook = await findWebhook(deps.table, job.accountId, job.webhookId);
  if (!webhook) return notSent('the webhook was deleted');
  const unwanted = whyNotWanted(webhook, job);
  if (unwanted) return notSent(unwanted);

  const at = now();
  const record = async (outcome: AttemptOutcome): Promise<AttemptOutcome> => {
    await recordDelivery(deps.table, {
      accountId: job.accountId,
      webhookId: job.webhookId,
      eventId: job.event.id,
      eventType: job.event.type,
      attempt: job.attempt,
      at: at.toISOString(),
      status: outcome.status,
      durationMs: outcome.durationMs,
      ...(outcome.error === undefined ? {} : { error: urlsRecordedIn(outcome.error) }),
    });
    return outcome;
  };

  const check = await resolveDestination(webhook.url, deps.mode ?? 'deployed', deps.resolve ?? resolveWithDns);
  if (!check.ok) {
    // A refused address is the receiver's setup, which retrying does not change; a lookup that failed may pass.
    const durationMs = now().getTime() - at.getTime();
    return record({ delivered: false, status: null, durationMs, error: `not sent: ${check.reason}`, ...(check.refused ? { final: true } : {}) });
  }
  const secrets = await validSecrets(webhook, deps.sealer, at);
  if (secrets.length === 0) return notSent('the webhook has no valid signing secret');

  const body = JSON.stringify(job.event);
  const timestamp = Math.floor(at.getTime() / 1000);
  const send = deps.send ?? sendOnce();
  const outcome = await send({
    destination: check.destination,
    headers: {
      'webhook-id': job.event.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': sign({ id: job.event.id, timestamp, body }, secrets),
    },
    body,
  });
  return record(outcome);
}
