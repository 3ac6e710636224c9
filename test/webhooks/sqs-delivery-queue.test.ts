import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import type { DeliveryJob } from '../../lambda/webhook-delivery/delivery-job';
import { SQS_MAX_DELAY_SECONDS, SQS_MAX_HIDE_SECONDS, SqsDeliveryQueue } from '../../lambda/webhook-delivery/sqs-delivery-queue';

/** The deployed delivery queue's calls (lambda/webhook-delivery/sqs-delivery-queue.ts), as SQS receives them. */

const sqs = mockClient(SQSClient);
const queue = new SqsDeliveryQueue(new SQSClient({ region: 'us-east-1' }), 'https://sqs.us-east-1.amazonaws.com/123456789012/delivery');
afterEach(() => sqs.reset());

const job = (accountId: string, n: number): DeliveryJob => ({
  accountId,
  webhookId: `wh_${n.toString(16).padStart(16, '0')}`,
  attempt: 1,
  event: {
    id: 'evt_20261127054200123_1a2b3c4d',
    type: 'key.created',
    time: '2026-11-27T05:42:00.123Z',
    accountId,
    actor: { type: 'cli', operator: 't' },
    data: {},
  },
});

test("each message's group is its job's account, which makes the standard queue fair between accounts", async () => {
  sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
  await queue.enqueue([job('acme', 1), job('globex', 2), job('acme', 3)]);
  const [call] = sqs.commandCalls(SendMessageBatchCommand);
  expect(call?.args[0].input.Entries?.map((entry) => [entry.MessageGroupId, JSON.parse(entry.MessageBody ?? '{}').webhookId])).toEqual([
    ['acme', 'wh_0000000000000001'],
    ['globex', 'wh_0000000000000002'],
    ['acme', 'wh_0000000000000003'],
  ]);
  expect(call?.args[0].input.Entries?.every((entry) => entry.DelaySeconds === undefined)).toBe(true);
});

test('jobs go ten to a call, as SendMessageBatch takes them', async () => {
  sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
  await queue.enqueue(Array.from({ length: 23 }, (_, n) => job('acme', n)));
  expect(sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input.Entries?.length)).toEqual([10, 10, 3]);
});

test("a delay past SQS's 15 minutes is sent as 15 minutes: the job's dueAt holds the rest", async () => {
  sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
  await queue.enqueue([job('acme', 1)], 5);
  await queue.enqueue([{ ...job('acme', 2), dueAt: '2026-11-27T07:42:00.123Z' }], 7200);
  expect(sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input.Entries?.[0]?.DelaySeconds)).toEqual([5, SQS_MAX_DELAY_SECONDS]);
  expect(SQS_MAX_DELAY_SECONDS).toBe(900);
});

test('a message refused by SQS fails the whole enqueue, for the caller to run again', async () => {
  sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [{ Id: '0', Code: 'InternalError', SenderFault: false }] });
  await expect(queue.enqueue([job('acme', 1)])).rejects.toThrow('SQS refused 1 of 1 delivery job(s): InternalError');
});

test('a message is hidden for as long as asked, at most 12 hours less 5 minutes from its receive', async () => {
  sqs.on(ChangeMessageVisibilityCommand).resolves({});
  await queue.hide('receipt-1', 300.2);
  await queue.hide('receipt-2', 36_000);
  await queue.hide('receipt-3', 50_000);
  expect(sqs.commandCalls(ChangeMessageVisibilityCommand).map((call) => [call.args[0].input.ReceiptHandle, call.args[0].input.VisibilityTimeout])).toEqual([
    ['receipt-1', 301],
    ['receipt-2', 36_000],
    ['receipt-3', SQS_MAX_HIDE_SECONDS],
  ]);
});
