import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type AwsClientStub, mockClient } from 'aws-sdk-client-mock';

/**
 * The delivery queue as SQS keeps a standard queue, for the delivery function's tests, on the clock `Date.now()`
 * reads (a test moves it with jest's fake Date): a message sent with a delay is hidden that long; each receive hides
 * it for the queue's visibility timeout and counts in its ApproximateReceiveCount; ChangeMessageVisibility hides it
 * from then on; a message its batch answer does not name as a failure is deleted; one received maxReceiveCount times
 * and still failing goes to the dead-letter queue when received again, as the redrive policy moves it. Every
 * SQSClient's calls come here (aws-sdk-client-mock): what the function sends is what it receives next.
 */

interface Message {
  readonly messageId: string;
  readonly body: string;
  receives: number;
  visibleAt: number;
  receiptHandle?: string;
}

export interface SimulatedQueueOptions {
  readonly visibilityTimeoutSeconds: number;
  readonly maxReceiveCount: number;
  /** A record as Lambda hands one over (sample-events/webhook-delivery.json's): its fields other than body, id and counts. */
  readonly template: SQSRecord;
}

type Handler = (event: SQSEvent) => Promise<SQSBatchResponse>;

export class SimulatedQueue {
  readonly messages: Message[] = [];
  readonly deadLetters: Message[] = [];
  /** Every message the function sent, in order, as sent. */
  readonly sent: { body: string; delaySeconds: number }[] = [];
  private readonly stub: AwsClientStub<SQSClient>;
  private count = 0;

  constructor(private readonly options: SimulatedQueueOptions) {
    this.stub = mockClient(SQSClient);
    this.stub.on(SendMessageBatchCommand).callsFake((input: { Entries?: { Id?: string; MessageBody?: string; DelaySeconds?: number }[] }) => {
      for (const entry of input.Entries ?? []) this.send(entry.MessageBody ?? '', entry.DelaySeconds ?? 0);
      return { Successful: (input.Entries ?? []).map((entry) => ({ Id: entry.Id, MessageId: 'm', MD5OfMessageBody: '' })), Failed: [] };
    });
    this.stub.on(SendMessageCommand).callsFake((input: { MessageBody?: string; DelaySeconds?: number }) => {
      this.send(input.MessageBody ?? '', input.DelaySeconds ?? 0);
      return { MessageId: 'm' };
    });
    this.stub.on(ChangeMessageVisibilityCommand).callsFake((input: { ReceiptHandle?: string; VisibilityTimeout?: number }) => {
      const message = this.messages.find((each) => each.receiptHandle === input.ReceiptHandle);
      if (!message) throw Object.assign(new Error('ReceiptHandleIsInvalid'), { name: 'ReceiptHandleIsInvalid' });
      if ((input.VisibilityTimeout ?? 0) > 12 * 3600) throw Object.assign(new Error('visibility over 12 hours'), { name: 'InvalidParameterValue' });
      message.visibleAt = Date.now() + (input.VisibilityTimeout ?? 0) * 1000;
      return {};
    });
  }

  restore(): void {
    this.stub.restore();
  }

  /** A message in the queue, as the dispatcher's SendMessageBatch puts one. */
  send(body: string, delaySeconds = 0): void {
    if (delaySeconds > 900) throw Object.assign(new Error('DelaySeconds over 900'), { name: 'InvalidParameterValue' });
    this.count += 1;
    this.sent.push({ body, delaySeconds });
    this.messages.push({ messageId: `message-${this.count}`, body, receives: 0, visibleAt: Date.now() + delaySeconds * 1000 });
  }

  /** When the next message becomes visible, if any is waiting. */
  nextVisibleAt(): number | undefined {
    return this.messages.length === 0 ? undefined : Math.min(...this.messages.map((message) => message.visibleAt));
  }

  /**
   * One poll: the messages visible now (up to `batchSize`) handed to `handler` as one event, its answer applied.
   * `timedOut`: the invocation is cut off, as a timeout does: whatever it did stands, its answer is lost, and every
   * message it was handed comes back after the visibility timeout unless it changed that. Answers how many were handed over.
   */
  async poll(handler: Handler, { batchSize = 10, timedOut = false }: { batchSize?: number; timedOut?: boolean } = {}): Promise<number> {
    const now = Date.now();
    const visible = this.messages.filter((message) => message.visibleAt <= now);
    const batch: Message[] = [];
    for (const message of visible) {
      if (message.receives >= this.options.maxReceiveCount) {
        this.messages.splice(this.messages.indexOf(message), 1);
        this.deadLetters.push(message);
        continue;
      }
      if (batch.length < batchSize) batch.push(message);
    }
    if (batch.length === 0) return 0;
    for (const message of batch) {
      message.receives += 1;
      message.receiptHandle = `${message.messageId}-receive-${message.receives}`;
      message.visibleAt = now + this.options.visibilityTimeoutSeconds * 1000;
    }
    const event: SQSEvent = {
      Records: batch.map((message) => ({
        ...this.options.template,
        messageId: message.messageId,
        receiptHandle: message.receiptHandle ?? '',
        body: message.body,
        attributes: { ...this.options.template.attributes, ApproximateReceiveCount: String(message.receives) },
      })),
    };
    const answer = await handler(event);
    if (timedOut) return batch.length;
    const failed = new Set(answer.batchItemFailures.map((failure) => failure.itemIdentifier));
    for (const message of batch) if (!failed.has(message.messageId)) this.messages.splice(this.messages.indexOf(message), 1);
    return batch.length;
  }

  /**
   * Polls until the queue is empty or the clock passes `until`, moving the clock to each next visible message
   * (`advanceTo`: jest.setSystemTime). Answers the number of polls that handed messages over.
   */
  async drain(handler: Handler, advanceTo: (time: number) => void, until: number): Promise<number> {
    let polls = 0;
    for (let next = this.nextVisibleAt(); next !== undefined && next <= until; next = this.nextVisibleAt()) {
      if (next > Date.now()) advanceTo(next);
      if ((await this.poll(handler)) > 0) polls += 1;
    }
    return polls;
  }
}
