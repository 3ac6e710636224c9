import { urlsRecordedIn } from '../domain/webhook-rules';
import { BreakGlassNotAllowedError } from '../features/change-requests/approval-gate';
import { NotTheDeciderError } from '../features/change-requests/decisions';
import {
  ImmutableVersionError,
  InvalidCursorError,
  InvalidLabelError,
  InvalidRolloutError,
  InvalidWebhookError,
  VersionNotPublishedError,
} from '../features/errors';
import { StaleDraftError } from '../features/prompts/authoring';
import { ConflictError, NotFoundError, StoreUnavailableError } from '../table/errors';
import type { AuditEntryItem } from '../table/item-types';
import { LookupTimeoutError } from '../webhook-delivery/destination';
import { SealerUnavailableError } from '../webhook-delivery/secret-sealer';

export type AuditReason = NonNullable<AuditEntryItem['reason']>;

/**
 * How a failed change is recorded: the code the API answers with, and its message (the management API's errors are
 * these very codes: management-api/management-errors.ts).
 */
export function reasonOf(error: unknown): AuditReason {
  const message = error instanceof Error ? urlsRecordedIn(error.message) : 'unknown error';
  if (error instanceof StaleDraftError) return { code: 'PRECONDITION_FAILED', message };
  if (error instanceof VersionNotPublishedError && !error.draft) return { code: 'NOT_FOUND', message };
  if (error instanceof ConflictError || error instanceof ImmutableVersionError) return { code: 'CONFLICT', message };
  if (error instanceof NotFoundError) return { code: 'NOT_FOUND', message };
  if (error instanceof InvalidLabelError || error instanceof InvalidRolloutError || error instanceof InvalidWebhookError || error instanceof InvalidCursorError)
    return { code: 'BAD_REQUEST', message };
  if (error instanceof StoreUnavailableError) return { code: 'SERVICE_UNAVAILABLE', message: 'the store could not answer' };
  if (error instanceof LookupTimeoutError) return { code: 'SERVICE_UNAVAILABLE', message: 'DNS did not answer in time' };
  if (error instanceof SealerUnavailableError) return { code: 'SERVICE_UNAVAILABLE', message: 'the sealing key did not answer in time' };
  if (error instanceof BreakGlassNotAllowedError || error instanceof NotTheDeciderError) return { code: 'FORBIDDEN', message };
  return { code: 'INTERNAL_ERROR', message: 'unexpected error' };
}
