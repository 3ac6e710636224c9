import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { serviceUnavailable } from '../lambda/http/api-error';
import { EXPOSED_HEADERS } from '../lambda/middleware/cors';
import { InvocationSlots } from './invocation-slots';
import { lambdaContext } from './lambda-context';

/**
 * What API Gateway's HTTP API does in front of the Lambda functions, on node:http: match the route,
 * build the payload 2.0 event, invoke the function, and turn its result into the HTTP response.
 * The same route table as the deployed stack, so the same function answers the same request.
 */

export type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;

export interface LambdaFunction {
  readonly name: string;
  readonly handler: LambdaHandler;
}

export interface GatewayRoute {
  /** As the HTTP API declares it: `GET /prompts/{promptId}`. */
  readonly routeKey: string;
  readonly function: LambdaFunction;
}

export interface GatewayOptions {
  readonly routes: readonly GatewayRoute[];
  /** The `$default` route: whatever no other route matches. */
  readonly defaultFunction: LambdaFunction;
  /** A function that threw: the gateway answers 500, the developer should see why. */
  readonly onFunctionError: (functionName: string, error: unknown) => void;
  /** Invocations at once, and waiting in line beyond them; a request past both gets the service's own 503. */
  readonly concurrency: { readonly maxRunning: number; readonly maxWaiting: number };
}

/** API Gateway's own limit on a request payload. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

interface CompiledRoute {
  readonly route: GatewayRoute;
  readonly method: string;
  readonly segments: readonly string[];
}

export function createHttpGateway(options: GatewayOptions): Server {
  const routes = options.routes.map(compileRoute);
  const slots = new InvocationSlots(options.concurrency.maxRunning, options.concurrency.maxWaiting);
  return createServer((request, response) => {
    void serve(request, response, routes, slots, options);
  });
}

async function serve(
  request: IncomingMessage,
  response: ServerResponse,
  routes: readonly CompiledRoute[],
  slots: InvocationSlots,
  options: GatewayOptions,
): Promise<void> {
  let body: Buffer;
  try {
    body = await readBody(request);
  } catch {
    writeGatewayError(response, 413, 'Request Entity Too Large');
    return;
  }
  const method = (request.method ?? 'GET').toUpperCase();
  const [rawPath = '/', rawQueryString = ''] = splitOnce(request.url ?? '/', '?');
  const match = findRoute(routes, method, rawPath);
  const routeKey = match?.route.routeKey ?? '$default';
  const fn = match?.route.function ?? options.defaultFunction;
  // Waiting for a slot is the gateway's queue, not the function's time: as a Lambda invocation's clock
  // starts when it is invoked, the event is stamped (timeEpoch) when the invocation starts.
  const release = await slots.acquire();
  if (!release) {
    writeOverloaded(response);
    return;
  }
  const event = toEvent(request, { method, rawPath, rawQueryString, routeKey, pathParameters: match?.pathParameters, body });
  let result: unknown;
  try {
    result = await fn.handler(event, lambdaContext(fn.name, event.requestContext.requestId));
  } catch (error) {
    options.onFunctionError(fn.name, error);
    writeGatewayError(response, 500, 'Internal Server Error');
    return;
  } finally {
    release();
  }
  try {
    writeResult(response, result);
  } catch (error) {
    options.onFunctionError(fn.name, error);
    if (!response.headersSent) writeGatewayError(response, 500, 'Internal Server Error');
    else response.destroy();
  }
}

/** The route a request takes, as the HTTP API picks it; undefined means `$default`. */
export function gatewayRouteFor(routes: readonly GatewayRoute[], method: string, rawPath: string): GatewayRoute | undefined {
  return findRoute(routes.map(compileRoute), method.toUpperCase(), rawPath)?.route;
}

function compileRoute(route: GatewayRoute): CompiledRoute {
  const [method = '', path = ''] = route.routeKey.split(' ');
  return { route, method: method.toUpperCase(), segments: path.split('/') };
}

/** Exact method, one path segment per `{parameter}`, and a parameter is never empty (`/prompts/` goes to $default). */
function findRoute(
  routes: readonly CompiledRoute[],
  method: string,
  rawPath: string,
): { route: GatewayRoute; pathParameters: Record<string, string> | undefined } | undefined {
  const segments = rawPath.split('/');
  for (const compiled of routes) {
    if (compiled.method !== method && compiled.method !== 'ANY') continue;
    if (compiled.segments.length !== segments.length) continue;
    const parameters: Record<string, string> = {};
    const matches = compiled.segments.every((template, i) => {
      const segment = segments[i] ?? '';
      const name = /^\{(\w+)\}$/.exec(template)?.[1];
      if (name === undefined) return template === segment;
      if (segment === '') return false;
      parameters[name] = decode(segment);
      return true;
    });
    if (matches) {
      return { route: compiled.route, pathParameters: Object.keys(parameters).length > 0 ? parameters : undefined };
    }
  }
  return undefined;
}

