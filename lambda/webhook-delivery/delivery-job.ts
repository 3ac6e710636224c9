import type { EventBody } from '../domain/events';

/**
 * The seams between who announces an event and who delivers it (docs/events.md "How it is delivered"): the
 * dispatcher (lambda/event-dispatch/) turns one committed event into a publish on the bus and one job per webhook that
 * wants it; a job queue (deployed: SQS with a dead-letter queue; locally: npm start's in-process queue) runs each
 * job (delivery-run.ts), every webhook's apart from every other's. A job is one attempt: the next attempt is a new
 * job, queued with its number and due time, so the number is the job's, never the queue's count of receives.
 */

/** One event for one webhook, one attempt. `attempt` counts from 1; a retry carries the same event, so the same `webhook-id`. */
export interface DeliveryJob {
  readonly accountId: string;
  readonly webhookId: string;
  readonly event: EventBody;
  readonly attempt: number;
  /** When the attempt is due (ISO); absent: at once. A queue that cannot hold a job that long hands it over early. */
  readonly dueAt?: string;
  /**
   * The attempt was made and only its line in the delivery log (and what follows) is left: the log could not be
   * written when it was made, so the outcome travels on in its own job rather than the POST being made again.
   */
  readonly made?: MadeAttempt;
}

/** What one attempt came to: `delivered` only for a 2xx within the attempt's time. */
export interface AttemptOutcome {
  readonly delivered: boolean;
  /** The receiver's HTTP status, or null when it did not answer (refused, timed out, not allowed). */
  readonly status: number | null;
  readonly durationMs: number;
  /** Why it was not delivered, in words for the delivery log: never a secret, never the body. */
  readonly error?: string;
  /** Retrying cannot help (the webhook was deleted or disabled, no longer wants the type, or its address is refused). */
  readonly final?: boolean;
}

/** An attempt that was made: when it started and the delivery log's id for it, with what it came to. */
export interface MadeAttempt extends AttemptOutcome {
  readonly at: string;
  readonly deliveryId: string;
}

export interface JobQueue {
  /** Queues jobs to run after `delaySeconds` (the dispatcher's first attempts: none), each with its own number. */
  enqueue(jobs: readonly DeliveryJob[], delaySeconds?: number): Promise<void>;
}

export interface EventBus {
  /** Publishes each event (deployed: EventBridge PutEvents on the stack's bus; locally: nothing to publish to). */
  publish(events: readonly EventBody[]): Promise<void>;
}

/**
 * Seconds to wait after each failed attempt before the next: about 5 s, 5 min, 30 min, 2 h, 5 h and 10 h, then the
 * delivery is marked failed. Seven attempts in all.
 */
export const RETRY_DELAYS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/** The most an attempt may take, connection included: then it is a failed attempt with no status. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

/**
 * A job that could not be processed (the store, KMS or the queue failing, a crash) is the same attempt again,
 * first after 10 s, each time twice as long, at most 15 minutes apart: an outage does not use up attempts, it
 * delays them, and deliveries resume within 15 minutes of its end.
 */
export const PROCESSING_RETRY_FIRST_SECONDS = 10;
export const PROCESSING_RETRY_MAX_SECONDS = 15 * 60;

/** Seconds before a job that could not be processed is tried again, after `receives` tries of it (1 for the first). */
export function processingRetryDelay(receives: number): number {
  const tries = Number.isInteger(receives) && receives >= 1 ? receives : 1;
  return Math.min(PROCESSING_RETRY_MAX_SECONDS, PROCESSING_RETRY_FIRST_SECONDS * 2 ** Math.min(tries - 1, 20));
}

/** How many tries of one job an outage of `seconds` takes at processingRetryDelay before it is over. */
export function triesToOutlast(seconds: number): number {
  let waited = 0;
  let tries = 0;
  while (waited < seconds) {
    tries += 1;
    waited += processingRetryDelay(tries);
  }
  return tries;
}

/**
 * How long an attempt is held by the run that claimed it (delivery-claims.ts) before another run may take it for
 * cut off: longer than any run lasts (the delivery function's timeout, lib/event-delivery.ts, is shorter).
 */
export const ATTEMPT_LEASE_SECONDS = 120;
