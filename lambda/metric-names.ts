/**
 * The service's own CloudWatch metrics, written by the functions in embedded metric format and read by
 * the stack's dashboard and alarms: one list, so the two cannot drift apart.
 */
export const METRICS_NAMESPACE = 'PromptService';

/** Powertools puts every metric under this dimension, valued with the service name (one per stage). */
export const SERVICE_DIMENSION = 'service';

export const METRIC = {
  /** One per answered request, by `route` and `status` too. */
  requests: 'Requests',
  /** Time from the function's first middleware to its answer, per request. */
  latency: 'Latency',
  unauthorized: 'Unauthorized',
  usageLimitExceeded: 'UsageLimitExceeded',
  serviceUnavailable: 'ServiceUnavailable',
  /** A quota unit taken for a request that failed could not be given back: the key was charged for our fault. */
  refundFailed: 'RefundFailed',
  /** Every store round trip, retries included, as the request waited for it. */
  storeLatency: 'StoreLatency',
  /** An execution environment's first invocation, by `function_name`: Powertools' name for it. */
  coldStart: 'ColdStart',
  /** The gateway's own 429s (stage throttle, per-IP rule): counted by the stack from its access log, never by a function. */
  gatewayThrottled: 'GatewayThrottled',
  /** A webhook delivery whose every attempt failed (docs/events.md "How it is delivered"): counted by the delivery function. */
  webhookDeliveryFailed: 'WebhookDeliveryFailed',
} as const;

/** The dimensions of `Requests`, besides the service. */
export const REQUEST_DIMENSIONS = { route: 'route', status: 'status' } as const;

/** The dimension of `ColdStart`, besides the service: the function's name, as Powertools names it. */
export const COLD_START_DIMENSION = 'function_name';

/** The service name a stage's functions run under (`POWERTOOLS_SERVICE_NAME`). */
export const serviceNameFor = (stage: string): string => `prompt-service-${stage}`;
