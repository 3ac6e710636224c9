import { Console } from 'node:console';
import { Logger, LogLevelThreshold } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { LogLevel } from './config';
import type { StoreCallObserver } from './table/client';
import { COLD_START_DIMENSION, METRIC, METRICS_NAMESPACE, SERVICE_DIMENSION } from './metric-names';

/**
 * Logs and metrics of one function, as Powertools writes them: JSON lines on stdout, which Lambda sends
 * to the function's log group. Metrics are CloudWatch's embedded metric format, carried by the request's
 * own log line (docs/logs-and-metrics.md), so they cost no API call, no latency and no line of their own.
 *
 * One embedded-metric directive has one set of dimensions, so metrics with other dimensions than the
 * service's are kept apart, each in a Powertools Metrics of its own, and meet in the line as directives
 * of one document.
 */
export interface Telemetry {
  readonly logger: Logger;
  /** Under the service dimension alone. */
  readonly metrics: Metrics;
  /** `Requests`, under its route and status too. */
  readonly requestCount: Metrics;
  /** `ColdStart`, under the function's name too, as Powertools counts it. */
  readonly coldStarts: ColdStartMetrics;
}

/** Metrics that also tell, once, an execution environment's first on-demand invocation, by Powertools' own rule. */
export class ColdStartMetrics extends Metrics {
  isFirstInvocation(): boolean {
    return this.getColdStart();
  }
}

export interface TelemetryConfig {
  readonly serviceName: string;
  readonly logLevel: LogLevel;
}

export function createTelemetry({ serviceName, logLevel }: TelemetryConfig): Telemetry {
  const logger = new Logger({ serviceName, logLevel });
  // Powertools' own warnings about metrics go through the same structured logger.
  const options = { namespace: METRICS_NAMESPACE, serviceName, logger };
  return { logger, metrics: new Metrics(options), requestCount: new Metrics(options), coldStarts: new ColdStartMetrics(options) };
}

/** Store round trips as the request waited for them: a metric value each, and a DEBUG line each. */
export function storeCallRecorder({ logger, metrics }: Telemetry): StoreCallObserver {
  return ({ operation, durationMs, failed }) => {
    metrics.addMetric(METRIC.storeLatency, MetricUnit.Milliseconds, durationMs);
    logger.debug({ message: 'store call', operation, durationMs, failed });
  };
}

/** Counts this execution environment's first invocation, as Powertools' `captureColdStartMetric` would. */
export function recordColdStart({ coldStarts }: Telemetry, functionName: string | undefined): void {
  if (!coldStarts.isFirstInvocation()) return;
  if (functionName) coldStarts.addDimension(COLD_START_DIMENSION, functionName);
  coldStarts.addMetric(METRIC.coldStart, MetricUnit.Count, 1);
}

/** An embedded-metric document's members: `_aws`, and each metric and dimension it names, at the top. */
export type EmbeddedMetrics = { readonly _aws: unknown } & Readonly<Record<string, unknown>>;

/**
 * Everything recorded since the last call, as one embedded-metric document (Powertools serializes each
 * set, their directives share the document), and cleared, as Powertools' own flush would.
 */
export function takeMetrics({ metrics, requestCount, coldStarts }: Telemetry): EmbeddedMetrics | undefined {
  const documents = [metrics, requestCount, coldStarts]
    .filter((each) => each.hasStoredMetrics())
    .map((each) => {
      const document = each.serializeMetrics();
      each.clearMetrics();
      each.clearDimensions();
      return document;
    });
  const [first] = documents;
  if (!first) return undefined;
  return Object.assign({}, ...documents, {
    _aws: { Timestamp: first._aws.Timestamp, CloudWatchMetrics: documents.flatMap((each) => each._aws.CloudWatchMetrics) },
  });
}

export type RequestLineLevel = 'info' | 'error';

/** Lambda's names for the levels its log filter keeps (the stack sets its application log level to the function's). */
const LAMBDA_LEVEL_NAMES: Readonly<Record<string, string>> = { CRITICAL: 'FATAL', SILENT: 'FATAL' };
// Powertools Metrics writes on a console of its own on stdout, never the global one Lambda's runtime wraps.
const metricsConsole = new Console({ stdout: process.stdout, stderr: process.stderr });

/**
 * The request's one line: its fields and its metrics. The Logger writes it, with its own fields, when its
 * level lets the line through. When it does not (a 200 at WARN), the metrics still go out, alone, on a
 * line at the Logger's level, since Lambda drops lines below the function's level, metrics included.
 */
export function writeRequestLine(
  { logger }: Telemetry,
  level: RequestLineLevel,
  fields: Readonly<Record<string, unknown>>,
  embedded: EmbeddedMetrics | undefined,
): void {
  // The Logger writes the service itself (a key it reserves): the same name the metrics' dimension holds.
  const { [SERVICE_DIMENSION]: service, _aws, ...members }: Readonly<Record<string, unknown>> = embedded ?? {};
  const metadata = embedded ? { _aws } : {};
  const threshold = level === 'error' ? LogLevelThreshold.ERROR : LogLevelThreshold.INFO;
  if (logger.level <= threshold) {
    logger[level]({ message: 'request', ...fields, ...members, ...metadata });
    return;
  }
  if (!embedded) return;
  const loggerLevel = logger.getLevelName();
  const line = {
    level: LAMBDA_LEVEL_NAMES[loggerLevel] ?? loggerLevel,
    message: 'request metrics',
    timestamp: new Date().toISOString(),
    [SERVICE_DIMENSION]: service,
    ...members,
    ...metadata,
  };
  metricsConsole.log(JSON.stringify(line));
}
