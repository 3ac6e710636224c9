import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { AttemptOutcome, DeliveryJob, JobQueue } from '../lambda/webhooks/delivery-job';
import { nextStep, reportStep } from '../lambda/webhooks/delivery-schedule';
import { RETRY_DELAYS_SECONDS } from '../lambda/webhooks/delivery-job';

export interface InProcessQueueOptions {
  /** One attempt of one job: attemptDelivery with npm start's store, sealer and local destinations. */
  attempt(job: DeliveryJob): Promise<AttemptOutcome>;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Seconds to milliseconds; a test shortens the schedule with it. */
  readonly millisPerSecond?: number;
}

/**
 * npm start's stand-in for the delivery queue and its function (lib/event-delivery.ts): every job runs at once, on
 * its own, and each failed attempt sets a timer for the next on the deployed schedule (nextStep), so one slow or
 * failing receiver delays no other. Jobs live in memory: stopping npm start forgets the retries still pending
 * (docs/local-stack.md).
 */
export class InProcessDeliveryQueue implements JobQueue {
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #running = new Set<Promise<void>>();
  #stopped = false;

  constructor(private readonly options: InProcessQueueOptions) {}

  async enqueue(jobs: readonly DeliveryJob[]): Promise<void> {
    for (const job of jobs) this.#run(job);
  }

  /** No attempt starts after this; resolves once the attempts under way have ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    await Promise.all([...this.#running]);
  }

  /** Attempts under way or waiting for their timer. */
  get pending(): number {
    return this.#running.size + this.#timers.size;
  }

  #run(job: DeliveryJob): void {
    if (this.#stopped) return;
    const running = this.#attempt(job).finally(() => this.#running.delete(running));
    this.#running.add(running);
  }

  async #attempt(job: DeliveryJob): Promise<void> {
    const { logger, metrics } = this.options;
    let outcome: AttemptOutcome;
    try {
      outcome = await this.options.attempt(job);
    } catch (error) {
      // The store or the sealer failed: the same attempt again, after the schedule's first wait (as SQS would bring
      // the message back).
      logger.error({
        message: 'webhook delivery: the attempt could not be made',
        webhookId: job.webhookId,
        eventId: job.event.id,
        attempt: job.attempt,
        error: (error as Error)?.message ?? String(error),
      });
      this.#later(job, RETRY_DELAYS_SECONDS[0]);
      return;
    }
    const step = nextStep(outcome, job.attempt);
    reportStep({ logger, metrics }, job, outcome, step);
    if (metrics.hasStoredMetrics()) metrics.clearMetrics();
    if (step.kind === 'retry') this.#later({ ...job, attempt: job.attempt + 1 }, step.delaySeconds);
  }

  #later(job: DeliveryJob, delaySeconds: number): void {
    if (this.#stopped) return;
    const timer = setTimeout(
      () => {
        this.#timers.delete(timer);
        this.#run(job);
      },
      delaySeconds * (this.options.millisPerSecond ?? 1000),
    );
    // The servers keep the process alive; a retry waiting hours never should.
    timer.unref();
    this.#timers.add(timer);
  }
}
