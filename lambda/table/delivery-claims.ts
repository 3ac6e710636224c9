import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DeliveryClaimItem, WithKeys } from './item-types';
import { keys } from './schema';
import type { Table } from './table';
import { buildCondition } from './update-expression';
import { StoreUnavailableError } from './errors';

/**
 * The claims of delivery attempts (docs/events.md "Delivery"): before an attempt's POST, the run about to make it
 * writes the attempt's claim on the condition that there is none, so of every run of one attempt (a queue's
 * redelivery, a batch that timed out, a duplicate message) one sends it and the others never do. The claim then
 * says how far the attempt went: `sending`, `recorded` (its line is in the delivery log, with its outcome), and
 * `followed` (the next attempt is queued). Like the delivery log, it records what a receiver was sent, not a change
 * anybody made: plain conditional puts, in no transaction and not audited.
 */

export type DeliveryClaim = DeliveryClaimItem;

export interface AttemptKey {
  readonly accountId: string;
  readonly webhookId: string;
  readonly eventId: string;
  readonly attempt: number;
}

/** Kept five days: longer than a delivery queue message lives (four days), so no redelivered job outlives its claim. */
const KEPT_SECONDS = 5 * 24 * 3600;

const keyOf = (attempt: AttemptKey) => keys.deliveryClaim(attempt.accountId, attempt.webhookId, attempt.eventId, attempt.attempt);

function itemOf(claim: DeliveryClaim): WithKeys<DeliveryClaimItem> {
  return { ...keyOf(claim), type: 'delivery-claim', ...claim };
}

/** The claim as stored, without its keys and tag. */
function claimOf(item: WithKeys<DeliveryClaimItem>): DeliveryClaim {
  const { pk: _pk, sk: _sk, type: _type, gsi1pk: _gsi1pk, gsi1sk: _gsi1sk, ...claim } = item;
  return claim;
}

export async function findClaim(table: Table, attempt: AttemptKey): Promise<DeliveryClaim | undefined> {
  const item = await table.get<WithKeys<DeliveryClaimItem>>('findDeliveryClaim', keyOf(attempt));
  return item ? claimOf(item) : undefined;
}

export type ClaimResult = { readonly claimed: true; readonly claim: DeliveryClaim } | { readonly claimed: false; readonly claim: DeliveryClaim };

/** A claim of `attempt` for `holder`, started at `at`, to be written by claimAttempt. */
export function newClaim(attempt: AttemptKey & { readonly holder: string; readonly at: string; readonly deliveryId: string }): DeliveryClaim {
  return {
    accountId: attempt.accountId,
    webhookId: attempt.webhookId,
    eventId: attempt.eventId,
    attempt: attempt.attempt,
    holder: attempt.holder,
    at: attempt.at,
    deliveryId: attempt.deliveryId,
    state: 'sending',
    ttl: Math.floor(Date.parse(attempt.at) / 1000) + KEPT_SECONDS,
  };
}

/**
 * Writes `claim` if the attempt has none, or answers the claim that stands. A put whose answer was lost is read
 * back: the holder's own claim is theirs whether the first try or the SDK's retry wrote it.
 */
export async function claimAttempt(table: Table, claim: DeliveryClaim): Promise<ClaimResult> {
  // A refusal names the claim that stands: the holder's own when the SDK retried a put whose answer was lost.
  let standing: DeliveryClaim | undefined;
  try {
    await table.put(
      'claimDeliveryAttempt',
      { Item: itemOf(claim), ReturnValuesOnConditionCheckFailure: 'ALL_OLD', ...buildCondition((names) => `attribute_not_exists(${names.name('pk')})`) },
      async (failure) => {
        standing = failure.Item ? claimOf(unmarshall(failure.Item) as WithKeys<DeliveryClaimItem>) : await requireClaim(table, claim);
      },
    );
  } catch (error) {
    if (!(error instanceof StoreUnavailableError)) throw error;
    // The put may have been written with its answer lost: read back, the claim is ours only if it says so.
    const found = await findClaim(table, claim);
    if (found?.holder === claim.holder) return { claimed: true, claim: found };
    throw error;
  }
  if (standing === undefined || standing.holder === claim.holder) return { claimed: true, claim: standing ?? claim };
  return { claimed: false, claim: standing };
}

async function requireClaim(table: Table, attempt: AttemptKey): Promise<DeliveryClaim> {
  const found = await findClaim(table, attempt);
  if (!found) throw new StoreUnavailableError('claimDeliveryAttempt: the claim refused was not found on reading it back');
  return found;
}

/**
 * The attempt's line is in the delivery log: the claim says so, with the outcome, if it still says `sending` (or
 * is gone); else it answers the claim as another run settled it (whose outcome is then the one that counts).
 */
export async function settleClaim(table: Table, claim: DeliveryClaim, outcome: NonNullable<DeliveryClaim['outcome']>): Promise<DeliveryClaim> {
  const settled: DeliveryClaim = { ...claim, state: 'recorded', outcome };
  let standing: DeliveryClaim | undefined;
  await table.put(
    'settleDeliveryClaim',
    {
      Item: itemOf(settled),
      ...buildCondition((names) => `attribute_not_exists(${names.name('pk')}) OR ${names.name('state')} = ${names.value('sending')}`),
    },
    async () => {
      standing = await findClaim(table, claim);
    },
  );
  return standing ?? settled;
}

/** The next attempt is queued: a run that finds the claim so has nothing left to do for this attempt. */
export async function markFollowed(table: Table, claim: DeliveryClaim): Promise<void> {
  await table.put('followDeliveryClaim', { Item: itemOf({ ...claim, state: 'followed' }) });
}
