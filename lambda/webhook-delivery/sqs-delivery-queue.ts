import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryJob, JobQueue } from './delivery-job';

/** SendMessageBatch takes at most 10 messages a call. */
const MESSAGES_PER_CALL = 10;

/** The longest a message may be delayed when it is sent (SQS's DelaySeconds): 15 minutes. */
export const SQS_MAX_DELAY_SECONDS = 900;
/**
 * The longest a received message is hidden again (SQS allows 12 hours from its receive; a few minutes are left for
 * the run itself). The schedule's longest wait, 10 h, fits: a job due later than its message's delay allows comes
 * early once, and is hidden until it is due.
 */
export const SQS_MAX_HIDE_SECONDS = 12 * 3600 - 5 * 60;

/** SQS answers in milliseconds; these bound a call that hangs, so a run ends well within the function's timeout. */
export const SQS_CONNECTION_TIMEOUT_MS = 1_000;
export const SQS_REQUEST_TIMEOUT_MS = 3_000;

/** The delivery queue's client, bounded like the table's and KMS's (the SDK's default handler waits without limit). */
export function createSqsClient(region: string): SQSClient {
  return new SQSClient({
    region,
    maxAttempts: 3,
    requestHandler: { connectionTimeout: SQS_CONNECTION_TIMEOUT_MS, requestTimeout: SQS_REQUEST_TIMEOUT_MS, throwOnRequestTimeout: true },
  });
}

/**
 * The deployed delivery queue (lib/event-delivery.ts): one message per job, its body the job as JSON, its message
 * group the job's account. On a standard queue the group makes it a fair queue: when one account's deliveries hold
 * a disproportionate share of the function (a burst, receivers that hang), SQS hands the function other accounts'
 * messages first, so one tenant cannot hold up the others' webhooks.
 */
export class SqsDeliveryQueue implements JobQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  /** A delay past SQS's 15 minutes is the job's `dueAt`: the message comes early, and the delivery function hides it till then. */
  async enqueue(jobs: readonly DeliveryJob[], delaySeconds = 0): Promise<void> {
    const delay = Math.min(SQS_MAX_DELAY_SECONDS, Math.max(0, Math.ceil(delaySeconds)));
    for (let start = 0; start < jobs.length; start += MESSAGES_PER_CALL) {
      const chunk = jobs.slice(start, start + MESSAGES_PER_CALL);
      const answer = await this.client.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: chunk.map((job, index) => ({
            Id: String(index),
            MessageBody: JSON.stringify(job),
            MessageGroupId: job.accountId,
            ...(delay > 0 ? { DelaySeconds: delay } : {}),
          })),
        }),
      );
      const failed = answer.Failed ?? [];
      if (failed.length > 0) {
        throw new Error(`SQS refused ${failed.length} of ${chunk.length} delivery job(s): ${[...new Set(failed.map((entry) => entry.Code))].join(', ')}`);
      }
    }
  }

  /** The message stays hidden this long (at most SQS_MAX_HIDE_SECONDS), then the queue hands it to the function again. */
  async hide(receiptHandle: string, seconds: number): Promise<void> {
    const visibility = Math.min(SQS_MAX_HIDE_SECONDS, Math.max(0, Math.ceil(seconds)));
    await this.client.send(new ChangeMessageVisibilityCommand({ QueueUrl: this.queueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: visibility }));
  }
}
