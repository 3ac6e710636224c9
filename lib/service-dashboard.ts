import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  type Alarm,
  AlarmWidget,
  Dashboard,
  GraphWidget,
  MathExpression,
  Stats,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { METRIC, METRICS_NAMESPACE, REQUEST_DIMENSIONS, SERVICE_DIMENSION } from '../lambda/metric-names';
import { PERIOD, serviceMetric } from './service-alarms';

export interface ServiceDashboardProps {
  readonly stage: string;
  readonly serviceName: string;
  readonly api: RestApi;
  readonly accessLogs: ILogGroup;
  readonly refundFailed: Alarm;
}

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
      dashboardName: `prompt-service-${props.stage}`,
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
      ],
    });
  }
}
