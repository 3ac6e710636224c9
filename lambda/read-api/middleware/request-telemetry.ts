import { cleanupMiddlewares } from '@aws-lambda-powertools/commons';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type middy from '@middy/core';
import type { MiddlewareObj, Request } from '@middy/core';
import type { ApiEvent, ApiResult } from '../../http/http-event';
import { httpMethodOf } from '../../http/http-event';
import { METRIC, REQUEST_DIMENSIONS } from '../../metric-names';
import { recordColdStart, type Telemetry, takeMetrics, writeRequestLine } from '../../telemetry';
import type { ApiContext } from '../api-context';

/**
 * What the request's log line says, as data. The line carries these, Powertools' own fields and the
 * request's metrics; there `route` and `status` are the metrics' dimension values, strings
 * (`preflight` or `none` for a request no route took, `none` for a request with no answer).
 */
export interface RequestLogRecord {
  readonly level: 'info' | 'error';
  readonly method: string;
  readonly path: string | undefined;
  readonly route: string | undefined;
  readonly status: number | undefined;
  readonly latencyMs: number;
  /** The key's public id (a hash prefix): the key itself is never logged. */
  readonly keyId: string | undefined;
  readonly accountId: string | undefined;
  readonly used: number | undefined;
  readonly limit: number | undefined;
  readonly usageReturnFailure: string | undefined;
  readonly servedCountFailure: string | undefined;
  readonly errorCode: string | undefined;
  /** The gateway's request id, which its access log line carries too. */
  readonly gatewayRequestId: string | undefined;
  readonly error: { readonly name: string; readonly message: string } | undefined;
}

/** Sees each request's record as data, besides the log line: the local stack hands it to its callers. */
export type RequestObserver = (record: RequestLogRecord) => void;

type ApiRequest = Request<ApiEvent, ApiResult, Error, ApiContext>;

const STATUS_METRICS: Readonly<Record<number, string>> = {
  401: METRIC.unauthorized,
  429: METRIC.usageLimitExceeded,
  503: METRIC.serviceUnavailable,
};

function gatewayRequestIdOf(event: ApiEvent): string | undefined {
  const requestId: unknown = (event.requestContext as { requestId?: unknown } | undefined)?.requestId;
  return typeof requestId === 'string' ? requestId : undefined;
}

/**
 * One log line per request, whatever path it took, carrying the request's metrics. Recorded in
 * `after`/`onError`, before Powertools' Logger middleware resets its keys; a request answered before the
 * handler (preflight) runs no `after` at all, so the plugin's `requestEnd` records it and runs Powertools'
 * cleanup itself, as Powertools asks of anything that answers early.
 */
export function requestTelemetry(
  telemetry: Telemetry,
  observe?: RequestObserver,
  now: () => number = () => performance.now(),
): { readonly plugin: middy.PluginObject; readonly middleware: MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> } {
  const { metrics, requestCount } = telemetry;
  const started = new WeakMap<object, number>();
  const recorded = new WeakSet<object>();

  const record = (request: ApiRequest): void => {
    if (recorded.has(request)) return;
    recorded.add(request);
    const { context, response, error, event } = request;
    const method = httpMethodOf(event);
    const status = response?.statusCode;
    const serverError = status === undefined || status >= 500;
    const latencyMs = Math.round((now() - (started.get(request) ?? now())) * 100) / 100;
    const route = context.route?.name ?? (method === 'OPTIONS' ? 'preflight' : 'none');
    const statusLabel = status === undefined ? 'none' : String(status);
    const fields = {
      method,
      path: context.httpRequest?.path,
      route,
      status: statusLabel,
      latencyMs,
      keyId: context.keyId,
      accountId: context.principal?.accountId,
      used: context.usage?.used,
      limit: context.usage?.limit,
      usageReturnFailure: context.usage?.returnFailure,
      servedCountFailure: context.usage?.servedCountFailure,
      errorCode: context.apiError?.code,
      gatewayRequestId: gatewayRequestIdOf(event),
    };

    recordColdStart(telemetry, context.functionName);
    requestCount.addDimension(REQUEST_DIMENSIONS.route, route);
    requestCount.addDimension(REQUEST_DIMENSIONS.status, statusLabel);
    requestCount.addMetric(METRIC.requests, MetricUnit.Count, 1);
    metrics.addMetric(METRIC.latency, MetricUnit.Milliseconds, latencyMs);
    const statusMetric = status === undefined ? undefined : STATUS_METRICS[status];
    if (statusMetric) metrics.addMetric(statusMetric, MetricUnit.Count, 1);
    if (fields.usageReturnFailure) metrics.addMetric(METRIC.refundFailed, MetricUnit.Count, 1);

    const level = serverError ? 'error' : 'info';
    writeRequestLine(telemetry, level, serverError && error ? { ...fields, error } : fields, takeMetrics(telemetry));
    observe?.({
      level,
      ...fields,
      route: context.route?.name,
      status,
      error: serverError && error ? { name: error.name, message: error.message } : undefined,
    });
  };

  const plugin = {
    requestStart: (request: ApiRequest) => {
      started.set(request, now());
    },
    requestEnd: async (request: ApiRequest) => {
      if (recorded.has(request)) return;
      record(request);
      await cleanupMiddlewares(request);
    },
    // Middy's typings declare these hooks without arguments; at run time they receive the request.
  } as middy.PluginObject;

  return { plugin, middleware: { after: record, onError: record } };
}
