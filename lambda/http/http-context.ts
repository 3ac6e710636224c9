import type { Context } from 'aws-lambda';
import type { ApiError } from './api-error';

/**
 * What the middleware both APIs share learns about a request (store-deadline.ts, error-handler.ts); each
 * API's context adds its own (the read API's ApiContext, read-api/api-context.ts; the management API's
 * ManagementContext).
 */
export interface HttpContext extends Context {
  /** When the gateway received the request (epoch ms): the 5 s the answer is due in count from here. */
  arrivedAt?: number;
  /** Aborts when the request's store calls must give up (see store-deadline.ts). */
  storeDeadline?: AbortSignal;
  /** The error the request was answered with, as the error handler rendered it (the cause stays in `request.error`). */
  apiError?: ApiError;
}
