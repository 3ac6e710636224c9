/**
 * What one million requests cost on AWS at list prices (us-east-1, on-demand, no free tier), from what
 * `npm run bench` measures per request. Prices as published on the pages named beside them.
 */

/** https://aws.amazon.com/api-gateway/pricing/ : REST API, first 333 million requests a month. */
export const API_GATEWAY_REST_USD_PER_MILLION_REQUESTS = 3.5;
/** https://aws.amazon.com/lambda/pricing/ : requests, any architecture. */
export const LAMBDA_USD_PER_MILLION_REQUESTS = 0.2;
/** https://aws.amazon.com/lambda/pricing/ : Arm (Graviton) duration, first 7.5 billion GB-seconds a month. */
export const LAMBDA_ARM_USD_PER_GB_SECOND = 0.0000133334;
/** https://aws.amazon.com/dynamodb/pricing/on-demand/ : Standard table class, per million read request units. */
export const DYNAMODB_USD_PER_MILLION_READ_UNITS = 0.125;
/** https://aws.amazon.com/dynamodb/pricing/on-demand/ : Standard table class, per million write request units. */
export const DYNAMODB_USD_PER_MILLION_WRITE_UNITS = 0.625;
/** https://aws.amazon.com/cloudwatch/pricing/ : Logs, Standard log class, data ingested. */
export const CLOUDWATCH_LOGS_USD_PER_GB_INGESTED = 0.5;
/** Gigabytes taken as 2^30 bytes. */
const BYTES_PER_GB = 1024 ** 3;

/**
 * Lambda's own lines per invocation in its default (text) log format, as it writes them for a warm
 * invocation of a 512 MB function. With `systemLogLevel: WARN` (lib/api-function.ts) it writes none.
 */
const REQUEST_ID = '3f8d2a6e-1b7c-4e59-9a0d-5c6b7e8f9a01';
export const LAMBDA_PLATFORM_LINES = [
  `START RequestId: ${REQUEST_ID} Version: $LATEST`,
  `END RequestId: ${REQUEST_ID}`,
  `REPORT RequestId: ${REQUEST_ID}\tDuration: 11.42 ms\tBilled Duration: 12 ms\tMemory Size: 512 MB\tMax Memory Used: 93 MB\t`,
] as const;
export const LAMBDA_PLATFORM_BYTES = LAMBDA_PLATFORM_LINES.reduce((sum, line) => sum + Buffer.byteLength(line), 0);

/** One request as measured: the figures its cost follows from. */
export interface RequestCostInputs {
  /** Lambda bills each invocation's duration rounded up to the millisecond. */
  readonly billedMs: number;
  readonly memoryMb: number;
  readonly readUnits: number;
  readonly writeUnits: number;
  /** Every byte the request puts in CloudWatch Logs: the function's lines and Lambda's own. */
  readonly logBytes: number;
}

export interface CostPerMillion {
  readonly gateway: number;
  readonly lambda: number;
  readonly dynamodb: number;
  readonly logs: number;
  readonly total: number;
}

export function costPerMillion({ billedMs, memoryMb, readUnits, writeUnits, logBytes }: RequestCostInputs): CostPerMillion {
  const million = 1_000_000;
  const gateway = API_GATEWAY_REST_USD_PER_MILLION_REQUESTS;
  const lambda = LAMBDA_USD_PER_MILLION_REQUESTS + (billedMs / 1000) * (memoryMb / 1024) * LAMBDA_ARM_USD_PER_GB_SECOND * million;
  const dynamodb = readUnits * DYNAMODB_USD_PER_MILLION_READ_UNITS + writeUnits * DYNAMODB_USD_PER_MILLION_WRITE_UNITS;
  const logs = ((logBytes * million) / BYTES_PER_GB) * CLOUDWATCH_LOGS_USD_PER_GB_INGESTED;
  return { gateway, lambda, dynamodb, logs, total: gateway + lambda + dynamodb + logs };
}
