import type { CfnElement } from 'aws-cdk-lib';
import { TTL_ATTRIBUTE } from '../../lambda/table/schema';
import { ATTEMPT_LEASE_SECONDS, processingRetryDelay, RETRY_DELAYS_SECONDS } from '../../lambda/webhook-delivery/delivery-job';
import { SQS_MAX_HIDE_SECONDS } from '../../lambda/webhook-delivery/sqs-delivery-queue';
import {
  DELIVERY_BATCH_SIZE,
  DELIVERY_MAX_RECEIVES,
  DELIVERY_OUTAGE_OUTLASTED,
  DELIVERY_RETENTION,
  DELIVERY_TIMEOUT,
  DELIVERY_VISIBILITY_TIMEOUT,
  DISPATCH_BATCH_SIZE,
  DISPATCH_FILTER,
  DISPATCH_PARALLELIZATION,
  DISPATCH_RETRY_ATTEMPTS,
} from '../../lib/event-delivery';
import { DEFAULT_SETTINGS } from '../../lib/stack-config';
import { synthesizeService } from './synth';

/**
 * Events and webhooks, deployed (docs/events.md "How it is delivered"), read from the template: the table's stream and
 * TTL, the dispatcher's event source mapping, the bus, the delivery queue and its function, the webhook key. Their
 * rights are held to their code in function-access.test.ts, their samples in sam-local.test.ts.
 */

type Resource = { Type: string; Properties: Record<string, unknown>; UpdateReplacePolicy?: string };
const { stack, template } = synthesizeService();
const resources = template.toJSON().Resources as Record<string, Resource>;
const logicalId = (construct: { node: { defaultChild?: unknown } }): string => stack.getLogicalId(construct.node.defaultChild as CfnElement);
const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);
const propertiesOf = (construct: { node: { defaultChild?: unknown } }): Record<string, unknown> => resources[logicalId(construct)]?.Properties ?? {};
const getAtt = (construct: { node: { defaultChild?: unknown } }, attribute = 'Arn') => ({ 'Fn::GetAtt': [logicalId(construct), attribute] });

function mappingOf(fn: { node: { defaultChild?: unknown } }): Record<string, unknown> {
  const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(
    ([, mapping]) => JSON.stringify(mapping.Properties.FunctionName) === JSON.stringify({ Ref: logicalId(fn) }),
  );
  expect(mappings).toHaveLength(1);
  return mappings[0]?.[1].Properties ?? {};
}

describe('the table', () => {
  it('streams new images and expires items on `ttl`: both updates in place of the existing table', () => {
    expect(propertiesOf(stack.table.table)).toMatchObject({
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    });
  });
});

describe('the dispatcher', () => {
  const mapping = mappingOf(stack.events.dispatcher.function);

  it("reads the table's stream through an event source mapping that lets only event items' inserts through", () => {
    expect(mapping.EventSourceArn).toEqual(getAtt(stack.table.table, 'StreamArn'));
    expect(mapping).toMatchObject({ StartingPosition: 'LATEST', BatchSize: DISPATCH_BATCH_SIZE });
    expect((mapping.FilterCriteria as { Filters: { Pattern: string }[] }).Filters.map((filter) => JSON.parse(filter.Pattern))).toEqual([DISPATCH_FILTER]);
  });

  it('splits a failing batch, retries it a bounded number of times for at most a day, then leaves it in the on-failure queue', () => {
    expect(mapping).toMatchObject({
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: DISPATCH_RETRY_ATTEMPTS,
      MaximumRecordAgeInSeconds: 24 * 3600,
      DestinationConfig: { OnFailure: { Destination: getAtt(stack.events.dispatchFailures) } },
    });
  });

  it("runs one invocation per stream shard at a time: one account's burst of changes, in its own partition, holds one", () => {
    expect(DISPATCH_PARALLELIZATION).toBe(1);
    expect(mapping.ParallelizationFactor).toBe(DISPATCH_PARALLELIZATION);
  });

  it("is told the bus and the queue, and its bus is the stack's own, named in the outputs", () => {
    const variables = (propertiesOf(stack.events.dispatcher.function).Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables).toMatchObject({
      EVENT_BUS_NAME: { Ref: logicalId(stack.events.bus) },
      DELIVERY_QUEUE_URL: { Ref: logicalId(stack.events.deliveryQueue) },
    });
    expect(template.findOutputs('EventBusName').EventBusName?.Value).toEqual({ Ref: logicalId(stack.events.bus) });
  });
});

