import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, STATUS_CODES, type Server, type ServerResponse } from 'node:http';
import { type Duplex, Readable } from 'node:stream';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { methodNotAllowed, serviceUnavailable } from '../lambda/http/api-error';
import { type GatewayResponseType, gatewayAnswer, gatewayAnswerBody, gatewayAnswerHeaders } from '../lambda/read-api/routes';
import { InvocationSlots } from './invocation-slots';
import { lambdaContext } from './lambda-context';
import {
  BodyTooLargeError,
  type ConnectionTimeouts,
  closeAfterAnswer,
  declaresTooLarge,
  discardBody,
  GATEWAY_MAX_BODY_BYTES,
  readBody,
  serverOptions,
} from './request-limits';

/**
 * What the deployed REST API does in front of the Lambda functions, on node:http: pick the resource and
 * then the method, build the Lambda proxy event (payload 1.0), invoke the function, turn its result into
 * the HTTP response, and answer what the gateway answers itself (a body too large, a function that
 * failed, a method no resource serves) with the same gateway responses the stack deploys.
 */

export type LambdaHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<unknown>;

export interface LambdaFunction {
  readonly name: string;
  readonly handler: LambdaHandler;
  /** Its Lambda timeout, when not the API functions' 6 s (the run function's: a model's time). */
  readonly timeoutMs?: number;
}

export interface GatewayRoute {
  /** As the REST API declares it: a method (or ANY) and a resource, `GET /prompts/{promptId}`. */
  readonly routeKey: string;
  readonly function: LambdaFunction;
  /**
   * The function reads the request's body. Other routes' bodies are read and dropped, never held: the
   * deployed gateway would pass them on, but no function of theirs looks at one, and a web page could
   * otherwise make the local stack hold many large bodies at once.
   */
  readonly readsBody?: boolean;
}

export interface GatewayOptions {
  readonly routes: readonly GatewayRoute[];
  /** A function that threw: the gateway answers 502, the developer should see why. */
  readonly onFunctionError: (functionName: string, error: unknown) => void;
  /** Invocations at once, and waiting in line beyond them; a request past both gets the service's own 503. */
  readonly concurrency: { readonly maxRunning: number; readonly maxWaiting: number };
  /** The stage the events name; the API is served at the root all the same. */
  readonly stage?: string;
  /**
   * An authorizer on every method, as a REST API's Cognito authorizer: the claims to put in the event
   * (`requestContext.authorizer.claims`), or undefined to answer the gateway's own 401.
   */
  readonly authorize?: (headers: IncomingMessage['headers']) => Promise<Record<string, string> | undefined>;
  /** Writes what the gateway answers itself; the read API's answers (JSON with CORS) by default. */
  readonly writeAnswer?: GatewayAnswerWriter;
  /** How long a request may take to arrive (request-limits.ts). */
  readonly timeouts?: ConnectionTimeouts;
}

export type GatewayAnswerWriter = (response: ServerResponse, type: GatewayResponseType | 'UNAUTHORIZED', gatewayStatus?: number) => void;

export const LOCAL_STAGE = 'local';
/** How long an idle keep-alive connection stays open: at least 65 s (docs/behaviour-rules.md). */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

interface CompiledRoute {
  readonly route: GatewayRoute;
  readonly method: string;
  readonly resource: string;
}

interface Resource {
  readonly path: string;
  readonly segments: readonly string[];
}

export interface RouteMatch {
  readonly route: GatewayRoute;
  readonly resource: string;
  readonly pathParameters: Record<string, string> | undefined;
}

export function createHttpGateway(options: GatewayOptions): Server {
  // A request without Host is still a request: answered by the functions, like any other.
  const server = createServer({ requireHostHeader: false, ...serverOptions(options.timeouts) }, createGatewayListener(options));
  // What node:http answers itself otherwise (an empty 400, or a closed connection), in the API's format.
  server.on('clientError', answerUnparsable);
  server.on('connect', answerConnect);
  // Longer than clients keep idle connections (Node's agent, browsers, AWS's own 60 s), so the client
  // always closes first: a server that closes first races the client's next request into a reset.
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  return server;
}

/** The gateway as a node request listener, for a server of the caller's (the dashboard's origin serves `/api` with it). */
export function createGatewayListener(options: GatewayOptions): (request: IncomingMessage, response: ServerResponse) => void {
  const routes = options.routes.map(compileRoute);
  const slots = new InvocationSlots(options.concurrency.maxRunning, options.concurrency.maxWaiting);
  return (request, response) => {
    void serve(request, response, routes, slots, options);
  };
}

