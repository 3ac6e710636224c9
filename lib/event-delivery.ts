import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { AnyPrincipal, Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { EVENT_ITEM_TYPE } from '../lambda/event-dispatch/stream-records';
import { triesToOutlast } from '../lambda/webhook-delivery/delivery-job';
import { ApiFunction } from './api-function';
import { accessOf, type FunctionAccess } from './function-access';
import { acknowledgeGuardRule } from './policy-checks';
import type { PromptTable } from './prompt-table';

/**
 * Events and webhooks, deployed (docs/events.md "How it is delivered"): the dispatcher on the table's stream and
 * the delivery function on the delivery queue, by construct id (`sam local invoke <id>Function`).
 */
export const EVENT_DELIVERY_FUNCTIONS = [
  {
    id: 'EventDispatcher',
    entry: 'lambda/event-dispatch/dispatch-function.ts',
    description: 'Events: publishes new event items on the bus and queues their webhook deliveries',
  },
  {
    id: 'WebhookDelivery',
    entry: 'lambda/webhook-delivery/delivery-function.ts',
    description: 'Webhooks: delivers queued events to webhooks, signed, retried on a schedule',
  },
] as const;

/** Only what the outbox writes, and only when it is written: an update or TTL's removal of an event is no new event. */
export const DISPATCH_FILTER = {
  eventName: ['INSERT'],
  dynamodb: { NewImage: { type: { S: [EVENT_ITEM_TYPE] } } },
} as const;

/** Event items a dispatcher invocation takes at once: one query of webhooks per account of the batch. */
export const DISPATCH_BATCH_SIZE = 100;
/**
 * A failing batch is split in halves until the failing record is alone, and each part retried this often: then its
 * stream position goes to the on-failure queue and the shard moves on.
 */
export const DISPATCH_RETRY_ATTEMPTS = 10;
/** A record still not dispatched after a day (the stream keeps 24 h) goes to the on-failure queue. */
export const DISPATCH_MAX_RECORD_AGE = Duration.hours(24);
/** A batch: a query per account, PutEvents and SendMessageBatch calls, each with the SDK's own retries. */
export const DISPATCH_TIMEOUT = Duration.seconds(60);
/**
 * One invocation per stream shard at a time (Lambda's default, set so it stays): one account's burst of changes is in
 * its own partition, so in one shard, and holds one invocation however big it is.
 */
export const DISPATCH_PARALLELIZATION = 1;

/** Jobs a delivery invocation takes at once, run concurrently: each attempt stops at 10 s. */
export const DELIVERY_BATCH_SIZE = 10;
/**
 * A run of a job: the webhook read, DNS (5 s at most), KMS (two tries of at most 4 s), the claim, the POST (10 s),
 * the line, the next job sent to SQS (three tries of at most 4 s): about a minute when every one of them is as slow
 * as it may be. A run cut off even so is never sent again: its claim outlives it (ATTEMPT_LEASE_SECONDS).
 */
export const DELIVERY_TIMEOUT = Duration.seconds(60);
/** Six times the function's timeout, as Lambda advises for SQS: a message whose invocation crashed comes back after it. */
export const DELIVERY_VISIBILITY_TIMEOUT = Duration.minutes(6);
/** An outage of the store, KMS or SQS this long delays deliveries without failing any (docs/events.md "Delivery"). */
export const DELIVERY_OUTAGE_OUTLASTED = Duration.hours(24);
/**
 * Receives of one message beside an outage's: the early one of a job due later than SQS delays a message, one or
 * two that find the attempt held by another run, and the one that succeeds.
 */
const RECEIVES_BESIDE_AN_OUTAGE = 4;
/**
 * A job's number is its own, so receives count only the runs that could not process it: the redrive policy allows
 * as many as an outage of DELIVERY_OUTAGE_OUTLASTED takes at the processing backoff (10 s doubling to 15 min: 102
 * for a day) and a few more. Beyond that a message is one the function cannot process, for the operator.
 */
export const DELIVERY_MAX_RECEIVES = triesToOutlast(DELIVERY_OUTAGE_OUTLASTED.toSeconds()) + RECEIVES_BESIDE_AN_OUTAGE;
/** A message lives for its wait (10 h at most) and an outage (a day); four days leave room for more. */
export const DELIVERY_RETENTION = Duration.days(4);
/** What lands in a dead-letter queue waits there for the operator two weeks, SQS's longest. */
const DEAD_LETTER_RETENTION = Duration.days(14);

export interface EventDeliveryProps {
  readonly table: PromptTable;
  readonly serviceName: string;
  readonly logLevel: string;
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  /** The key's: a retained stack keeps the key that opens its webhooks' stored secrets. */
  readonly keyRemovalPolicy: RemovalPolicy;
  /** Invocations of the delivery function at once, at most (its SQS event source's maximum concurrency). */
  readonly deliveryConcurrency: number;
  /** Reserve that many for the delivery function too (docs/deploy.md "Concurrency"). */
  readonly reservedConcurrency?: boolean;
}

/**
 * The stream to the dispatcher (an event source mapping with a filter: no polling loop of ours), the stack's
 * EventBridge bus, the delivery queue and its function, and the KMS key that seals webhook secrets. Each function
 * holds what lib/function-access.ts grants it: PutEvents on this bus alone, the queue's one action it calls, the
 * key's one action it needs.
 */
export class EventDelivery extends Construct {
  readonly bus: EventBus;
  readonly dispatcher: ApiFunction;
  readonly delivery: ApiFunction;
  readonly deliveryQueue: Queue;
  /** Deliveries the function could not process after DELIVERY_MAX_RECEIVES receives. */
  readonly deliveryDeadLetters: Queue;
  /** Stream positions of batches the dispatcher could not dispatch after every retry. */
  readonly dispatchFailures: Queue;
  readonly webhookKey: Key;

  constructor(scope: Construct, id: string, props: EventDeliveryProps) {
    super(scope, id);
    const [dispatcherSpec, deliverySpec] = EVENT_DELIVERY_FUNCTIONS;
    this.bus = new EventBus(this, 'Bus', { description: 'Prompt retrieval: every committed change of every account (source prompt-retrieval)' });
    this.webhookKey = new Key(this, 'WebhookSecretsKey', {
      description: 'Seals webhook signing secrets: the management functions encrypt, the delivery function decrypts',
      enableKeyRotation: true,
      removalPolicy: props.keyRemovalPolicy,
    });
    // Only AWS services acting for a resource may be given grants on it: no principal hands its use on to another.
    this.webhookKey.addToResourcePolicy(
      new PolicyStatement({
        sid: 'GrantsOnlyForAwsResources',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['kms:CreateGrant'],
        resources: ['*'],
        conditions: { BoolIfExists: { 'kms:GrantIsForAWSResource': 'false', 'aws:PrincipalIsAWSService': 'false' } },
      }),
    );

    this.dispatchFailures = this.deadLetterQueue('DispatchFailures', "the dispatcher's event source mapping (its on-failure destination)");
    // cdk-nag sees a queue's redrive policy, not an event source mapping's on-failure destination.
    Validations.of(this.dispatchFailures).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: "It is the on-failure destination of the dispatcher's event source mapping, where what failed after every retry waits for the operator.",
    });
    this.deliveryDeadLetters = this.deadLetterQueue('DeliveryDeadLetters', 'the delivery queue (its redrive policy)');
    this.deliveryQueue = new Queue(this, 'DeliveryQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: DELIVERY_VISIBILITY_TIMEOUT,
      retentionPeriod: DELIVERY_RETENTION,
      deadLetterQueue: { queue: this.deliveryDeadLetters, maxReceiveCount: DELIVERY_MAX_RECEIVES },
    });

    const environment = {
      TABLE_NAME: props.table.table.tableName,
      DELIVERY_QUEUE_URL: this.deliveryQueue.queueUrl,
      POWERTOOLS_SERVICE_NAME: props.serviceName,
      POWERTOOLS_LOG_LEVEL: props.logLevel,
    };
    const eventFunction = (spec: (typeof EVENT_DELIVERY_FUNCTIONS)[number], timeout: Duration, extra: Record<string, string>, reserved?: number) => {
      const fn = new ApiFunction(this, spec.id, {
        entry: spec.entry,
        description: spec.description,
        environment: { ...environment, ...extra },
        logRetention: props.logRetention,
        logRemovalPolicy: props.logRemovalPolicy,
        timeout,
        ...(reserved === undefined ? {} : { reservedConcurrency: reserved }),
      });
      props.table.grant(fn.role, accessOf(spec.id).table);
      this.grantEventAccess(fn, accessOf(spec.id));
      Validations.of(fn.function).acknowledge({
        id: 'AwsSolutions-L1',
        reason: 'Built and tested for nodejs22.x like the APIs; a newer runtime is a deliberate upgrade with its own test run.',
      });
      return fn;
    };

    this.dispatcher = eventFunction(dispatcherSpec, DISPATCH_TIMEOUT, { EVENT_BUS_NAME: this.bus.eventBusName });
    this.dispatcher.function.addEventSource(
      new DynamoEventSource(props.table.table, {
        startingPosition: StartingPosition.LATEST,
        batchSize: DISPATCH_BATCH_SIZE,
        bisectBatchOnError: true,
        parallelizationFactor: DISPATCH_PARALLELIZATION,
        retryAttempts: DISPATCH_RETRY_ATTEMPTS,
        maxRecordAge: DISPATCH_MAX_RECORD_AGE,
        onFailure: new SqsDlq(this.dispatchFailures),
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.isEqual(DISPATCH_FILTER.eventName[0]),
            dynamodb: { NewImage: { type: { S: FilterRule.isEqual(DISPATCH_FILTER.dynamodb.NewImage.type.S[0]) } } },
          }),
        ],
      }),
    );

    Validations.of(this.dispatcher.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        "The event source mapping's dynamodb:ListStreams, which IAM cannot scope to a table (it names no resource); the " +
        "stream's reads are on this table's stream ARN.",
    });

    // At most deliveryConcurrency invocations, each DELIVERY_BATCH_SIZE jobs: the read functions keep the rest of the
    // account's concurrency however many deliveries one account queues or however long its receivers hang; within
    // that bound the queue is fair between accounts (sqs-delivery-queue.ts). Reserved too when the setting says so,
    // as many as the event source may use, so it is never throttled.
    this.delivery = eventFunction(deliverySpec, DELIVERY_TIMEOUT, {}, props.reservedConcurrency ? props.deliveryConcurrency : undefined);
    this.delivery.function.addEventSource(
      new SqsEventSource(this.deliveryQueue, { batchSize: DELIVERY_BATCH_SIZE, reportBatchItemFailures: true, maxConcurrency: props.deliveryConcurrency }),
    );
  }

  /**
   * A function's rights on the bus, the queue and the key, as lib/function-access.ts lists them (the management
   * function that creates and rotates webhooks gets its kms:Encrypt here too); a function with any right on the key
   * is told which key it is.
   */
  grantEventAccess(fn: ApiFunction, access: FunctionAccess): void {
    const statements: [string, readonly string[] | undefined, string][] = [
      ['EventBus', access.bus, this.bus.eventBusArn],
      ['DeliveryQueue', access.deliveryQueue, this.deliveryQueue.queueArn],
      ['WebhookSecretsKey', access.webhookKey, this.webhookKey.keyArn],
    ];
    for (const [sid, actions, resource] of statements) {
      if (!actions || actions.length === 0) continue;
      fn.role.addToPrincipalPolicy(new PolicyStatement({ sid, actions: [...actions], resources: [resource] }));
    }
    if ((access.webhookKey?.length ?? 0) > 0) fn.function.addEnvironment('WEBHOOK_KEY_ID', this.webhookKey.keyArn);
  }

  private deadLetterQueue(id: string, of: string): Queue {
    const queue = new Queue(this, id, { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: DEAD_LETTER_RETENTION });
    acknowledgeGuardRule(
      queue,
      'sqs_dlq_check',
      `It is the dead-letter queue of ${of}: a queue of what failed after every retry needs no dead-letter queue of its own.`,
    );
    return queue;
  }
}
