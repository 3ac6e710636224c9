import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryJob, JobQueue } from './delivery-job';

/** SendMessageBatch takes at most 10 messages a call. */
const MESSAGES_PER_CALL = 10;

/** The deployed delivery queue (lib/event-delivery.ts): one message per job, its body the job as JSON. */
export class SqsDeliveryQueue implements JobQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async enqueue(jobs: readonly DeliveryJob[]): Promise<void> {
    for (let start = 0; start < jobs.length; start += MESSAGES_PER_CALL) {
      const chunk = jobs.slice(start, start + MESSAGES_PER_CALL);
      const answer = await this.client.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: chunk.map((job, index) => ({ Id: String(index), MessageBody: JSON.stringify(job) })),
        }),
      );
      const failed = answer.Failed ?? [];
      if (failed.length > 0) {
        throw new Error(`SQS refused ${failed.length} of ${chunk.length} delivery job(s): ${[...new Set(failed.map((entry) => entry.Code))].join(', ')}`);
      }
    }
  }

  /**
   * The next attempt of a message that failed: it stays hidden this long, then the queue hands it to the function
   * again. A message's own visibility may be up to 12 h (SQS's DelaySeconds stops at 15 min), which the schedule's
   * longest wait (10 h) fits.
   */
  async retryAfter(receiptHandle: string, delaySeconds: number): Promise<void> {
    await this.client.send(new ChangeMessageVisibilityCommand({ QueueUrl: this.queueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: delaySeconds }));
  }
}
