import type middy from '@middy/core';
import type { Request } from '@middy/core';
import type { ApiEvent, ApiResult } from '../http/http-event';
import { httpMethodOf } from '../http/http-event';
import type { ApiContext } from './api-context';

export interface RequestLogRecord {
  readonly level: 'info' | 'error';
  readonly message: 'request';
  readonly time: string;
  readonly requestId: string | undefined;
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
  readonly errorCode: string | undefined;
  readonly error: { readonly name: string; readonly message: string; readonly stack?: string } | undefined;
}

export type LogSink = (record: RequestLogRecord) => void;

export const stdoutLogSink: LogSink = (record) => {
  process.stdout.write(`${JSON.stringify(record)}\n`);
};

type ApiRequest = Request<ApiEvent, ApiResult, Error, ApiContext>;

function errorCodeOf(response: ApiResult | null | undefined): string | undefined {
  if (!response?.body || response.statusCode < 400) return undefined;
  try {
    const code = (JSON.parse(response.body) as { code?: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One JSON line per request, whatever path it took. A Middy plugin rather than a middleware:
 * plugin hooks see requests that middleware answered early (preflight) as well.
 */
export function requestLog(sink: LogSink, now: () => number = () => performance.now()): middy.PluginObject {
  const started = new WeakMap<object, number>();
  return {
    requestStart: (request: ApiRequest) => {
      started.set(request, now());
    },
    requestEnd: (request: ApiRequest) => {
      const { context, response, error } = request;
      const status = response?.statusCode;
      const serverError = status === undefined || status >= 500;
      sink({
        level: serverError ? 'error' : 'info',
        message: 'request',
        time: new Date().toISOString(),
        requestId: context.awsRequestId,
        method: httpMethodOf(request.event),
        path: context.httpRequest?.path,
        route: context.route?.name,
        status,
        latencyMs: Math.round((now() - (started.get(request) ?? now())) * 100) / 100,
        keyId: context.keyId,
        accountId: context.principal?.accountId,
        used: context.usage?.used,
        limit: context.usage?.limit,
        usageReturnFailure: context.usage?.returnFailure,
        errorCode: errorCodeOf(response),
        error:
          serverError && error
            ? { name: error.name, message: error.message, ...(error.stack ? { stack: error.stack } : {}) }
            : undefined,
      });
    },
    // Middy's typings declare requestStart without arguments; at run time it receives the request.
  } as middy.PluginObject;
}