interface EventParts {
  method: string;
  rawPath: string;
  rawQueryString: string;
  routeKey: string;
  pathParameters: Record<string, string> | undefined;
  body: Buffer;
}

/** The payload 2.0 event: lower-case headers, repeated ones and query parameters joined with commas, cookies apart. */
function toEvent(request: IncomingMessage, parts: EventParts): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(request.headersDistinct)) {
    if (name === 'cookie' || values === undefined) continue;
    headers[name] = values.join(',');
  }
  const cookies = (request.headersDistinct.cookie ?? [])
    .flatMap((header) => header.split(';'))
    .map((cookie) => cookie.trim())
    .filter((cookie) => cookie !== '');
  const query: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(parts.rawQueryString)) {
    query[name] = query[name] === undefined ? value : `${query[name]},${value}`;
  }
  const now = new Date();
  const requestId = randomUUID();
  const textBody = isTextual(headers['content-type']);
  return {
    version: '2.0',
    routeKey: parts.routeKey,
    rawPath: parts.rawPath,
    rawQueryString: parts.rawQueryString,
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    ...(parts.pathParameters ? { pathParameters: parts.pathParameters } : {}),
    requestContext: {
      accountId: 'offline',
      apiId: 'local',
      domainName: headers.host ?? '127.0.0.1',
      domainPrefix: (headers.host ?? '127.0.0.1').split('.')[0] ?? 'local',
      http: {
        method: parts.method,
        path: parts.rawPath,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: parts.routeKey,
      stage: '$default',
      time: gatewayTime(now),
      timeEpoch: now.getTime(),
    },
    ...(parts.body.length > 0
      ? { body: textBody ? parts.body.toString('utf8') : parts.body.toString('base64'), isBase64Encoded: !textBody }
      : { isBase64Encoded: false }),
  };
}

interface StructuredResult {
  statusCode: number;
  headers?: Record<string, string | number | boolean>;
  cookies?: string[];
  body?: string;
  isBase64Encoded?: boolean;
}

/**
 * As API Gateway reads a payload 2.0 result: a `{statusCode, ...}` object as given; anything else
 * is a 200 JSON body (a string as it is, other values as JSON).
 */
function writeResult(response: ServerResponse, result: unknown): void {
  const structured = isStructured(result)
    ? result
    : {
        statusCode: 200,
        headers: { 'content-type': 'application/json' },
        body: typeof result === 'string' ? result : JSON.stringify(result ?? null),
      };
  response.statusCode = structured.statusCode;
  for (const [name, value] of Object.entries(structured.headers ?? {})) response.setHeader(name, String(value));
  if (structured.cookies && structured.cookies.length > 0) response.setHeader('set-cookie', structured.cookies);
  response.setHeader('apigw-requestid', response.getHeader('apigw-requestid') ?? randomUUID());
  const body = structured.body === undefined ? undefined : Buffer.from(structured.body, structured.isBase64Encoded ? 'base64' : 'utf8');
  response.end(body);
}

function isStructured(result: unknown): result is StructuredResult {
  return typeof result === 'object' && result !== null && typeof (result as { statusCode?: unknown }).statusCode === 'number';
}

function writeGatewayError(response: ServerResponse, statusCode: number, message: string): void {
  response.statusCode = statusCode;
  response.setHeader('content-type', 'application/json');
  response.end(JSON.stringify({ message }));
}

/** More requests than the stack runs and queues: the service's own 503, readable by a browser. */
function writeOverloaded(response: ServerResponse): void {
  const error = serviceUnavailable();
  response.writeHead(error.statusCode, {
    'content-type': 'application/json',
    'access-control-allow-origin': '*',
    'access-control-expose-headers': EXPOSED_HEADERS,
    'cache-control': 'no-store',
    ...error.headers,
  });
  response.end(JSON.stringify({ error: error.message, code: error.code }));
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        request.removeAllListeners('data');
        request.resume();
        reject(new Error('request body too large'));
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function isTextual(contentType: string | undefined): boolean {
  return contentType === undefined || /^(text\/|application\/(json|xml|x-www-form-urlencoded|[\w.+-]+\+json))/i.test(contentType);
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function splitOnce(value: string, separator: string): [string, string] {
  const index = value.indexOf(separator);
  return index === -1 ? [value, ''] : [value.slice(0, index), value.slice(index + 1)];
}

/** API Gateway's `requestContext.time`: `22/Nov/2026:09:05:03 +0000`. */
function gatewayTime(date: Date): string {
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const pad = (value: number) => String(value).padStart(2, '0');
  return (
    `${pad(date.getUTCDate())}/${months[date.getUTCMonth()]}/${date.getUTCFullYear()}:` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`
  );
}
