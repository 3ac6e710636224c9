import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isStoreUnavailable, isUnappliedFailure } from './calls';

export interface DynamoClientOptions {
  readonly region: string;
  /** A DynamoDB-compatible endpoint (dynalite, DynamoDB Local); AWS's own when absent. */
  readonly endpoint?: string | undefined;
  /**
   * Connections kept to the store at most, per client. A request waiting for a free socket has its
   * connection timeout running, so this must cover every store call a process has in flight at once.
   */
  readonly maxSockets?: number;
  /** Told of every store call once it settles; the request path's telemetry measures store latency with it. */
  readonly observe?: StoreCallObserver;
}

/** One store call as the caller waited for it: every attempt and backoff included. */
export interface StoreCall {
  /** The DynamoDB operation, e.g. `UpdateItem`. */
  readonly operation: string;
  readonly durationMs: number;
  readonly failed: boolean;
}

export type StoreCallObserver = (call: StoreCall) => void;

/** How one store call is tried: docs/read-api.md "Store faults" spends the request's 5 s with these. */
export const STORE_ATTEMPTS = 3;
export const CONNECTION_TIMEOUT_MS = 1_000;
/** Wall-clock time one attempt may take once sent; DynamoDB answers in milliseconds when healthy. */
export const ATTEMPT_TIMEOUT_MS = 1_000;
/** Full-jitter backoff bases: a retry waits a random time up to base x 2^(retries so far). */
const BACKOFF_BASE_MS = 25;
const THROTTLED_BACKOFF_BASE_MS = 100;
const DEFAULT_MAX_SOCKETS = 50;

type RetryStrategyV2 = Extract<NonNullable<DynamoDBClientConfig['retryStrategy']>, { acquireInitialRetryToken: unknown }>;
type RetryToken = Awaited<ReturnType<RetryStrategyV2['acquireInitialRetryToken']>>;
type RetryErrorInfo = Parameters<RetryStrategyV2['refreshRetryTokenForRetry']>[1];

/**
 * The SDK's own retry loop, told which failures it may retry. The SDK's retry middleware waits out the
 * delay and gives up as soon as the call's abort signal fires, so a request's deadline bounds retries too.
 */
class SelectiveRetryStrategy implements RetryStrategyV2 {
  constructor(private readonly mayRetry: (error: unknown) => boolean) {}

  async acquireInitialRetryToken(): Promise<RetryToken> {
    return retryToken(0, 0);
  }

  async refreshRetryTokenForRetry(token: RetryToken, info: RetryErrorInfo): Promise<RetryToken> {
    const retries = token.getRetryCount() + 1;
    if (retries >= STORE_ATTEMPTS || !this.mayRetry(info.error)) throw info.error ?? new Error('store call failed');
    const base = info.errorType === 'THROTTLING' ? THROTTLED_BACKOFF_BASE_MS : BACKOFF_BASE_MS;
    return retryToken(retries, Math.round(Math.random() * base * 2 ** (retries - 1)));
  }

  recordSuccess(): void {}
}

function retryToken(retries: number, delayMs: number): RetryToken {
  return { getRetryCount: () => retries, getRetryDelay: () => delayMs };
}

export interface StoreClients {
  /** Reads are idempotent: retried on any failure that says the store could not answer. */
  readonly reads: DynamoDBDocumentClient;
  /**
   * Writes that count (taking or giving back a quota unit) are not idempotent: retried only when the
   * failure proves the write was never applied (throttled, or no connection was ever made).
   */
  readonly writes: DynamoDBDocumentClient;
  destroy(): void;
}

/** The API's clients: the request's deadline, not the SDK's defaults, decides when a store call gives up. */
export function createStoreClients(options: DynamoClientOptions): StoreClients {
  const reads = documentClient(options, new SelectiveRetryStrategy(isStoreUnavailable), ATTEMPT_TIMEOUT_MS);
  const writes = documentClient(options, new SelectiveRetryStrategy(isUnappliedFailure), ATTEMPT_TIMEOUT_MS);
  return {
    reads,
    writes,
    destroy: () => {
      reads.destroy();
      writes.destroy();
    },
  };
}

/**
 * Operator tools' attempts read and write whole pages and batches, off the request path: they get
 * longer, and their writes are idempotent (puts and conditional updates), so any failure is retried.
 */
const OPERATOR_ATTEMPT_TIMEOUT_MS = 30_000;

export function createDocumentClient(options: DynamoClientOptions): DynamoDBDocumentClient {
  return documentClient(options, new SelectiveRetryStrategy(isStoreUnavailable), OPERATOR_ATTEMPT_TIMEOUT_MS);
}

function documentClient(
  { region, endpoint, maxSockets = DEFAULT_MAX_SOCKETS, observe }: DynamoClientOptions,
  retryStrategy: RetryStrategyV2,
  attemptTimeoutMs: number,
): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region,
    retryStrategy,
    requestHandler: {
      connectionTimeout: CONNECTION_TIMEOUT_MS,
      requestTimeout: attemptTimeoutMs,
      // Without it, @smithy/node-http-handler 4.x only logs a warning when requestTimeout passes.
      throwOnRequestTimeout: true,
      httpAgent: { maxSockets },
      httpsAgent: { maxSockets },
    },
    ...(endpoint ? { endpoint } : {}),
    // A local store accepts any credentials; never reach for a real profile to talk to it.
    ...(endpoint && !isAwsEndpoint(endpoint) ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  if (observe) observeCalls(client, observe);
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
}

/**
 * Timed at the outermost step, around the SDK's own retry loop, so a call's time is what the request
 * waited for. The document client shares this middleware stack.
 */
function observeCalls(client: DynamoDBClient, observe: StoreCallObserver): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const started = performance.now();
      const operation = (context.commandName ?? 'unknown').replace(/Command$/, '');
      const settle = (failed: boolean) => observe({ operation, durationMs: Math.round((performance.now() - started) * 100) / 100, failed });
      try {
        const output = await next(args);
        settle(false);
        return output;
      } catch (error) {
        settle(true);
        throw error;
      }
    },
    { step: 'initialize', priority: 'high', name: 'observeStoreCalls' },
  );
}

/** An explicit AWS endpoint (a region's, a VPC endpoint's) still needs the real credentials. */
function isAwsEndpoint(endpoint: string): boolean {
  return /(^|\.)amazonaws\.com(\.cn)?$/i.test(new URL(endpoint).hostname);
}
