import type { Context } from 'aws-lambda';

/** The deployed functions' timeout (lib/api-function.ts), so Middy sees the same remaining time locally. */
const FUNCTION_TIMEOUT_MS = 6_000;

/** The Lambda context of one local invocation. */
export function lambdaContext(functionName: string, requestId: string): Context {
  const deadline = Date.now() + FUNCTION_TIMEOUT_MS;
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