async function serve(
  request: IncomingMessage,
  response: ServerResponse,
  routes: readonly CompiledRoute[],
  slots: InvocationSlots,
  options: GatewayOptions,
): Promise<void> {
  const writeAnswer = options.writeAnswer ?? writeGatewayAnswer;
  const tooLarge = () => {
    closeAfterAnswer(response);
    writeAnswer(response, 'REQUEST_TOO_LARGE');
  };
  if (declaresTooLarge(request, GATEWAY_MAX_BODY_BYTES)) return tooLarge();
  const method = (request.method ?? 'GET').toUpperCase();
  const [rawPath = '/', rawQueryString = ''] = splitOnce(request.url ?? '/', '?');
  const match = matchRoute(routes, method, rawPath);
  // The authorizer reads headers only: a body is read once its caller is known, never before.
  let claims: Record<string, string> | undefined;
  if (match && options.authorize) claims = await options.authorize(request.headers).catch(() => undefined);
  const admitted = match !== undefined && (!options.authorize || claims !== undefined);
  let body: Buffer;
  try {
    if (admitted && match.route.readsBody === true) body = await readBody(request, GATEWAY_MAX_BODY_BYTES);
    else {
      await discardBody(request, GATEWAY_MAX_BODY_BYTES);
      body = EMPTY_BODY;
    }
  } catch (error) {
    if (error instanceof BodyTooLargeError) return tooLarge();
    // The client went away before its body arrived: nobody is left to answer.
    response.destroy();
    return;
  }
  if (!match) {
    writeAnswer(response, 'MISSING_AUTHENTICATION_TOKEN');
    return;
  }
  if (!admitted) {
    writeAnswer(response, 'UNAUTHORIZED');
    return;
  }
  const fn = match.route.function;
  // Waiting for a slot is the gateway's queue, not the function's time: as a Lambda invocation's clock
  // starts when it is invoked, the event is stamped (requestTimeEpoch) when the invocation starts.
  const release = await slots.acquire();
  if (!release) {
    writeOverloaded(response);
    return;
  }
  const event = restEvent({
    method,
    rawPath,
    rawQueryString,
    rawHeaders: request.rawHeaders,
    resource: match.resource,
    pathParameters: match.pathParameters,
    body,
    sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
    protocol: `HTTP/${request.httpVersion}`,
    stage: options.stage ?? LOCAL_STAGE,
  });
  if (claims) (event.requestContext as { authorizer?: unknown }).authorizer = { claims };
  let result: unknown;
  try {
    result = await fn.handler(event, lambdaContext(fn.name, event.requestContext.requestId, fn.timeoutMs));
  } catch (error) {
    options.onFunctionError(fn.name, error);
    writeAnswer(response, 'DEFAULT_5XX', 502);
    return;
  } finally {
    release();
  }
  try {
    writeResult(response, result, event.requestContext.requestId, writeAnswer);
  } catch (error) {
    options.onFunctionError(fn.name, error);
    if (!response.headersSent) writeAnswer(response, 'DEFAULT_5XX', 502);
    else response.destroy();
  }
}

/** The route a request takes, as the REST API picks it; undefined is the gateway's own 403 (here 404). */
export function gatewayRouteFor(routes: readonly GatewayRoute[], method: string, rawPath: string): RouteMatch | undefined {
  return matchRoute(routes.map(compileRoute), method.toUpperCase(), rawPath);
}

function compileRoute(route: GatewayRoute): CompiledRoute {
  const [method = '', resource = ''] = route.routeKey.split(' ');
  return { route, method: method.toUpperCase(), resource };
}

/** The resource's method, else its ANY. */
function matchRoute(routes: readonly CompiledRoute[], method: string, rawPath: string): RouteMatch | undefined {
  const resources = [...new Set(routes.map((route) => route.resource))].map(
    (path): Resource => ({ path, segments: path === '/' ? [] : path.slice(1).split('/') }),
  );
  const found = findResource(resources, rawPath);
  if (!found) return undefined;
  const onResource = routes.filter((route) => route.resource === found.resource.path);
  const compiled = onResource.find((route) => route.method === method) ?? onResource.find((route) => route.method === 'ANY');
  return compiled && { route: compiled.route, resource: found.resource.path, pathParameters: found.pathParameters };
}

/**
 * The most specific resource: literal segments before `{param}` ones (never empty), and `{proxy+}`
 * (one segment or more) last. A trailing slash is not a segment of its own.
 */
