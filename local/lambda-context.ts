import type { Context } from 'aws-lambda';

/** The deployed functions' timeout (lib/api-function.ts), so Middy sees the same remaining time locally. */
const FUNCTION_TIMEOUT_MS = 6_000;

/** The Lambda context of one local invocation, with the function's timeout (the API functions' unless it has its own). */
export function lambdaContext(functionName: string, requestId: string, timeoutMs: number = FUNCTION_TIMEOUT_MS): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
