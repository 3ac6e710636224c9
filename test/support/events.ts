import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { FALLBACK_RESOURCES, GATEWAY_ROUTES, PROXY_RESOURCE } from '../../lambda/read-api/routes';
import { gatewayRouteFor, type LambdaFunction, restEvent } from '../../local/http-gateway';
import { registerApiKey } from './log-capture';

export interface EventOptions {
  headers?: Record<string, string>;
  /** Name, value, name, value...: headers as sent, repeats and case variants included (after `headers`). */
  rawHeaders?: readonly string[];
  query?: Record<string, string>;
  apiKey?: string;
}

const NOT_INVOKED: LambdaFunction = { name: 'none', handler: async () => undefined };

/** The deployed REST API's methods: which resource a path takes decides the event's `resource` and `pathParameters`. */
const DEPLOYED_ROUTES = [
  ...GATEWAY_ROUTES.map((route) => ({ routeKey: `${route.method} ${route.path}`, function: NOT_INVOKED })),
  ...FALLBACK_RESOURCES.map((resource) => ({ routeKey: `ANY ${resource}`, function: NOT_INVOKED })),
];

/**
 * The Lambda proxy event (payload 1.0) the deployed REST API sends for this request: built by the local
 * gateway's own event builder, on the resource the REST API would pick.
 */
export function apiEvent(method: string, pathWithQuery: string, options: EventOptions = {}): APIGatewayProxyEvent {
  const url = new URL(pathWithQuery, 'https://api.example.test');
  for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.append(name, value);
  const rawHeaders = [...Object.entries(options.headers ?? {}).flat(), ...(options.rawHeaders ?? [])];
  if (options.apiKey !== undefined) {
    registerApiKey(options.apiKey);
    rawHeaders.push('Authorization', `Bearer ${options.apiKey}`);
  }
  return restApiEvent({ method, rawPath: url.pathname, rawQueryString: url.search.slice(1), rawHeaders });
}

/** The event for a request exactly as sent: path and query as written, headers in order, any body. */
export function restApiEvent(request: {
  readonly method: string;
  readonly rawPath: string;
  readonly rawQueryString: string;
  readonly rawHeaders: readonly string[];
  readonly body?: Buffer;
}): APIGatewayProxyEvent {
  const match = gatewayRouteFor(DEPLOYED_ROUTES, request.method, request.rawPath);
  return restEvent({
    method: request.method.toUpperCase(),
    rawPath: request.rawPath,
    rawQueryString: request.rawQueryString,
    rawHeaders: request.rawHeaders,
    resource: match?.resource ?? PROXY_RESOURCE,
    pathParameters: match?.pathParameters,
    body: request.body ?? Buffer.alloc(0),
    sourceIp: '127.0.0.1',
    protocol: 'HTTP/1.1',
    stage: 'test',
    requestId: 'request-id',
    // Far from any clock, so a request's 5 s count from when the function sees it (store-deadline.ts).
    now: new Date(0),
  });
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
