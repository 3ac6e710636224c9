/**
 * CloudWatch's embedded metric format, as its specification states it
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html):
 * what CloudWatch Logs needs of a log event to take metrics from it. `emfProblems` lists every rule a
 * record breaks; an empty list is a valid document.
 */

/** The units a MetricDefinition may name (CloudWatch's StandardUnit). */
const UNITS = new Set([
  'Seconds',
  'Microseconds',
  'Milliseconds',
  'Bytes',
  'Kilobytes',
  'Megabytes',
  'Gigabytes',
  'Terabytes',
  'Bits',
  'Kilobits',
  'Megabits',
  'Gigabits',
  'Terabits',
  'Percent',
  'Count',
  'Bytes/Second',
  'Kilobytes/Second',
  'Megabytes/Second',
  'Gigabytes/Second',
  'Terabytes/Second',
  'Bits/Second',
  'Kilobits/Second',
  'Megabits/Second',
  'Gigabits/Second',
  'Terabits/Second',
  'Count/Second',
  'None',
]);
const MAX_DIMENSIONS_PER_SET = 30;
const MAX_METRICS_PER_DIRECTIVE = 100;
const MAX_VALUES_PER_METRIC = 100;
const MAX_DIMENSION_VALUE_LENGTH = 1024;
const MAX_NAME_LENGTH = 1024;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isName = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= MAX_NAME_LENGTH;
const extraMembers = (object: Record<string, unknown>, allowed: readonly string[]): string[] => Object.keys(object).filter((key) => !allowed.includes(key));

function directiveProblems(directive: unknown, at: string, root: Record<string, unknown>): string[] {
  if (!isObject(directive)) return [`${at} is not an object`];
  const problems = extraMembers(directive, ['Namespace', 'Dimensions', 'Metrics']).map((key) => `${at} has the unknown member ${key}`);
  if (!isName(directive.Namespace)) problems.push(`${at}.Namespace is not a string of 1 to ${MAX_NAME_LENGTH} characters`);

  if (!Array.isArray(directive.Dimensions)) problems.push(`${at}.Dimensions is not an array`);
  else {
    for (const [i, set] of (directive.Dimensions as unknown[]).entries()) {
      const setAt = `${at}.Dimensions[${i}]`;
      if (!Array.isArray(set)) {
        problems.push(`${setAt} is not an array`);
        continue;
      }
      if (set.length > MAX_DIMENSIONS_PER_SET) problems.push(`${setAt} has more than ${MAX_DIMENSIONS_PER_SET} keys`);
      for (const key of set) {
        if (typeof key !== 'string') problems.push(`${setAt} holds a key that is not a string`);
        else if (!(key in root)) problems.push(`dimension ${key} (${setAt}) is not a member of the root`);
        else if (typeof root[key] !== 'string') problems.push(`dimension ${key} is not a string at the root`);
        else if ((root[key] as string).length > MAX_DIMENSION_VALUE_LENGTH) problems.push(`dimension ${key} is over ${MAX_DIMENSION_VALUE_LENGTH} characters`);
      }
    }
  }

  if (!Array.isArray(directive.Metrics)) return [...problems, `${at}.Metrics is not an array`];
  if (directive.Metrics.length > MAX_METRICS_PER_DIRECTIVE) problems.push(`${at}.Metrics has more than ${MAX_METRICS_PER_DIRECTIVE} metrics`);
  for (const [i, metric] of (directive.Metrics as unknown[]).entries()) {
    const metricAt = `${at}.Metrics[${i}]`;
    if (!isObject(metric)) {
      problems.push(`${metricAt} is not an object`);
      continue;
    }
    problems.push(...extraMembers(metric, ['Name', 'Unit', 'StorageResolution']).map((key) => `${metricAt} has the unknown member ${key}`));
    if (!isName(metric.Name)) {
      problems.push(`${metricAt}.Name is not a string of 1 to ${MAX_NAME_LENGTH} characters`);
      continue;
    }
    if (metric.Unit !== undefined && !UNITS.has(String(metric.Unit))) problems.push(`${metricAt}.Unit ${String(metric.Unit)} is not a CloudWatch unit`);
    if (metric.StorageResolution !== undefined && metric.StorageResolution !== 1 && metric.StorageResolution !== 60) {
      problems.push(`${metricAt}.StorageResolution is neither 1 nor 60`);
    }
    const value = root[metric.Name];
    const values = Array.isArray(value) ? value : [value];
    if (!(metric.Name in root)) problems.push(`metric ${metric.Name} is not a member of the root`);
    else if (values.length === 0 || values.length > MAX_VALUES_PER_METRIC) problems.push(`metric ${metric.Name} has ${values.length} values`);
    else if (!values.every((each) => typeof each === 'number' && Number.isFinite(each)))
      problems.push(`metric ${metric.Name} is not a number or an array of numbers`);
  }
  return problems;
}

/** Every rule of the specification the record breaks as an embedded-metric document. */
export function emfProblems(record: Record<string, unknown>): string[] {
  const metadata = record._aws;
  if (!isObject(metadata)) return ['_aws is missing or not an object'];
  const problems: string[] = [];
  if (typeof metadata.Timestamp !== 'number' || !Number.isInteger(metadata.Timestamp) || metadata.Timestamp <= 0) {
    problems.push('_aws.Timestamp is not a number of milliseconds since the epoch');
  }
  if (!Array.isArray(metadata.CloudWatchMetrics)) return [...problems, '_aws.CloudWatchMetrics is not an array'];
  for (const [i, directive] of (metadata.CloudWatchMetrics as unknown[]).entries()) {
    problems.push(...directiveProblems(directive, `_aws.CloudWatchMetrics[${i}]`, record));
  }
  return problems;
}

export interface EmfMetricValue {
  readonly namespace: string;
  readonly name: string;
  readonly unit: string | undefined;
  /** Each dimension of the directive's (first) set, with its value at the root. */
  readonly dimensions: Readonly<Record<string, unknown>>;
  readonly values: readonly number[];
}

/** The metrics CloudWatch would take from a valid document, one entry per metric definition. */
export function emfMetrics(record: Record<string, unknown>): EmfMetricValue[] {
  const directives = (record._aws as { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit?: string }[] }[] })
    .CloudWatchMetrics;
  return directives.flatMap((directive) =>
    directive.Metrics.map((metric) => {
      const value = record[metric.Name];
      return {
        namespace: directive.Namespace,
        name: metric.Name,
        unit: metric.Unit,
        dimensions: Object.fromEntries((directive.Dimensions[0] ?? []).map((key) => [key, record[key]])),
        values: (Array.isArray(value) ? value : [value]).map(Number),
      };
    }),
  );
}
