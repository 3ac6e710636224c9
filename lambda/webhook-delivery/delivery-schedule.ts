import type { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { urlsRecordedIn } from '../domain/webhook-rules';
import { METRIC } from '../metric-names';
import { nextDelay } from './attempt';
import type { AttemptOutcome, DeliveryJob } from './delivery-job';

/**
 * What follows one attempt, the same deployed (the delivery function changes the SQS message's visibility to the
 * delay) and locally (npm start's queue sets a timer): done, retried after a delay, or failed for good.
 */
export type NextStep =
  | { readonly kind: 'delivered' }
  /** Retrying cannot help (the webhook was deleted, disabled, or no longer wants the type): nothing more to do. */
  | { readonly kind: 'dropped' }
  | { readonly kind: 'retry'; readonly delaySeconds: number }
  /** Every attempt of the schedule failed: logged and counted (the WebhookDeliveryFailed metric and its alarm). */
  | { readonly kind: 'failed' };

export function nextStep(outcome: AttemptOutcome, attempt: number): NextStep {
  if (outcome.delivered) return { kind: 'delivered' };
  if (outcome.final === true) return { kind: 'dropped' };
  const delaySeconds = nextDelay(attempt);
  if (delaySeconds === undefined) return { kind: 'failed' };
  return { kind: 'retry', delaySeconds };
}

/**
 * One line per attempt, the same deployed and locally (docs/logs-and-metrics.md): its job, what the receiver answered
 * and what comes next; a delivery failed for good is counted too (WebhookDeliveryFailed).
 */
export function reportStep(
  { logger, metrics }: { readonly logger: Logger; readonly metrics: Metrics },
  job: DeliveryJob,
  outcome: AttemptOutcome,
  step: NextStep,
): void {
  const fields = {
    accountId: job.accountId,
    webhookId: job.webhookId,
    eventId: job.event.id,
    eventType: job.event.type,
    attempt: job.attempt,
    status: outcome.status,
    durationMs: outcome.durationMs,
    ...(outcome.error ? { error: urlsRecordedIn(outcome.error) } : {}),
  };
  switch (step.kind) {
    case 'delivered':
      logger.info({ message: 'webhook delivered', ...fields });
      return;
    case 'dropped':
      logger.info({ message: 'webhook delivery dropped: the webhook no longer takes it', ...fields });
      return;
    case 'failed':
      logger.error({ message: 'webhook delivery failed: every attempt of the schedule failed', ...fields });
      metrics.addMetric(METRIC.webhookDeliveryFailed, MetricUnit.Count, 1);
      return;
    case 'retry':
      logger.warn({ message: 'webhook delivery attempt failed, retried later', ...fields, retryInSeconds: step.delaySeconds });
      return;
  }
}
