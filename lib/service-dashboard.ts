import type { CfnResource } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { type Alarm, AlarmWidget, Dashboard, GraphWidget, type IWidget, MathExpression, Stats, TextWidget } from 'aws-cdk-lib/aws-cloudwatch';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { METRIC, METRICS_NAMESPACE, REQUEST_DIMENSIONS, SERVICE_DIMENSION } from '../lambda/metric-names';
import { suppressLintFinding } from './policy-checks';
import { durationAlarmThreshold, PERIOD, serviceMetric } from './service-alarms';
import { regionalName } from './stack-config';

export interface ServiceDashboardProps {
  readonly stage: string;
  readonly serviceName: string;
  /** The read API: its gateway latency beside the functions', its access log for the gateway's own 429s. */
  readonly api: RestApi;
  readonly accessLogs: ILogGroup;
  readonly refundFailed: Alarm;
  /** Every REST API, keyed by a readable name: requests, errors and latency of each. */
  readonly apis: Readonly<Record<string, RestApi>>;
  /** Every function, keyed by its construct id: invocations, errors, throttles and duration of each. */
  readonly functions: Readonly<Record<string, LambdaFunction>>;
}

/** Graphs in a row of the dashboard's 24 columns. */
const PER_ROW = 3;
const WIDTH = 24 / PER_ROW;

/**
 * One CloudWatch dashboard of the service's own metrics (written by the functions in embedded metric
 * format) beside the gateway's: requests by route and status, the refusals (401, 429, 503, and the
 * gateway's own 429s, counted from its access log), failed quota refunds with their alarm, and latency
 * of the requests and of the store.
 */
export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;
  readonly gatewayThrottles: MetricFilter;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const { serviceName } = props;
    const metric = (name: string, statistic: string = Stats.SUM) => serviceMetric(serviceName, name, statistic);

    this.gatewayThrottles = new MetricFilter(this, 'GatewayThrottles', {
      logGroup: props.accessLogs,
      filterPattern: FilterPattern.any(
        FilterPattern.stringValue('$.responseType', '=', 'THROTTLED'),
        FilterPattern.stringValue('$.responseType', '=', 'WAF_FILTERED'),
      ),
      metricNamespace: METRICS_NAMESPACE,
      metricName: METRIC.gatewayThrottled,
      metricValue: '1',
      dimensions: { [SERVICE_DIMENSION]: '$.service' },
    });

    // Every route and status seen, however many: a search, as dashboards (unlike alarms) allow.
    const requestsByRouteAndStatus = new MathExpression({
      label: '',
      expression:
        `SEARCH('{${METRICS_NAMESPACE},${SERVICE_DIMENSION},${REQUEST_DIMENSIONS.route},${REQUEST_DIMENSIONS.status}} ` +
        `MetricName="${METRIC.requests}" ${SERVICE_DIMENSION}="${serviceName}"', 'Sum', ${PERIOD.toSeconds()})`,
      period: PERIOD,
    });

    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: regionalName(props.stage, 'dashboard'),
      widgets: [
        [
          new TextWidget({
            markdown:
              `**Prompt service (${props.stage})**: the functions' own metrics (namespace \`${METRICS_NAMESPACE}\`, ` +
              `service \`${serviceName}\`) beside API Gateway's. One request line per request in the functions' log groups.`,
            width: 24,
            height: 2,
          }),
        ],
        [
          new GraphWidget({ title: 'Requests by route and status', left: [requestsByRouteAndStatus], width: 12, stacked: true }),
          new GraphWidget({
            title: 'Refused: 401, 429 (quota and gateway), 503',
            left: [
              metric(METRIC.unauthorized).with({ label: '401 Unauthorized' }),
              metric(METRIC.usageLimitExceeded).with({ label: '429 monthly quota' }),
              metric(METRIC.gatewayThrottled).with({ label: '429 gateway (rate, per-IP rule)' }),
              metric(METRIC.serviceUnavailable).with({ label: '503 store unavailable' }),
            ],
            width: 12,
          }),
        ],
        [
          new AlarmWidget({ title: 'Quota units not given back (RefundFailed)', alarm: props.refundFailed, width: 8 }),
          new GraphWidget({
            title: 'Store latency per round trip (ms)',
            left: [
              metric(METRIC.storeLatency, Stats.p(50)).with({ label: 'p50' }),
              metric(METRIC.storeLatency, Stats.p(99)).with({ label: 'p99' }),
              metric(METRIC.storeLatency, Stats.MAXIMUM).with({ label: 'max' }),
            ],
            width: 8,
          }),
          new GraphWidget({
            title: 'Request latency (ms): function and gateway',
            left: [
              metric(METRIC.latency, Stats.p(50)).with({ label: 'function p50' }),
              metric(METRIC.latency, Stats.p(99)).with({ label: 'function p99' }),
              props.api.metricLatency({ statistic: Stats.p(99), period: PERIOD }).with({ label: 'gateway p99' }),
            ],
            width: 8,
          }),
        ],
        ...rowsOf(Object.entries(props.apis).map(([name, api]) => apiWidget(name, api))),
        ...rowsOf(Object.entries(props.functions).map(([name, fn]) => functionWidget(name, fn))),
      ],
    });
    suppressLintFinding(
      this.dashboard.node.defaultChild as CfnResource,
      'E3002',
      "CloudFormation takes Tags on AWS::CloudWatch::Dashboard (the stack's service and stage tags); the resource " +
        'schema of the cfn-lint in use (1.51) predates them. Kept: tags are how the stage is found in the bill.',
    );
  }
}

/** An API as API Gateway counts it: requests, 4xx and 5xx on the left, p50 and p99 latency on the right. */
function apiWidget(name: string, api: RestApi): IWidget {
  const sum = { statistic: Stats.SUM, period: PERIOD };
  return new GraphWidget({
    title: `${name}: requests, 4xx, 5xx; latency (ms)`,
    left: [
      api.metricCount(sum).with({ label: 'requests' }),
      api.metricClientError(sum).with({ label: '4xx' }),
      api.metricServerError(sum).with({ label: '5xx' }),
    ],
    right: [
      api.metricLatency({ statistic: Stats.p(50), period: PERIOD }).with({ label: 'p50' }),
      api.metricLatency({ statistic: Stats.p(99), period: PERIOD }).with({ label: 'p99' }),
    ],
    width: WIDTH,
  });
}

/** A function as Lambda counts it: invocations, errors and throttles on the left, duration against its alarm on the right. */
function functionWidget(name: string, fn: LambdaFunction): IWidget {
  const sum = { statistic: Stats.SUM, period: PERIOD };
  return new GraphWidget({
    title: `${name}: invocations, errors, throttles; duration (ms)`,
    left: [
      fn.metricInvocations(sum).with({ label: 'invocations' }),
      fn.metricErrors(sum).with({ label: 'errors' }),
      fn.metricThrottles(sum).with({ label: 'throttles' }),
    ],
    right: [
      fn.metricDuration({ statistic: Stats.p(99), period: PERIOD }).with({ label: 'p99' }),
      fn.metricDuration({ statistic: Stats.MAXIMUM, period: PERIOD }).with({ label: 'max' }),
    ],
    rightAnnotations: [{ value: durationAlarmThreshold(fn).toMilliseconds(), label: 'alarm' }],
    width: WIDTH,
  });
}

function rowsOf(widgets: readonly IWidget[]): IWidget[][] {
  const rows: IWidget[][] = [];
  for (let start = 0; start < widgets.length; start += PER_ROW) rows.push(widgets.slice(start, start + PER_ROW));
  return rows;
}
