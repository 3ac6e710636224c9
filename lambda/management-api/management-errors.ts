import type * as z from 'zod/mini';
import { ApiError, serviceUnavailable } from '../http/api-error';
import { MAX_CONTENT_BYTES } from '../domain/content-rules';
import { reasonOf } from '../operations/reasons';
import { StaleDraftError } from '../features/prompts/authoring';
import { InvalidCursorError, InvalidLabelError, InvalidRolloutError, InvalidWebhookError } from '../features/errors';

/** The management API's errors: the read API's format, `{"error", "code"}`, with the field named where one is wrong. */

export const badRequest = (message: string, field?: string): ApiError =>
  new ApiError(400, 'BAD_REQUEST', message, {}, field === undefined ? undefined : { field });

export const unauthorized = (): ApiError => new ApiError(401, 'UNAUTHORIZED', 'Sign in again: no valid identity on the request');

export const forbidden = (message: string): ApiError => new ApiError(403, 'FORBIDDEN', message);

/** Also every account the caller is not a member of: indistinguishable from one that does not exist. */
export const notFound = (message = 'Not found'): ApiError => new ApiError(404, 'NOT_FOUND', message);

export const conflict = (message: string): ApiError => new ApiError(409, 'CONFLICT', message);

export const preconditionFailed = (message: string, current?: Readonly<Record<string, unknown>>): ApiError =>
  new ApiError(412, 'PRECONDITION_FAILED', message, {}, current === undefined ? undefined : { current });

export const preconditionRequired = (message: string): ApiError => new ApiError(428, 'PRECONDITION_REQUIRED', message);

export const payloadTooLarge = (bytes: number): ApiError =>
  new ApiError(413, 'PAYLOAD_TOO_LARGE', `the version's content is ${Math.ceil(bytes / 1024)} KB, at most ${MAX_CONTENT_BYTES / 1024} KB fit one version`);

/** The first problem zod found, with the field it is in: `config.temperature: must be from 0 to 2`. */
export function invalidBody(error: z.core.$ZodError, prefix?: string): ApiError {
  const issue = error.issues[0];
  const path = [prefix, ...(issue?.path ?? []).map(String)].filter((part) => part !== undefined && part !== '').join('.');
  if (issue?.code === 'unrecognized_keys') {
    // The field named is the first unknown one; the others are counted, never echoed in bulk (they are the caller's, and may be thousands).
    const [first = '', ...others] = issue.keys.map(shortName);
    const field = [path, first].filter(Boolean).join('.');
    const more = others.length === 0 ? '' : ` (and ${others.length} more: ${others.slice(0, 3).join(', ')}${others.length > 3 ? ', ...' : ''})`;
    return badRequest(`${field}: unknown field${more}`, field);
  }
  const message = issue?.message ?? 'is not valid';
  return badRequest(path ? `${path}: ${message}` : message, path || undefined);
}

/** A name the caller sent, as an answer repeats it: at most 64 characters. */
const shortName = (name: string): string => (name.length > 64 ? `${name.slice(0, 64)}...` : name);

/**
 * What the shared operations' errors mean over HTTP: the code reasonOf records in the audit log, so an
 * answer and its audit entry never disagree; the 412's current draft and the 400's field added here.
 */
export function toManagementError(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  if (error instanceof StaleDraftError) return preconditionFailed(error.message, error.current);
  if (error instanceof InvalidLabelError) return badRequest(error.message, 'label');
  if (error instanceof InvalidRolloutError || error instanceof InvalidWebhookError || error instanceof InvalidCursorError) {
    return badRequest(error.message, error.field);
  }
  const { code, message } = reasonOf(error);
  if (code === 'NOT_FOUND') return notFound(message);
  if (code === 'CONFLICT') return conflict(message);
  if (code === 'FORBIDDEN') return forbidden(message);
  if (code === 'SERVICE_UNAVAILABLE') return serviceUnavailable();
  return error;
}
