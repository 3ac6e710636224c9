import type { MiddlewareObj } from '@middy/core';
import { ApiError, internalError, serviceUnavailable } from './api-error';
import type { ApiEvent, ApiResult } from './http-event';
import { jsonResponse } from './responses';
import { StoreUnavailableError } from '../table/errors';
import type { HttpContext } from './http-context';

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof StoreUnavailableError) return serviceUnavailable();
  return internalError();
}

/**
 * The one place a failure becomes a response: the spec's JSON error, never a stack trace or the
 * error object itself. What it answered stays on the context and the cause in `request.error`, for the
 * request's log line and metrics.
 */
export const errorHandler = (): MiddlewareObj<ApiEvent, ApiResult, Error, HttpContext> => ({
  onError: (request) => {
    if (request.response !== undefined) return;
    const error = toApiError(request.error);
    request.context.apiError = error;
    request.response = jsonResponse(
      error.statusCode,
      { error: error.message, code: error.code, ...error.details },
      { 'Cache-Control': 'no-store', ...error.headers },
    );
  },
});
