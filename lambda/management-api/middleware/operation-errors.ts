import { ApiError } from '../../http/api-error';
import type { ManagementMiddleware } from '../management-context';
import { toManagementError } from '../management-errors';

/**
 * What the shared operations' errors mean over HTTP (toManagementError), for the error handler to render:
 * after the refusal audit has seen the error as thrown.
 */
export const operationErrors = (): ManagementMiddleware => ({
  onError: (request) => {
    const mapped = toManagementError(request.error);
    if (mapped instanceof ApiError) request.error = mapped;
  },
});
