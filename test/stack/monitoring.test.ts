import type { CfnElement } from 'aws-cdk-lib';
import { synthesizeService } from './synth';

/**
 * Every API and every function of the stack has its alarms and its dashboard graphs, read from the template:
 * a function or an API added without them fails here. CDK's upload function runs only during a deploy, whose
 * failure CloudFormation reports itself.
 */

type Resource = { Type: string; Properties: Record<string, unknown> };
type Dimension = { Name: string; Value: unknown };
type MetricQuery = { Expression?: string; MetricStat?: { Metric: { MetricName: string; Namespace: string; Dimensions: Dimension[] } } };

const { stack, template } = synthesizeService();
const resources = template.toJSON().Resources as Record<string, Resource>;
const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);

const functions = ofType('AWS::Lambda::Function').filter(([id]) => !id.startsWith('CustomCDKBucketDeployment'));
const apiNames = ofType('AWS::ApiGateway::RestApi').map(([, api]) => api.Properties.Name as string);
const alarms = ofType('AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
const [topicId] = ofType('AWS::SNS::Topic').map(([id]) => id);

/** The metrics an alarm watches: its own, or those of its metric math. */
function watched(alarm: Record<string, unknown>): { namespace: string; name: string; dimensions: Dimension[] }[] {
  if (typeof alarm.MetricName === 'string') {
    return [{ namespace: alarm.Namespace as string, name: alarm.MetricName, dimensions: alarm.Dimensions as Dimension[] }];
  }
  return ((alarm.Metrics ?? []) as MetricQuery[]).flatMap((query) =>
    query.MetricStat
      ? [{ namespace: query.MetricStat.Metric.Namespace, name: query.MetricStat.Metric.MetricName, dimensions: query.MetricStat.Metric.Dimensions }]
      : [],
  );
}

const functionAlarms = (functionId: string, metricName: string) =>
  alarms.filter((alarm) =>
    watched(alarm).some(
      (metric) =>
        metric.namespace === 'AWS/Lambda' &&
        metric.name === metricName &&
        JSON.stringify(metric.dimensions) === JSON.stringify([{ Name: 'FunctionName', Value: { Ref: functionId } }]),
    ),
  );

const apiAlarms = (apiName: string, metricName: string) =>
  alarms.filter((alarm) =>
    watched(alarm).some(
      (metric) =>
        metric.namespace === 'AWS/ApiGateway' &&
        metric.name === metricName &&
        JSON.stringify(metric.dimensions) === JSON.stringify([{ Name: 'ApiName', Value: apiName }]),
    ),
  );

/** The dashboard's metric lines, with each CloudFormation reference in them written as its JSON text. */
function dashboardMetrics(): unknown[][] {
  const [[, dashboard] = []] = ofType('AWS::CloudWatch::Dashboard');
  if (!dashboard) throw new Error('the stack has no dashboard');
  const parts = (dashboard.Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
  const body = parts.map((part) => (typeof part === 'string' ? part : JSON.stringify(JSON.stringify(part)).slice(1, -1))).join('');
  const widgets = (JSON.parse(body) as { widgets: { properties: { metrics?: unknown[][] } }[] }).widgets;
  return widgets.flatMap((widget) => widget.properties.metrics ?? []);
}
const graphed = dashboardMetrics();
const graphs = (namespace: string, metricName: string, dimension: string, value: string): boolean =>
  graphed.some((line) => {
    const at = line.indexOf(metricName);
    return line[0] === namespace && at === 1 && line.includes(dimension) && line.includes(value);
  });

describe('every function', () => {
  it("is found in the template: the read API's four, the management API's seven, the rollout automation's two and the events' two", () => {
    expect(functions).toHaveLength(15);
  });

  it.each(functions.map(([id, fn]) => [id, fn.Properties.Timeout as number]))(
    '%s has an alarm on its errors, its throttles, and an invocation running near its %i s timeout',
    (id, timeout) => {
      expect(functionAlarms(id, 'Errors')).toEqual([expect.objectContaining({ Statistic: 'Sum', Threshold: 1 })]);
      expect(functionAlarms(id, 'Throttles')).toEqual([expect.objectContaining({ Statistic: 'Sum', Threshold: 1 })]);
      const [duration] = functionAlarms(id, 'Duration');
      expect(duration).toMatchObject({ Statistic: 'Maximum', ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
      expect(duration?.Threshold).toBeLessThan(timeout * 1000);
      expect(duration?.Threshold).toBeGreaterThanOrEqual(timeout * 1000 - 1000);
    },
  );

  it.each(functions.map(([id]) => id))('%s is graphed on the dashboard: invocations, errors, throttles and duration', (id) => {
    const ref = JSON.stringify({ Ref: id });
    for (const metric of ['Invocations', 'Errors', 'Throttles', 'Duration']) {
      expect([metric, graphs('AWS/Lambda', metric, 'FunctionName', ref)]).toEqual([metric, true]);
    }
  });
});

describe('every REST API', () => {
  it('is found in the template: the read API and the management API', () => {
    expect(apiNames.sort()).toEqual(['prompt-service-management-prod', 'prompt-service-prod']);
  });

  it.each(apiNames)('%s has an alarm on its share of 5xx answers and one on its p99 latency', (name) => {
    const [serverErrors] = apiAlarms(name, '5XXError');
    expect(serverErrors?.Metrics).toEqual(expect.arrayContaining([expect.objectContaining({ Expression: 'IF(requests > 0, 100 * errors / requests, 0)' })]));
    expect(apiAlarms(name, 'Count')).toEqual([serverErrors]);
    expect(serverErrors).toMatchObject({ Threshold: 5, ComparisonOperator: 'GreaterThanThreshold' });
    expect(apiAlarms(name, 'Latency')).toEqual([
      expect.objectContaining({ ExtendedStatistic: 'p99', Threshold: 2000, EvaluationPeriods: 3, ComparisonOperator: 'GreaterThanThreshold' }),
    ]);
  });

  it.each(apiNames)('%s is graphed on the dashboard: requests, 4xx, 5xx and latency', (name) => {
    for (const metric of ['Count', '4XXError', '5XXError', 'Latency']) {
      expect([metric, graphs('AWS/ApiGateway', metric, 'ApiName', name)]).toEqual([metric, true]);
    }
  });
});

describe('every dead-letter queue', () => {
  // The delivery queue is the one queue of work to do: its messages wait for their next attempt by design.
  const deliveryQueue = stack.getLogicalId(stack.events.deliveryQueue.node.defaultChild as CfnElement);
  const queues = ofType('AWS::SQS::Queue')
    .map(([id]) => id)
    .filter((id) => id !== deliveryQueue);

  it("is found in the template: the guard alarm function's, the dispatcher's on-failure queue and the delivery queue's", () => {
    expect(queues).toHaveLength(3);
  });

  it.each(queues)('%s has an alarm on any message waiting in it', (id) => {
    const waiting = alarms.filter((alarm) =>
      watched(alarm).some(
        (metric) =>
          metric.namespace === 'AWS/SQS' &&
          metric.name === 'ApproximateNumberOfMessagesVisible' &&
          JSON.stringify(metric.dimensions) === JSON.stringify([{ Name: 'QueueName', Value: { 'Fn::GetAtt': [id, 'QueueName'] } }]),
      ),
    );
    expect(waiting).toEqual([expect.objectContaining({ Statistic: 'Maximum', Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' })]);
  });
});

it('every alarm tells the alarm topic when it fires and when it clears, and no traffic is no alarm', () => {
  const deadLetterQueues = ofType('AWS::SQS::Queue').length - 1;
  // Besides: store throttling, RefundFailed and WebhookDeliveryFailed.
  expect(alarms.length).toBe(functions.length * 3 + apiNames.length * 2 + deadLetterQueues + 3);
  for (const alarm of alarms) {
    expect(alarm).toMatchObject({ AlarmActions: [{ Ref: topicId }], OKActions: [{ Ref: topicId }], TreatMissingData: 'notBreaching' });
  }
});
