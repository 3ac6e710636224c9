import { nextDelay } from './attempt';
import type { AttemptOutcome } from './delivery-job';

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
