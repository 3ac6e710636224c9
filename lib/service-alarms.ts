import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, type IMetric, MathExpression, Metric, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Operation, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { METRIC, METRICS_NAMESPACE, SERVICE_DIMENSION } from '../lambda/metric-names';

export interface ServiceAlarmsProps {
  /** Each REST API, keyed by a readable name used in its alarms' ids and descriptions. */
  readonly apis: Readonly<Record<string, RestApi>>;
  /** The functions' service name: their own metrics carry it as the `service` dimension. */
  readonly serviceName: string;
  readonly table: Table;
  /** Every operation a function makes on the table (lib/function-access.ts): a throttled one is an alarm. */
  readonly tableOperations: readonly Operation[];
  /** Each function, keyed by its construct id. */
  readonly functions: Readonly<Record<string, LambdaFunction>>;
  /** Dead-letter queues, keyed by a readable name: what lands in one is work that was not done. */
  readonly deadLetterQueues?: Readonly<Record<string, IQueue>>;
  readonly alarmEmail: string | undefined;
}

export const PERIOD = Duration.minutes(5);
/** Percent of requests answered 5xx (by the service or by the gateway) in one period. */
export const SERVER_ERROR_RATE_THRESHOLD_PERCENT = 5;
/**
 * The gateway's p99 latency, in ms, that is an alarm when it lasts LATENCY_PERIODS periods: answers take tens
 * of milliseconds, a cold start some hundreds; seconds for a quarter of an hour is a service in trouble.
 */
export const LATENCY_P99_THRESHOLD_MS = 2_000;
export const LATENCY_PERIODS = 3;
/** A function whose longest invocation came this close to its timeout answered later than every answer is due (5 s). */
export const DURATION_MARGIN = Duration.seconds(1);

/** One of the functions' own metrics (embedded metric format), summed over the alarms' period. */
export function serviceMetric(serviceName: string, metricName: string, statistic: string = Stats.SUM): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { [SERVICE_DIMENSION]: serviceName },
    statistic,
    period: PERIOD,
  });
}

/** How close to its timeout a function may run before its duration alarm fires. */
export const durationAlarmThreshold = (fn: LambdaFunction): Duration =>
  Duration.millis((fn.timeout ?? Duration.seconds(3)).toMilliseconds() - DURATION_MARGIN.toMilliseconds());

/**
 * What an operator must hear about: an API failing its callers or slowing down, the store throttling a
 * function, a function crashing outside its own error handling (init failure, timeout), being throttled or
 * running close to its timeout, an event left in a dead-letter queue, and a caller charged for our fault (a quota unit that could not be given
 * back). All alarms go to one SNS topic; `alarmEmail` subscribes an address to it.
 */
export class ServiceAlarms extends Construct {
  readonly topic: Topic;
  readonly storeThrottling: Alarm;
  readonly refundFailed: Alarm;
  readonly webhookDeliveryFailed: Alarm;
  /** Every alarm, by its construct id. */
  readonly all: ReadonlyMap<string, Alarm>;
  readonly #alarms = new Map<string, Alarm>();

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    this.all = this.#alarms;
    this.topic = new Topic(this, 'Topic', { enforceSSL: true });
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    const notify = new SnsAction(this.topic);

    for (const [name, api] of Object.entries(props.apis)) {
      const serverErrorRate = new MathExpression({
        label: '5xx responses (% of requests)',
        expression: 'IF(requests > 0, 100 * errors / requests, 0)',
        usingMetrics: {
          errors: api.metricServerError({ statistic: Stats.SUM, period: PERIOD }),
          requests: api.metricCount({ statistic: Stats.SUM, period: PERIOD }),
        },
        period: PERIOD,
      });
      this.alarm(`${name}ServerErrorRate`, serverErrorRate, {
        description: `More than ${SERVER_ERROR_RATE_THRESHOLD_PERCENT}% of the ${name} requests got a 5xx in 5 minutes.`,
        threshold: SERVER_ERROR_RATE_THRESHOLD_PERCENT,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      });
      this.alarm(`${name}Latency`, api.metricLatency({ statistic: Stats.p(99), period: PERIOD }), {
        description: `The ${name} answered its slowest 1% of requests in more than ${LATENCY_P99_THRESHOLD_MS} ms for ${LATENCY_PERIODS * 5} minutes.`,
        threshold: LATENCY_P99_THRESHOLD_MS,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: LATENCY_PERIODS,
      });
    }

    const throttled = props.table.metricThrottledRequestsForOperations({ operations: [...props.tableOperations], period: PERIOD });
    this.storeThrottling = this.alarm('StoreThrottling', throttled, {
      description: `DynamoDB throttled requests of the functions (${props.tableOperations.join(', ')}) in 5 minutes.`,
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });

    for (const [name, fn] of Object.entries(props.functions)) {
      this.alarm(`${name}Errors`, fn.metricErrors({ statistic: Stats.SUM, period: PERIOD }), {
        description: `The ${name} function failed outside its error handling (crash, init failure or timeout).`,
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      });
      this.alarm(`${name}Throttles`, fn.metricThrottles({ statistic: Stats.SUM, period: PERIOD }), {
        description: `Lambda refused invocations of the ${name} function (concurrency limit): the gateway answered 5xx.`,
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      });
      const threshold = durationAlarmThreshold(fn);
      this.alarm(`${name}Duration`, fn.metricDuration({ statistic: Stats.MAXIMUM, period: PERIOD }), {
        description: `An invocation of the ${name} function ran ${threshold.toMilliseconds()} ms or more, near its timeout.`,
        threshold: threshold.toMilliseconds(),
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      });
    }

    for (const [name, queue] of Object.entries(props.deadLetterQueues ?? {})) {
      this.alarm(`${name}DeadLetters`, queue.metricApproximateNumberOfMessagesVisible({ statistic: Stats.MAXIMUM, period: PERIOD }), {
        description: `Events are waiting in the ${name} dead-letter queue: work that failed after every retry and is not done (docs/rollouts.md, docs/events.md).`,
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      });
    }

    this.refundFailed = this.alarm('RefundFailed', serviceMetric(props.serviceName, METRIC.refundFailed), {
      description:
        'A quota unit taken for a request that failed (5xx) could not be given back: the key was charged for our fault. ' +
        'The request log line has usageReturnFailure and the keyId.',
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });

    this.webhookDeliveryFailed = this.alarm('WebhookDeliveryFailed', serviceMetric(props.serviceName, METRIC.webhookDeliveryFailed), {
      description:
        "A webhook delivery failed every attempt of its schedule (about 18 hours): the receiver is down or refuses. The delivery function's " +
        "'webhook delivery failed' log line names the account, webhook and event; the webhook's deliveries list every attempt.",
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });

    for (const alarm of this.#alarms.values()) {
      alarm.addAlarmAction(notify);
      alarm.addOkAction(notify);
    }
  }

  private alarm(
    id: string,
    metric: IMetric,
    options: { description: string; threshold: number; comparisonOperator: ComparisonOperator; evaluationPeriods?: number },
  ): Alarm {
    const alarm = new Alarm(this, id, {
      metric,
      alarmDescription: options.description,
      threshold: options.threshold,
      comparisonOperator: options.comparisonOperator,
      evaluationPeriods: options.evaluationPeriods ?? 1,
      // No traffic is no failure.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.#alarms.set(id, alarm);
    return alarm;
  }
}
