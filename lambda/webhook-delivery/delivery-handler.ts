import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { urlsRecordedIn } from '../domain/webhook-rules';
import { readDeliveryJob } from './delivery-message';
import { type RunDependencies, runDeliveryJob } from './delivery-run';

export interface DeliveryHandlerDependencies extends RunDependencies {
  /** Hides a message this long: it comes back then (sqs-delivery-queue.ts). */
  hide(receiptHandle: string, seconds: number): Promise<void>;
}

/**
 * A message that is no job is left for the dead-letter queue: hidden this long each time, it gets there after the
 * redrive policy's receives (lib/event-delivery.ts) in about 20 minutes, not the hours a delivery's would take.
 */
export const NOT_A_JOB_HIDE_SECONDS = 10;

/**
 * The delivery function (lib/event-delivery.ts): each SQS message one delivery job (delivery-run.ts), all of a
 * batch run at once, so a slow receiver holds up no other's delivery. A message the run is done with is deleted
 * (it is not a batch item failure); one to run again is hidden for the time the run said and reported as a batch
 * item failure, so it stays in the queue and comes back then. A message that comes before its job is due (a wait
 * longer than SQS's delay) is hidden until then, not run. The job's number is its own: the receive count only sets
 * how long a job that could not be processed waits.
 */
export function createDeliveryHandler(deps: DeliveryHandlerDependencies) {
  const now = deps.now ?? (() => new Date());
  const hide = async (record: SQSRecord, seconds: number, where: Record<string, unknown>): Promise<void> => {
    try {
      await deps.hide(record.receiptHandle, seconds);
    } catch (error) {
      // Then it comes back after the queue's own visibility timeout: sooner or later than meant, never lost.
      deps.logger.warn({
        message: 'webhook delivery: the message could not be hidden until its next run',
        ...where,
        error: urlsRecordedIn((error as Error)?.message ?? String(error)),
      });
    }
  };

  /** True when the message is done with (deleted), false when it stays for a later run. */
  const deliver = async (record: SQSRecord): Promise<boolean> => {
    const read = readDeliveryJob(record.body);
    if ('problem' in read) {
      deps.logger.error({
        message: 'webhook delivery: not a delivery job, left for the dead-letter queue',
        messageId: record.messageId,
        problem: read.problem,
      });
      await hide(record, NOT_A_JOB_HIDE_SECONDS, { messageId: record.messageId });
      return false;
    }
    const { job } = read;
    const where = { accountId: job.accountId, webhookId: job.webhookId, eventId: job.event.id, attempt: job.attempt };
    const dueInMs = job.dueAt === undefined ? 0 : Date.parse(job.dueAt) - now().getTime();
    if (dueInMs > 1000) {
      await hide(record, dueInMs / 1000, where);
      return false;
    }
    const receives = Number(record.attributes.ApproximateReceiveCount);
    const disposition = await runDeliveryJob(job, Number.isInteger(receives) && receives >= 1 ? receives : 1, deps);
    if (disposition.kind === 'done') return true;
    await hide(record, disposition.seconds, where);
    return false;
  };

  const run = async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const done = await Promise.all(event.Records.map((record) => deliver(record)));
    if (deps.metrics.hasStoredMetrics()) deps.metrics.publishStoredMetrics();
    return { batchItemFailures: event.Records.filter((_, index) => !done[index]).map((record) => ({ itemIdentifier: record.messageId })) };
  };
  return middy(run).use(injectLambdaContext(deps.logger, { logEvent: false, resetKeys: true }));
}
