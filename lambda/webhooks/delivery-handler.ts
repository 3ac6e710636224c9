import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { AttemptOutcome, DeliveryJob } from './delivery-job';
import { urlsRecordedIn } from '../domain/webhook-rules';
import { readDeliveryJob } from './delivery-message';
import { nextStep, reportStep } from './delivery-schedule';

export interface DeliveryHandlerDependencies {
  /** One attempt of one job (attempt.ts's attemptDelivery, with the function's store, sealer and resolver). */
  attempt(job: DeliveryJob): Promise<AttemptOutcome>;
  /** Hides the message for this long: its next attempt (sqs-delivery-queue.ts). */
  retryAfter(receiptHandle: string, delaySeconds: number): Promise<void>;
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/**
 * The delivery function (lib/event-delivery.ts): each SQS message one delivery job, all of a batch attempted at
 * once, so a slow receiver holds up no other's delivery. A message answered as a batch item failure stays in the
 * queue: one whose attempt failed is first hidden until its next attempt is due (RETRY_DELAYS_SECONDS); one the
 * function could not process (a body that is not a job, a store that failed) comes back after the queue's
 * visibility timeout and, after the redrive policy's receives, lands in the dead-letter queue. After MAX_ATTEMPTS
 * the delivery is marked failed (a log line and the WebhookDeliveryFailed metric) and the message deleted.
 *
 * The attempt number is the job's (1 when queued) plus the receives before this one: each receive makes one attempt.
 */
export function createDeliveryHandler(deps: DeliveryHandlerDependencies) {
  const deliver = async (record: SQSRecord): Promise<boolean> => {
    const read = readDeliveryJob(record.body);
    if ('problem' in read) {
      deps.logger.error({
        message: 'webhook delivery: not a delivery job, left for the dead-letter queue',
        messageId: record.messageId,
        problem: read.problem,
      });
      return false;
    }
    const receives = Number(record.attributes.ApproximateReceiveCount);
    const attempt = read.job.attempt + (Number.isInteger(receives) && receives > 1 ? receives - 1 : 0);
    const job = { ...read.job, attempt };
    const where = { accountId: job.accountId, webhookId: job.webhookId, eventId: job.event.id, eventType: job.event.type, attempt };
    let outcome: AttemptOutcome;
    try {
      outcome = await deps.attempt(job);
    } catch (error) {
      deps.logger.error({
        message: 'webhook delivery: the attempt could not be made',
        ...where,
        error: urlsRecordedIn((error as Error)?.message ?? String(error)),
      });
      return false;
    }
    const step = nextStep(outcome, attempt);
    reportStep(deps, job, outcome, step);
    if (step.kind !== 'retry') return true;
    try {
      await deps.retryAfter(record.receiptHandle, step.delaySeconds);
    } catch (error) {
      // Then it comes back after the queue's own visibility timeout: sooner than due, never lost.
      deps.logger.warn({
        message: 'webhook delivery: the retry delay could not be set',
        ...where,
        error: urlsRecordedIn((error as Error)?.message ?? String(error)),
      });
    }
    return false;
  };

  const run = async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const done = await Promise.all(event.Records.map((record) => deliver(record)));
    if (deps.metrics.hasStoredMetrics()) deps.metrics.publishStoredMetrics();
    return { batchItemFailures: event.Records.filter((_, index) => !done[index]).map((record) => ({ itemIdentifier: record.messageId })) };
  };
  return middy(run).use(injectLambdaContext(deps.logger, { logEvent: false, resetKeys: true }));
}
