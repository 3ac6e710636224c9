import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { urlsRecordedIn } from '../domain/webhook-rules';
import { type DeliveryClaim, markFollowed } from '../table/delivery-claims';
import type { Table } from '../table/table';
import { type AttemptResult, recordAttempt, UnrecordedAttemptError } from './attempt';
import { type DeliveryJob, type JobQueue, type MadeAttempt, processingRetryDelay } from './delivery-job';
import { nextStep, reportStep } from './delivery-schedule';

/**
 * One run of a delivery job, the same deployed (the delivery function, one SQS message a job) and locally (npm
 * start's in-process queue, a timer a job): the attempt (attempt.ts), the line reporting it, and what follows it,
 * queued as a job of its own with the next number and due time. What the queue does with the job itself is the
 * answer: done with it, or to run it again later as the same attempt, when it could not be processed (the store,
 * KMS or the queue failing), backing off from 10 s to 15 minutes over the job's tries, or when another run holds it.
 */

export interface RunDependencies {
  /** The attempt itself: attemptDelivery with the runner's store, sealer and resolver. */
  attempt(job: DeliveryJob): Promise<AttemptResult>;
  /** The store the delivery log is written to: for a job whose attempt was made and whose line was not written. */
  readonly table: Table;
  /** Where the next attempt goes, and a made attempt's outcome when its line could not be written. */
  readonly queue: JobQueue;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly now?: () => Date;
}

/** What the queue does with the job it ran: done (deleted, deployed), or run again after `seconds`, the same attempt. */
export type Disposition = { readonly kind: 'done' } | { readonly kind: 'again'; readonly seconds: number };

const DONE: Disposition = { kind: 'done' };

const messageOf = (error: unknown): string => urlsRecordedIn(error instanceof Error ? error.message : String(error));

/**
 * Runs one job. `tries`: how many times this job has been run, this one included (the SQS message's receive count;
 * the local queue's own count): it sets the backoff of a job that could not be processed, and nothing else.
 */
export async function runDeliveryJob(job: DeliveryJob, tries: number, deps: RunDependencies): Promise<Disposition> {
  const now = deps.now ?? (() => new Date());
  const where = { accountId: job.accountId, webhookId: job.webhookId, eventId: job.event.id, eventType: job.event.type, attempt: job.attempt };
  try {
    const result: AttemptResult = job.made
      ? { kind: 'made', ...(await recordAttempt(deps.table, job, job.made, undefined)), recordedNow: true }
      : await deps.attempt(job);
    switch (result.kind) {
      case 'not-sent':
        reportStep(deps, job, result.outcome, { kind: 'dropped' });
        return DONE;
      case 'held':
        deps.logger.info({
          message: 'webhook delivery: another run holds this attempt, looked at again later',
          ...where,
          retryInSeconds: result.retryInSeconds,
        });
        return { kind: 'again', seconds: result.retryInSeconds };
      case 'made':
        return await follow(job, result, deps, now);
    }
  } catch (error) {
    if (error instanceof UnrecordedAttemptError && (await handOver(job, error.made, deps))) return DONE;
    const seconds = processingRetryDelay(tries);
    deps.logger.error({ message: 'webhook delivery: the attempt could not be made', ...where, tries, retryInSeconds: seconds, error: messageOf(error) });
    return { kind: 'again', seconds };
  }
}

/**
 * After an attempt made and recorded: its line (by the run that recorded it, once), and the next attempt queued as
 * a job of its own, due on the schedule from the end of this one. A run that finds the next already queued is done.
 */
async function follow(
  job: DeliveryJob,
  { made, claim, recordedNow }: { readonly made: MadeAttempt; readonly claim: DeliveryClaim; readonly recordedNow: boolean },
  deps: RunDependencies,
  now: () => Date,
): Promise<Disposition> {
  const step = nextStep(made, job.attempt);
  if (recordedNow) reportStep(deps, job, made, step);
  if (step.kind !== 'retry' || claim.state === 'followed') return DONE;
  const due = Math.max(now().getTime(), Date.parse(made.at) + made.durationMs + step.delaySeconds * 1000);
  const next: DeliveryJob = {
    accountId: job.accountId,
    webhookId: job.webhookId,
    event: job.event,
    attempt: job.attempt + 1,
    dueAt: new Date(due).toISOString(),
  };
  await deps.queue.enqueue([next], Math.max(0, Math.round((due - now().getTime()) / 1000)));
  // Only a run repeated after this point could queue it twice; the claim tells it not to. Its failure loses nothing.
  await markFollowed(deps.table, claim).catch((error: unknown) =>
    deps.logger.warn({
      message: 'webhook delivery: the next attempt is queued, but its claim could not say so',
      attempt: job.attempt,
      error: messageOf(error),
    }),
  );
  return DONE;
}

/**
 * The POST was made and its line could not be written (the store failing): its outcome goes on in a job of its own,
 * which records it once the store answers, so the receiver is never sent the attempt again. False when even that
 * could not be queued: then the job runs again, finds the attempt claimed, and records it as cut off.
 */
async function handOver(job: DeliveryJob, made: MadeAttempt, deps: RunDependencies): Promise<boolean> {
  try {
    await deps.queue.enqueue([{ ...job, made }]);
  } catch {
    return false;
  }
  deps.logger.warn({
    message: 'webhook delivery: the attempt was made but its line could not be written yet, recorded by a job of its own',
    accountId: job.accountId,
    webhookId: job.webhookId,
    eventId: job.event.id,
    attempt: job.attempt,
    status: made.status,
  });
  return true;
}
