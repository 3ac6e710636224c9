import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { registerApiKey } from './log-capture';

export interface EventOptions {
  headers?: Record<string, string>;
  query?: Record<string, string>;
  apiKey?: string;
}

/** An API Gateway HTTP API (payload 2.0) event, as the gateway sends it. */
export function httpApiEvent(method: string, pathWithQuery: string, options: EventOptions = {}): APIGatewayProxyEventV2 {
  const url = new URL(pathWithQuery, 'https://api.example.test');
  const query: Record<string, string> = { ...options.query };
  url.searchParams.forEach((value, name) => {
    query[name] = query[name] === undefined ? value : `${query[name]},${value}`;
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  if (options.apiKey !== undefined) {
    registerApiKey(options.apiKey);
    headers.authorization = `Bearer ${options.apiKey}`;
  }
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'api.example.test',
      domainPrefix: 'api',
      http: { method, path: url.pathname, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'jest' },
      requestId: 'request-id',
      routeKey: '$default',
      stage: '$default',
      time: '22/Nov/2026:00:00:00 +0000',
      timeEpoch: 0,
    },
    isBase64Encoded: false,
  };
}

/** A REST API (payload 1.0) event. */
export function restApiEvent(method: string, path: string, options: EventOptions = {}): APIGatewayProxyEvent {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey !== undefined) {
    registerApiKey(options.apiKey);
    headers.Authorization = `Bearer ${options.apiKey}`;
  }
  return {
    httpMethod: method,
    path,
    resource: '/{proxy+}',
    headers,
    multiValueHeaders: {},
    queryStringParameters: options.query ?? null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {} as APIGatewayProxyEvent['requestContext'],
  };
}

export function lambdaContext(): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'test',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:test',
    memoryLimitInMB: '256',
    awsRequestId: 'aws-request-id',
    logGroupName: '/aws/lambda/test',
    logStreamName: 'stream',
    getRemainingTimeInMillis: () => 10_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