describe('the delivery queue and function', () => {
  it('is encrypted, refuses requests without TLS, and sends a message to its dead-letter queue after the receives of a day-long outage', () => {
    expect(propertiesOf(stack.events.deliveryQueue)).toMatchObject({
      SqsManagedSseEnabled: true,
      VisibilityTimeout: DELIVERY_VISIBILITY_TIMEOUT.toSeconds(),
      MessageRetentionPeriod: DELIVERY_RETENTION.toSeconds(),
      RedrivePolicy: { deadLetterTargetArn: getAtt(stack.events.deliveryDeadLetters), maxReceiveCount: DELIVERY_MAX_RECEIVES },
    });
    for (const queue of [stack.events.deliveryQueue, stack.events.deliveryDeadLetters, stack.events.dispatchFailures]) {
      const policies = ofType('AWS::SQS::QueuePolicy').filter(
        ([, policy]) => JSON.stringify(policy.Properties.Queues) === JSON.stringify([{ Ref: logicalId(queue) }]),
      );
      expect(JSON.stringify(policies.map(([, policy]) => policy.Properties.PolicyDocument))).toContain('"aws:SecureTransport":"false"');
      expect(propertiesOf(queue).SqsManagedSseEnabled).toBe(true);
    }
  });

  it('feeds the delivery function batches whose items fail alone, with a visibility longer than its timeout', () => {
    const mapping = mappingOf(stack.events.delivery.function);
    expect(mapping).toMatchObject({
      EventSourceArn: getAtt(stack.events.deliveryQueue),
      BatchSize: DELIVERY_BATCH_SIZE,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(DELIVERY_VISIBILITY_TIMEOUT.toSeconds()).toBeGreaterThan(DELIVERY_TIMEOUT.toSeconds());
    expect(propertiesOf(stack.events.delivery.function).Timeout).toBe(DELIVERY_TIMEOUT.toSeconds());
  });
});

describe('how many deliveries run at once', () => {
  const deliveryMapping = (template: ReturnType<typeof synthesizeService>['template']) =>
    Object.values(template.toJSON().Resources as Record<string, Resource>).filter(
      (resource) => resource.Type === 'AWS::Lambda::EventSourceMapping' && resource.Properties.FunctionResponseTypes !== undefined,
    );

  it('at most 10 invocations of the delivery function (its SQS event source), reserving none: the read functions keep the rest', () => {
    expect(DEFAULT_SETTINGS.deliveryConcurrency).toBe(10);
    expect(mappingOf(stack.events.delivery.function).ScalingConfig).toEqual({ MaximumConcurrency: 10 });
    expect(propertiesOf(stack.events.delivery.function).ReservedConcurrentExecutions).toBeUndefined();
  });

  it('as many as -c deliveryConcurrency says, and reserved too with -c reservedConcurrency=true, so the event source is never throttled', () => {
    const { template: reserved } = synthesizeService({ context: { deliveryConcurrency: '40', reservedConcurrency: 'true' } });
    const [mapping] = deliveryMapping(reserved);
    expect(mapping?.Properties.ScalingConfig).toEqual({ MaximumConcurrency: 40 });
    const delivery = Object.values(reserved.toJSON().Resources as Record<string, Resource>).find(
      (resource) => resource.Type === 'AWS::Lambda::Function' && JSON.stringify(resource).includes('WebhookDeliveryFunction'),
    );
    expect(delivery?.Properties.ReservedConcurrentExecutions).toBe(40);
  });
});

describe('the numbers a delivery lives by', () => {
  const waitedOver = (tries: number) => Array.from({ length: tries }, (_, index) => processingRetryDelay(index + 1)).reduce((sum, delay) => sum + delay, 0);

  it('lets a job fail to be processed for a whole day at the backoff (10 s doubling to 15 min) before its message is a dead letter', () => {
    expect(DELIVERY_OUTAGE_OUTLASTED.toHours()).toBe(24);
    expect([DELIVERY_MAX_RECEIVES, waitedOver(DELIVERY_MAX_RECEIVES - 4)]).toEqual([106, 86_770]);
    expect(waitedOver(DELIVERY_MAX_RECEIVES - 4)).toBeGreaterThanOrEqual(DELIVERY_OUTAGE_OUTLASTED.toSeconds());
  });

  it("keeps a message for its longest wait and a day's outage, and a received one hidden for the longest wait", () => {
    const longestWait = Math.max(...RETRY_DELAYS_SECONDS);
    expect(DELIVERY_RETENTION.toSeconds()).toBeGreaterThan(longestWait + DELIVERY_OUTAGE_OUTLASTED.toSeconds() + waitedOver(DELIVERY_MAX_RECEIVES));
    expect(SQS_MAX_HIDE_SECONDS).toBeGreaterThan(longestWait);
  });

  it("holds an attempt's claim past any run (the function's timeout), and hides a crashed run's message past the claim", () => {
    expect(DELIVERY_TIMEOUT.toSeconds()).toBeLessThan(ATTEMPT_LEASE_SECONDS);
    expect(ATTEMPT_LEASE_SECONDS).toBeLessThan(DELIVERY_VISIBILITY_TIMEOUT.toSeconds());
    expect(DELIVERY_VISIBILITY_TIMEOUT.toSeconds()).toBeGreaterThanOrEqual(6 * DELIVERY_TIMEOUT.toSeconds());
  });
});

describe('the webhook key', () => {
  it('rotates, and is named to the delivery function and the webhooks management function alone', () => {
    expect(propertiesOf(stack.events.webhookKey)).toMatchObject({ EnableKeyRotation: true });
    const told = ofType('AWS::Lambda::Function')
      .filter(([, fn]) => (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables?.WEBHOOK_KEY_ID !== undefined)
      .map(([id]) => id)
      .sort();
    expect(told).toEqual(
      [logicalId(stack.events.delivery.function), logicalId(stack.managementApi.functions.ManageWebhooks?.function ?? stack.events.delivery.function)].sort(),
    );
  });
});

describe('the alarms', () => {
  it('watch failed deliveries, both dead-letter queues, and the two functions', () => {
    expect([...stack.alarms.all.keys()]).toEqual(
      expect.arrayContaining([
        'WebhookDeliveryFailed',
        'EventDispatchDeadLetters',
        'WebhookDeliveryDeadLetters',
        'EventDispatcherErrors',
        'WebhookDeliveryErrors',
      ]),
    );
  });
});
