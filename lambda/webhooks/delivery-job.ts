import type { EventBody } from '../domain/events';

/**
 * The seams between who announces an event and who delivers it (docs/events.md "How it is delivered"): the
 * dispatcher (lambda/events/) turns one committed event into a publish on the bus and one job per webhook that
 * wants it; a job queue (deployed: SQS with a dead-letter queue; locally: npm start's in-process queue) runs each
 * job's attempts on the retry schedule, every webhook's apart from every other's.
 */

/** One event for one webhook. `attempt` counts from 1; a retry carries the same event, so the same `webhook-id`. */
export interface DeliveryJob {
  readonly accountId: string;
  readonly webhookId: string;
  readonly event: EventBody;
  readonly attempt: number;
}

/** What one attempt came to: `delivered` only for a 2xx within the attempt's time. */
export interface AttemptOutcome {
  readonly delivered: boolean;
  /** The receiver's HTTP status, or null when it did not answer (refused, timed out, not allowed). */
  readonly status: number | null;
  readonly durationMs: number;
  /** Why it was not delivered, in words for the delivery log: never a secret, never the body. */
  readonly error?: string;
  /** Retrying cannot help (the webhook was deleted or disabled, or no longer wants the type): no more attempts. */
  readonly final?: boolean;
}

export interface JobQueue {
  /** Queues each job's first attempt. */
  enqueue(jobs: readonly DeliveryJob[]): Promise<void>;
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
