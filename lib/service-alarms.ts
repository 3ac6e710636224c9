import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  MathExpression,
  Metric,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { METRIC, METRICS_NAMESPACE, SERVICE_DIMENSION } from '../lambda/metric-names';
import { API_TABLE_OPERATIONS } from './prompt-table';

export interface ServiceAlarmsProps {
  readonly api: RestApi;
  /** The functions' service name: their own metrics carry it as the `service` dimension. */
  readonly serviceName: string;
  readonly table: Table;
  /** Keyed by a readable name used in the alarm's id. */
  readonly functions: Readonly<Record<string, IFunction>>;
  readonly alarmEmail: string | undefined;
}

export const PERIOD = Duration.minutes(5);
/** Percent of requests answered 5xx (by the service or by the gateway) in one period. */
export const SERVER_ERROR_RATE_THRESHOLD_PERCENT = 5;

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

/**
 * What an operator must hear about: the API failing callers, the store throttling it, a function
 * crashing outside its own error handling (init failure, timeout), and a caller charged for our fault
 * (a quota unit that could not be given back). All alarms go to one SNS topic; `alarmEmail` subscribes
 * an address to it.
 */
export class ServiceAlarms extends Construct {
  readonly topic: Topic;
  readonly serverErrorRate: Alarm;
  readonly storeThrottling: Alarm;
  readonly functionErrors: Alarm[];
  readonly refundFailed: Alarm;

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    this.topic = new Topic(this, 'Topic', { enforceSSL: true });
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    const notify = new SnsAction(this.topic);

    const serverErrorRate = new MathExpression({
      label: '5xx responses (% of requests)',
      expression: 'IF(requests > 0, 100 * errors / requests, 0)',
      usingMetrics: {
        errors: props.api.metricServerError({ statistic: Stats.SUM, period: PERIOD }),
        requests: props.api.metricCount({ statistic: Stats.SUM, period: PERIOD }),
      },
      period: PERIOD,
    });
    this.serverErrorRate = this.alarm('ServerErrorRate', serverErrorRate, {
      description: `More than ${SERVER_ERROR_RATE_THRESHOLD_PERCENT}% of API requests got a 5xx in 5 minutes.`,
      threshold: SERVER_ERROR_RATE_THRESHOLD_PERCENT,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });

    const throttled = props.table.metricThrottledRequestsForOperations({
      operations: [...API_TABLE_OPERATIONS],
      period: PERIOD,
    });
    this.storeThrottling = this.alarm('StoreThrottling', throttled, {
      description: 'DynamoDB throttled requests of the API (GetItem, Query, UpdateItem) in 5 minutes.',
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });

    this.functionErrors = Object.entries(props.functions).map(([name, fn]) =>
      this.alarm(`${name}Errors`, fn.metricErrors({ statistic: Stats.SUM, period: PERIOD }), {
        description: `The ${name} function failed outside its error handling (crash, init failure or timeout).`,
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      }),
    );

    this.refundFailed = this.alarm('RefundFailed', serviceMetric(props.serviceName, METRIC.refundFailed), {
      description:
        'A quota unit taken for a request that failed (5xx) could not be given back: the key was charged for our fault. ' +
        'The request log line has usageReturnFailure and the keyId.',
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });

    for (const alarm of [this.serverErrorRate, this.storeThrottling, ...this.functionErrors, this.refundFailed]) {
      alarm.addAlarmAction(notify);
      alarm.addOkAction(notify);
    }
  }

  private alarm(
    id: string,
    metric: IMetric,
    options: { description: string; threshold: number; comparisonOperator: ComparisonOperator },
  ): Alarm {
    return new Alarm(this, id, {
      metric,
      alarmDescription: options.description,
      threshold: options.threshold,
      comparisonOperator: options.comparisonOperator,
      evaluationPeriods: 1,
      // No traffic is no failure.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
}