function findResource(resources: readonly Resource[], rawPath: string): { resource: Resource; pathParameters: Record<string, string> | undefined } | undefined {
  const trimmed = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
  const segments = trimmed === '/' ? [] : trimmed.slice(1).split('/');
  let best: { resource: Resource; parameters: Record<string, string>; score: number } | undefined;
  for (const resource of resources) {
    const parameters: Record<string, string> = {};
    let score = 0;
    let matched = true;
    for (let i = 0; i < resource.segments.length && matched; i += 1) {
      const template = resource.segments[i] ?? '';
      const greedy = /^\{(\w+)\+\}$/.exec(template)?.[1];
      if (greedy !== undefined) {
        const rest = segments.slice(i);
        matched = i === resource.segments.length - 1 && rest.length > 0 && rest.some((segment) => segment !== '');
        parameters[greedy] = decode(rest.join('/'));
        break;
      }
      const segment = segments[i];
      const name = /^\{(\w+)\}$/.exec(template)?.[1];
      if (segment === undefined) matched = false;
      else if (name === undefined) {
        matched = template === segment;
        score += 2;
      } else {
        matched = segment !== '';
        parameters[name] = decode(segment);
        score += 1;
      }
    }
    const greedy = resource.segments.some((template) => template.endsWith('+}'));
    if (!greedy && segments.length !== resource.segments.length) matched = false;
    if (!matched) continue;
    if (greedy) score = -1;
    if (!best || score > best.score) best = { resource, parameters, score };
  }
  if (!best) return undefined;
  return { resource: best.resource, pathParameters: Object.keys(best.parameters).length > 0 ? best.parameters : undefined };
}

export interface EventParts {
  readonly method: string;
  readonly rawPath: string;
  readonly rawQueryString: string;
  /** Name, value, name, value...: as node:http gives them, names as the client wrote them. */
  readonly rawHeaders: readonly string[];
  readonly resource: string;
  readonly pathParameters: Record<string, string> | undefined;
  readonly body: Buffer;
  readonly sourceIp: string;
  readonly protocol: string;
  readonly stage: string;
  readonly requestId?: string;
  readonly now?: Date;
}

/**
 * The Lambda proxy event (payload 1.0) of the REST API: header names as sent, `headers` and
 * `queryStringParameters` with the last of repeated values and the `multiValue` forms with all,
 * `path` still percent-encoded, path parameters decoded, and the body base64 (the API's binary media
 * types are every type, so its function gets every body as bytes).
 */
export function restEvent(parts: EventParts): APIGatewayProxyEvent {
  // Names are the client's data: maps without a prototype, so `__proto__` or `constructor` is one more name.
  const headers: Record<string, string> = Object.create(null);
  const multiValueHeaders: Record<string, string[]> = Object.create(null);
  const spellings = new Map<string, string>();
  for (let i = 0; i + 1 < parts.rawHeaders.length; i += 2) {
    const name = parts.rawHeaders[i] ?? '';
    const value = parts.rawHeaders[i + 1] ?? '';
    // Repeats of a name in another case join the first spelling, as the REST API merges them.
    const lowerCase = name.toLowerCase();
    const existing = spellings.get(lowerCase) ?? name;
    spellings.set(lowerCase, existing);
    headers[existing] = value;
    appendTo(multiValueHeaders, existing, value);
  }
  const query: Record<string, string> = Object.create(null);
  const multiValueQuery: Record<string, string[]> = Object.create(null);
  for (const [name, value] of new URLSearchParams(parts.rawQueryString)) {
    query[name] = value;
    appendTo(multiValueQuery, name, value);
  }
  const hasQuery = Object.keys(query).length > 0;
  const now = parts.now ?? new Date();
  const requestId = parts.requestId ?? randomUUID();
  const headerNamed = (name: string) => {
    const spelling = spellings.get(name);
    return spelling === undefined ? undefined : headers[spelling];
  };
  const host = headerNamed('host') ?? '127.0.0.1';
  const userAgent = headerNamed('user-agent') ?? null;
  return {
    resource: parts.resource,
    path: parts.rawPath,
    httpMethod: parts.method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiValueQuery : null,
    pathParameters: parts.pathParameters ?? null,
    stageVariables: null,
    requestContext: {
      accountId: 'offline',
      apiId: 'local',
      authorizer: undefined,
      domainName: host,
      domainPrefix: host.split('.')[0] ?? 'local',
      extendedRequestId: requestId,
      httpMethod: parts.method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: parts.sourceIp,
        user: null,
        userAgent,
        userArn: null,
      },
      path: `/${parts.stage}${parts.rawPath}`,
      protocol: parts.protocol,
      requestId,
      requestTime: gatewayTime(now),
      requestTimeEpoch: now.getTime(),
      resourceId: 'local',
      resourcePath: parts.resource,
      stage: parts.stage,
    },
    body: parts.body.length > 0 ? parts.body.toString('base64') : null,
    isBase64Encoded: parts.body.length > 0,
  };
}

