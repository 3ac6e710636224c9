import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface DynamoClientOptions {
  readonly region: string;
  /** A DynamoDB-compatible endpoint (dynalite, DynamoDB Local); AWS's own when absent. */
  readonly endpoint?: string | undefined;
}

/**
 * Short timeouts so a stuck store becomes a 503 well inside the Lambda's time, after the
 * SDK's standard retries (3 attempts with backoff) have had their chance.
 */
const CONNECTION_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_000;

export function createDocumentClient({ region, endpoint }: DynamoClientOptions): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region,
    maxAttempts: 3,
    requestHandler: { connectionTimeout: CONNECTION_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
    ...(endpoint ? { endpoint } : {}),
    // A local store accepts any credentials; never reach for a real profile to talk to it.
    ...(endpoint && !isAwsEndpoint(endpoint) ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
}

/** An explicit AWS endpoint (a region's, a VPC endpoint's) still needs the real credentials. */
function isAwsEndpoint(endpoint: string): boolean {
  return /(^|\.)amazonaws\.com(\.cn)?$/i.test(new URL(endpoint).hostname);
}
