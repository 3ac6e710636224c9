import { type DeliveryJob, type JobQueue, processingRetryDelay } from '../lambda/webhook-delivery/delivery-job';
import type { Disposition } from '../lambda/webhook-delivery/delivery-run';

export interface InProcessQueueOptions {
  /**
   * One run of one job: runDeliveryJob with npm start's store, sealer, local destinations and this queue for
   * what follows. `tries` counts this job's runs, this one included.
   */
  run(job: DeliveryJob, tries: number): Promise<Disposition>;
  /** Seconds to milliseconds; a test shortens the schedule with it. */
  readonly millisPerSecond?: number;
}

/**
 * npm start's stand-in for the delivery queue and its function (lib/event-delivery.ts): every job runs at once, on
 * its own, by the deployed code (delivery-run.ts); a job that asks to run again later, and each next attempt, waits
 * on a timer of its own for as long as the deployed queue would hide it, so one slow or failing receiver delays no
 * other. Jobs live in memory: stopping npm start forgets those still waiting (docs/local-stack.md).
 */
export class InProcessDeliveryQueue implements JobQueue {
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #running = new Set<Promise<void>>();
  #stopped = false;

  constructor(private readonly options: InProcessQueueOptions) {}

  async enqueue(jobs: readonly DeliveryJob[], delaySeconds = 0): Promise<void> {
    for (const job of jobs) {
      if (delaySeconds > 0) this.#later(job, 1, delaySeconds);
      else this.#run(job, 1);
    }
  }

  /** No run starts after this; resolves once the runs under way have ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    await Promise.all([...this.#running]);
  }

  /** Runs under way or waiting for their timer. */
  get pending(): number {
    return this.#running.size + this.#timers.size;
  }

  #run(job: DeliveryJob, tries: number): void {
    if (this.#stopped) return;
    const running = this.options
      .run(job, tries)
      // A run answers every failure itself; one that threw even so is run again as the deployed queue would.
      .catch((): Disposition => ({ kind: 'again', seconds: processingRetryDelay(tries) }))
      .then((disposition) => {
        if (disposition.kind === 'again') this.#later(job, tries + 1, disposition.seconds);
      })
      .finally(() => this.#running.delete(running));
    this.#running.add(running);
  }

  #later(job: DeliveryJob, tries: number, delaySeconds: number): void {
    if (this.#stopped) return;
    const timer = setTimeout(
      () => {
        this.#timers.delete(timer);
        this.#run(job, tries);
      },
      delaySeconds * (this.options.millisPerSecond ?? 1000),
    );
    // The servers keep the process alive; a retry waiting hours never should.
    timer.unref();
    this.#timers.add(timer);
  }
}
