import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { StoreUnavailableError } from './store';

/** Names the SDK gives to throttling and to the store failing or not answering in time. */
const UNAVAILABLE_ERROR_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);

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
