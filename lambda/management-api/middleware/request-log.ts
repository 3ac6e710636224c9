import { urlsRecordedIn } from '../../domain/webhook-rules';
import type { Telemetry } from '../../telemetry';
import type { ManagementMiddleware, ManagementMiddyRequest } from '../management-context';

/**
 * One JSON line per request: who (user id), which account, which route, the status and the error code, and
 * a change's failed copy to the keys (at WARN).
 * Never the event, its headers (the token) or a body (a key's secret is in one 201, a receiver's token in a
 * webhook's URL); a URL in the path or an error's message is written by its origin alone (urlsRecordedIn).
 */
export function requestLog(telemetry: Telemetry): ManagementMiddleware {
  const started = new WeakMap<object, number>();
  const write = (request: ManagementMiddyRequest) => {
    const status = request.response?.statusCode;
    const fields = {
      message: 'request',
      method: request.event.httpMethod,
      route: `${request.event.httpMethod} ${request.event.resource}`,
      path: urlsRecordedIn(request.event.path),
      status,
      latencyMs: Math.round((performance.now() - (started.get(request) ?? performance.now())) * 100) / 100,
      userId: request.context.caller?.userId,
      accountId: request.context.accountId,
      errorCode: request.context.apiError?.code,
      keysCopyFailure: request.context.keysCopyFailure,
    };
    if (status === undefined || status >= 500) {
      telemetry.logger.error({ ...fields, ...(request.error ? { error: { name: request.error.name, message: urlsRecordedIn(request.error.message) } } : {}) });
    } else if (fields.keysCopyFailure !== undefined) telemetry.logger.warn(fields);
    else telemetry.logger.info(fields);
  };
  return {
    before: (request) => {
      started.set(request, performance.now());
    },
    after: write,
    onError: write,
  };
}
