import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { LogLevel } from './config';
import type { StoreCallObserver } from './data/dynamo-client';
import { METRIC, METRICS_NAMESPACE } from './metric-names';

/**
 * Logs and metrics of one function, as Powertools writes them: JSON lines on stdout, which Lambda sends
 * to the function's log group, and CloudWatch's embedded metric format in the same stream, so metrics
 * cost no API call and no latency on the request path.
 */
export interface Telemetry {
  readonly logger: Logger;
  readonly metrics: Metrics;
}

export interface TelemetryConfig {
  readonly serviceName: string;
  readonly logLevel: LogLevel;
}

export function createTelemetry({ serviceName, logLevel }: TelemetryConfig): Telemetry {
  const logger = new Logger({ serviceName, logLevel });
  // Powertools' own warnings about metrics go through the same structured logger.
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName, logger });
  return { logger, metrics };
}

/** Store round trips as the request waited for them: a metric value each, and a DEBUG line each. */
export function storeCallRecorder({ logger, metrics }: Telemetry): StoreCallObserver {
  return ({ operation, durationMs, failed }) => {
    metrics.addMetric(METRIC.storeLatency, MetricUnit.Milliseconds, durationMs);
    logger.debug({ message: 'store call', operation, durationMs, failed });
  };
}
