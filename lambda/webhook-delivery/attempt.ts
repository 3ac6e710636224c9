import { randomBytes } from 'node:crypto';
import { urlsRecordedIn, wantsEvent } from '../domain/webhook-rules';
import { recordDelivery, newDeliveryId } from '../table/deliveries';
import { claimAttempt, type DeliveryClaim, findClaim, newClaim, settleClaim } from '../table/delivery-claims';
import type { WebhookItem } from '../table/item-types';
import type { Table } from '../table/table';
import { ATTEMPT_LEASE_SECONDS, type AttemptOutcome, type DeliveryJob, type MadeAttempt, RETRY_DELAYS_SECONDS } from './delivery-job';
import { type DestinationMode, type Resolve, resolveDestination, resolveWithDns } from './destination';
import type { SecretSealer } from './secret-sealer';
import { type Send, sendOnce } from './sender';
import { sign } from './signature';
import { findWebhook } from '../table/webhooks';

/**
 * One attempt of a delivery job (docs/events.md "Delivery"), made at most once however often its job runs: the
 * webhook as it is now, its URL checked again now, the body signed with every secret valid now, then the attempt
 * claimed (table/delivery-claims.ts), one POST, one line in the delivery log. Everything that can fail before the
 * POST (the store, KMS) throws with nothing claimed, and the job runs again as the same attempt; a run that finds
 * the attempt claimed never sends it again. Whoever runs the job (delivery-run.ts) queues the next attempt.
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

/** What one run of a job came to. */
export type AttemptResult =
  /** Nothing was sent and nothing will be (the webhook was deleted, disabled, or no longer takes the type): not an attempt, not in the log. */
  | { readonly kind: 'not-sent'; readonly outcome: AttemptOutcome }
  /** Another run holds the attempt and may be sending it now: look again once its hold may have ended. */
  | { readonly kind: 'held'; readonly retryInSeconds: number }
  /**
   * The attempt was made and its line is in the delivery log; `claim` says whether what follows it was queued.
   * `recordedNow`: by this run, which then reports it.
   */
  | { readonly kind: 'made'; readonly made: MadeAttempt; readonly claim: DeliveryClaim; readonly recordedNow: boolean };

/** The POST was made but its line could not be written: the outcome, to be recorded by a later run without sending again. */
export class UnrecordedAttemptError extends Error {
  override readonly name = 'UnrecordedAttemptError';
  constructor(
    readonly made: MadeAttempt,
    options: { cause: unknown },
  ) {
    super(`the attempt was made but its line in the delivery log could not be written: ${(options.cause as Error)?.message ?? String(options.cause)}`, options);
  }
}

/** Nothing was sent and nothing will be: not an attempt, so not in the delivery log. */
const notSent = (error: string): AttemptResult => ({ kind: 'not-sent', outcome: { delivered: false, status: null, durationMs: 0, error, final: true } });

/** What a run that finds an attempt claimed and abandoned can say of it: it may have reached the receiver. */
export const CUT_OFF_ERROR = 'the attempt was cut off before its answer was recorded: the receiver may have had it';

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

const attemptKey = (job: DeliveryJob) => ({ accountId: job.accountId, webhookId: job.webhookId, eventId: job.event.id, attempt: job.attempt });

/**
 * The attempt's line in the delivery log, then its claim settled: the line's id is the claim's, so writing it again
 * writes the same line. `ifAbsent`: a cut-off attempt's line never replaces one written by the run that knew its answer.
 */
export async function recordAttempt(
  table: Table,
  job: DeliveryJob,
  made: MadeAttempt,
  claim: DeliveryClaim | undefined,
  ifAbsent = false,
): Promise<{ made: MadeAttempt; claim: DeliveryClaim }> {
  const { at, deliveryId, delivered, status, durationMs, error, final } = made;
  const recordedError = error === undefined ? undefined : urlsRecordedIn(error);
  await recordDelivery(
    table,
    {
      accountId: job.accountId,
      webhookId: job.webhookId,
      eventId: job.event.id,
      eventType: job.event.type,
      attempt: job.attempt,
      at,
      status,
      durationMs,
      ...(recordedError === undefined ? {} : { error: recordedError }),
    },
    { deliveryId, ifAbsent },
  );
  const outcome = { delivered, status, durationMs, ...(recordedError === undefined ? {} : { error: recordedError }), ...(final ? { final } : {}) };
  const held = claim ?? (await findClaim(table, attemptKey(job))) ?? newClaim({ ...attemptKey(job), holder: 'unknown', at, deliveryId });
  const standing = await settleClaim(table, held, outcome);
  // Another run settled it first: its outcome is the one that counts, as what follows was or will be queued by it.
  return { made: { ...(standing.outcome ?? outcome), at: standing.at, deliveryId: standing.deliveryId }, claim: standing };
}