function appendTo(lists: Record<string, string[]>, name: string, value: string): void {
  const list = lists[name];
  if (list) list.push(value);
  else lists[name] = [value];
}

interface ProxyResult {
  statusCode: number;
  headers?: Record<string, string | number | boolean>;
  multiValueHeaders?: Record<string, (string | number | boolean)[]>;
  /** A stream from a function whose integration streams (the run function): written as it is produced. */
  body?: string | Readable;
  isBase64Encoded?: boolean;
}

/** As API Gateway reads a payload 1.0 result: anything but `{statusCode, ...}` is a malformed answer (502). */
function writeResult(response: ServerResponse, result: unknown, requestId: string, writeAnswer: GatewayAnswerWriter): void {
  if (!isProxyResult(result)) {
    writeAnswer(response, 'DEFAULT_5XX', 502);
    return;
  }
  response.statusCode = result.statusCode;
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) response.setHeader(name, values.map(String));
  for (const [name, value] of Object.entries(result.headers ?? {})) response.setHeader(name, String(value));
  response.setHeader('x-amzn-requestid', requestId);
  if (result.body instanceof Readable) {
    const stream = result.body;
    response.flushHeaders();
    // A caller who goes away ends the stream, as the deployed gateway's closed connection does.
    response.on('close', () => stream.destroy());
    stream.on('error', () => response.destroy());
    stream.pipe(response);
    return;
  }
  const body = result.body === undefined ? undefined : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  response.end(body);
}

function isProxyResult(result: unknown): result is ProxyResult {
  return typeof result === 'object' && result !== null && typeof (result as { statusCode?: unknown }).statusCode === 'number';
}

/** What the deployed gateway answers itself, from the same table its gateway responses are built from. */
function writeGatewayAnswer(response: ServerResponse, type: GatewayResponseType | 'UNAUTHORIZED', gatewayStatus?: number): void {
  // The read API has no authorizer: the functions answer 401 themselves.
  const answer = gatewayAnswer(type === 'UNAUTHORIZED' ? 'DEFAULT_4XX' : type);
  const status = answer.statusCode ?? gatewayStatus;
  if (status === undefined) throw new Error(`${type} keeps the gateway's status: give it`);
  response.writeHead(status, gatewayAnswerHeaders(answer));
  response.end(gatewayAnswerBody(answer));
}

/** More requests than the stack runs and queues: the service's own 503, readable by a browser. */
function writeOverloaded(response: ServerResponse): void {
  const error = serviceUnavailable();
  response.writeHead(error.statusCode, gatewayAnswerHeaders({ retryAfterSeconds: Number(error.headers['Retry-After']) }));
  response.end(JSON.stringify({ error: error.message, code: error.code }));
}

/** Writes a whole answer to a socket node:http has not made a response for, and closes it. */
function writeToSocket(socket: Duplex, status: number, headers: Record<string, string>, body: string): void {
  const lines = Object.entries({ ...headers, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' });
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${lines.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${body}`);
}

/**
 * A request node:http cannot parse (a header name that is not a token, a method HTTP does not know,
 * headers over its limit): the gateway's 4xx in the API's format, as a client can read it.
 */
function answerUnparsable(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const answer = gatewayAnswer('DEFAULT_4XX');
  writeToSocket(socket, status, gatewayAnswerHeaders(answer), gatewayAnswerBody(answer));
}

/** CONNECT, which node:http never hands to a request handler: 405 like any method but GET and OPTIONS. */
function answerConnect(_request: IncomingMessage, socket: Duplex): void {
  const error = methodNotAllowed();
  writeToSocket(socket, error.statusCode, { ...gatewayAnswerHeaders({}), ...error.headers }, JSON.stringify({ error: error.message, code: error.code }));
}

const EMPTY_BODY = Buffer.alloc(0);

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

/** API Gateway's `requestContext.requestTime`: `22/Nov/2026:09:05:03 +0000`. */
function gatewayTime(date: Date): string {
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const pad = (value: number) => String(value).padStart(2, '0');
  return (
    `${pad(date.getUTCDate())}/${months[date.getUTCMonth()]}/${date.getUTCFullYear()}:` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`
  );
}
