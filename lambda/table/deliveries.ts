import { randomBytes } from 'node:crypto';
import type { DeliveryItem, WithKeys } from './item-types';
import { deliverySortKey, keys, prefixes } from './schema';
import { newestFirstPage } from './newest-first';
import { buildCondition } from './update-expression';
import type { Table } from './table';

/**
 * The delivery log (docs/events.md "Delivery"): one item per attempt to deliver an event to a webhook, under the
 * webhook's own prefix in the account's partition, kept 30 days. An attempt is a fact about the receiver, not a
 * change anybody made: it is a plain put, in no transaction and not audited. Its id is chosen when the attempt is
 * claimed (delivery-claims.ts), so writing it again writes the same line, never a second one.
 */

/** What the API answers for an attempt (GET …/webhooks/{w}/deliveries). */
export interface Delivery {
  readonly deliveryId: string;
  readonly eventId: string;
  readonly type: string;
  readonly attempt: number;
  readonly at: string;
  readonly status: number | null;
  readonly durationMs: number;
  readonly error?: string;
}

export type DeliveryAttempt = Pick<DeliveryItem, 'accountId' | 'webhookId' | 'eventId' | 'eventType' | 'attempt' | 'at' | 'status' | 'durationMs' | 'error'>;

/** The most attempts the API lists: the last ones, newest first. */
export const DELIVERIES_LISTED = 100;
const KEPT_SECONDS = 30 * 24 * 3600;

/**
 * `dlv_`, the attempt's instant (UTC, digits only, as an event id has it) and the sort key's random tail: it
 * names one attempt for good, and the item's key can be told from it with the webhook's id.
 */
export const DELIVERY_ID_PATTERN = /^dlv_\d{17}_[0-9a-f]{8}$/;
const deliveryIdOf = (at: string, tail: string): string => `dlv_${at.replace(/\D/g, '')}_${tail}`;

/** A new attempt's id in the log, made when it is claimed (delivery-claims.ts) so that every run records the same line. */
export const newDeliveryId = (at: string): string => deliveryIdOf(at, randomBytes(4).toString('hex'));

export interface RecordOptions {
  /** The line's id, chosen when the attempt was claimed; a new one when absent. */
  readonly deliveryId?: string;
  /**
   * Write the line only if it is not there: a run that can only say the attempt was cut off never writes over the
   * line of the run that knew its answer.
   */
  readonly ifAbsent?: boolean;
}

/** Writes one attempt's line in the log (the same id writes the same line again); returns its id. */
export async function recordDelivery(table: Table, attempt: DeliveryAttempt, options: RecordOptions = {}): Promise<string> {
  const deliveryId = options.deliveryId ?? newDeliveryId(attempt.at);
  if (!DELIVERY_ID_PATTERN.test(deliveryId)) throw new RangeError(`not a delivery id: ${deliveryId}`);
  const tail = deliveryId.slice(-8);
  const item: WithKeys<DeliveryItem> = {
    ...keys.delivery(attempt.accountId, deliverySortKey(attempt.webhookId, attempt.at, tail)),
    type: 'delivery',
    accountId: attempt.accountId,
    webhookId: attempt.webhookId,
    deliveryId,
    eventId: attempt.eventId,
    eventType: attempt.eventType,
    attempt: attempt.attempt,
    at: attempt.at,
    status: attempt.status,
    durationMs: attempt.durationMs,
    ...(attempt.error === undefined ? {} : { error: attempt.error }),
    ttl: Math.floor(Date.parse(attempt.at) / 1000) + KEPT_SECONDS,
  };
  if (!options.ifAbsent) {
    await table.put('recordDelivery', { Item: item });
    return deliveryId;
  }
  await table.put('recordDelivery', { Item: item, ...buildCondition((names) => `attribute_not_exists(${names.name('pk')})`) }, () => undefined);
  return deliveryId;
}

/** The webhook's last 100 attempts of the past 30 days, newest first. */
export async function listDeliveries(table: Table, accountId: string, webhookId: string): Promise<Delivery[]> {
  const prefix = prefixes.deliveriesOf(webhookId);
  const { items } = await newestFirstPage<WithKeys<DeliveryItem>>(table, 'listDeliveries', {
    accountId,
    lower: prefix,
    upper: `${prefix}~`,
    limit: DELIVERIES_LISTED,
  });
  // DynamoDB deletes an expired item up to days late: one past its 30 days is gone as far as anyone reading knows.
  const nowSeconds = table.now().getTime() / 1000;
  return items
    .filter((item) => item.ttl > nowSeconds)
    .map((item) => ({
      deliveryId: item.deliveryId,
      eventId: item.eventId,
      type: item.eventType,
      attempt: item.attempt,
      at: item.at,
      status: item.status,
      durationMs: item.durationMs,
      ...(item.error === undefined ? {} : { error: item.error }),
    }));
}
