import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { StoreUnavailableError } from './store';

/** Throttling: the store refused the request before doing any of it. */
const THROTTLING_ERROR_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
]);

/** Names the SDK gives to throttling and to the store failing or not answering in time. */
const UNAVAILABLE_ERROR_NAMES = new Set([
  ...THROTTLING_ERROR_NAMES,
  'InternalServerError',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  // The request's deadline passed (README.md "Store faults"): the store did not answer in time.
  'AbortError',
]);

/** Network failures that happen before a request is sent: nothing reached the store. */
const NEVER_SENT_ERROR_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

interface SdkErrorShape {
  name?: unknown;
  code?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

export function isStoreUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, code, $metadata } = error as SdkErrorShape;
  if (typeof name === 'string' && UNAVAILABLE_ERROR_NAMES.has(name)) return true;
  if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code)) return true;
  const status = $metadata?.httpStatusCode;
  return typeof status === 'number' && status >= 500;
}

/**
 * A failure that proves the store never applied the request, so that even a write that is not
 * idempotent may be sent again. A timeout after the request was sent, a reset connection or a 500
 * from the store prove nothing: the write may have been applied.
 */
export function isUnappliedFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, code, message } = error as SdkErrorShape & { message?: unknown };
  if (typeof name === 'string' && THROTTLING_ERROR_NAMES.has(name)) return true;
  if (typeof code === 'string' && NEVER_SENT_ERROR_CODES.has(code)) return true;
  // @smithy/node-http-handler's connection timeout is a TimeoutError without a code, told apart by its text.
  return name === 'TimeoutError' && typeof message === 'string' && message.includes('did not establish a connection');
}

/** Runs one store call, turning "the store cannot answer" into StoreUnavailableError and leaving other errors alone. */
export async function callStore<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isStoreUnavailable(error)) {
      throw new StoreUnavailableError(`${operation}: store unavailable (${(error as Error).name})`, { cause: error });
    }
    throw error;
  }
}

/** Matched by name: the class identity differs between SDK copies, bundles and mocks. */
export function isConditionFailure(
  error: unknown,
): error is Error & { Item?: Record<string, AttributeValue> } {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}