/** An attempt claimed by another run: held while that run may still be at it, cut off after. */
function claimedElsewhere(claim: DeliveryClaim, now: Date): AttemptResult | { readonly cutOff: MadeAttempt } {
  if (claim.state !== 'sending' && claim.outcome) {
    return { kind: 'made', made: { ...claim.outcome, at: claim.at, deliveryId: claim.deliveryId }, claim, recordedNow: false };
  }
  const heldUntil = Date.parse(claim.at) + ATTEMPT_LEASE_SECONDS * 1000;
  if (heldUntil > now.getTime()) return { kind: 'held', retryInSeconds: Math.ceil((heldUntil - now.getTime()) / 1000) };
  return { cutOff: { delivered: false, status: null, durationMs: 0, error: CUT_OFF_ERROR, at: claim.at, deliveryId: claim.deliveryId } };
}

export async function attemptDelivery(job: DeliveryJob, deps: AttemptDependencies): Promise<AttemptResult> {
  const now = deps.now ?? (() => new Date());
  const webhook = await findWebhook(deps.table, job.accountId, job.webhookId);
  if (!webhook) return notSent('the webhook was deleted');
  const unwanted = whyNotWanted(webhook, job);
  if (unwanted) return notSent(unwanted);

  // Whatever may fail for want of the store, DNS or KMS comes before the claim: such a failure claims nothing.
  const started = now();
  const check = await resolveDestination(webhook.url, deps.mode ?? 'deployed', deps.resolve ?? resolveWithDns);
  const secrets = check.ok ? await validSecrets(webhook, deps.sealer, started) : [];
  if (check.ok && secrets.length === 0) return notSent('the webhook has no valid signing secret');

  const at = now();
  const claimed = await claimAttempt(
    deps.table,
    newClaim({ ...attemptKey(job), holder: randomBytes(8).toString('hex'), at: at.toISOString(), deliveryId: newDeliveryId(at.toISOString()) }),
  );
  if (!claimed.claimed) {
    const elsewhere = claimedElsewhere(claimed.claim, now());
    if (!('cutOff' in elsewhere)) return elsewhere;
    return { kind: 'made', ...(await recordAttempt(deps.table, job, elsewhere.cutOff, claimed.claim, true)), recordedNow: true };
  }

  const { claim } = claimed;
  let outcome: AttemptOutcome;
  if (!check.ok) {
    // A refused address is the receiver's setup, which retrying does not change; a lookup that failed may pass.
    const durationMs = now().getTime() - started.getTime();
    outcome = { delivered: false, status: null, durationMs, error: `not sent: ${check.reason}`, ...(check.refused ? { final: true } : {}) };
  } else {
    const body = JSON.stringify(job.event);
    const timestamp = Math.floor(at.getTime() / 1000);
    const send = deps.send ?? sendOnce();
    outcome = await send({
      destination: check.destination,
      headers: {
        'webhook-id': job.event.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': sign({ id: job.event.id, timestamp, body }, secrets),
      },
      body,
    });
  }
  // What the attempt came to may travel on in a queue message (UnrecordedAttemptError): as the record says it.
  const made: MadeAttempt = {
    ...outcome,
    ...(outcome.error === undefined ? {} : { error: urlsRecordedIn(outcome.error) }),
    at: claim.at,
    deliveryId: claim.deliveryId,
  };
  try {
    return { kind: 'made', ...(await recordAttempt(deps.table, job, made, claim)), recordedNow: true };
  } catch (error) {
    throw new UnrecordedAttemptError(made, { cause: error });
  }
}
