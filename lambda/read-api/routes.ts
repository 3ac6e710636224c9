import { type ErrorCode, methodNotAllowed, routeNotFound } from '../http/api-error';
import { SHARED_GATEWAY_ANSWERS } from '../http/gateway-answers';
import { EXPOSED_HEADERS } from './middleware/cors';

/**
 * The read API's routes: how the REST API routes a request to a function (GATEWAY_ROUTES), what its
 * gateway answers itself (GATEWAY_ANSWERS), and how a function routes it within itself (matchRoute). The
 * deployed stack (lib/prompt-api.ts), the local gateway (local/lambda-functions.ts, local/http-gateway.ts)
 * and the test harness all build theirs from this module.
 */

export type Route =
  | { readonly name: 'listPrompts' }
  | { readonly name: 'getPrompt'; readonly promptId: string }
  /** The MCP endpoint (lambda/mcp/), a function of its own, which reads its message itself. */
  | { readonly name: 'mcp' };
export type RouteName = Route['name'];

const PROMPT_PATH = /^\/prompts\/([^/]*)$/;

export const MCP_PATH = '/mcp';
/** The only methods `/mcp` answers: named by its 405's `Allow` and by its preflight alike. */
export const MCP_ALLOWED_METHODS = 'POST, OPTIONS';

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * The service's routing, checked in the order docs/behaviour-rules.md fixes: method first, then path
 * (`/mcp` takes POST where the read routes take GET, so its 405 names its own methods).
 * OPTIONS never gets here: CORS answers every preflight before routing.
 */
export function matchRoute(method: string, path: string): Route {
  if (path === MCP_PATH) {
    if (method !== 'POST') throw methodNotAllowed(MCP_ALLOWED_METHODS);
    return { name: 'mcp' };
  }
  if (method !== 'GET') throw methodNotAllowed();
  if (path === '/prompts') return { name: 'listPrompts' };
  const match = PROMPT_PATH.exec(path);
  // A segment that is not valid percent-encoding still names the prompt route; the handler rejects the id.
  if (match) return { name: 'getPrompt', promptId: decodeSegment(match[1] ?? '') ?? match[1] ?? '' };
  throw routeNotFound();
}

/** The REST API's methods: which function serves which method of which resource. */
export const GATEWAY_ROUTES = [
  { method: 'GET', path: '/prompts', function: 'listPrompts' },
  { method: 'GET', path: '/prompts/{promptId}', function: 'getPrompt' },
  // Every method of /mcp goes to the MCP function, which answers its own preflight and 405s (POST, OPTIONS):
  // so no gateway can give a POST to a function that does not speak MCP. Its function alone reads a body.
  { method: 'ANY', path: MCP_PATH, function: 'mcp', readsBody: true },
] as const;

export type RoutedFunction = (typeof GATEWAY_ROUTES)[number]['function'];

/** The greedy resource that takes every path no other resource matches. */
export const PROXY_RESOURCE = '/{proxy+}';

/**
 * Resources whose every other method (ANY) goes to the fallback (a route that takes ANY itself keeps them). A REST API picks the resource first and
 * the method second, and answers a method a resource lacks with its own 403: so each resource of a route
 * has ANY too, and the root and `/{proxy+}` take all other paths. No request ever gets the gateway's 403.
 */
export const FALLBACK_RESOURCES: readonly string[] = [
  '/',
  PROXY_RESOURCE,
  ...new Set(GATEWAY_ROUTES.filter((route) => route.method !== 'ANY').map((route) => route.path)),
];

/**
 * What the API Gateway answers itself, before or instead of a function, rewritten into the API's one
 * error format with CORS headers (docs/deploy.md): the deployed REST API's gateway responses and the
 * local gateway's answers are both built from this table.
 */
export interface GatewayAnswer {
  /** API Gateway's response type (ResponseType in aws-cdk-lib/aws-apigateway). */
  readonly type: GatewayResponseType;
  /** The status the client sees; absent keeps the gateway's own (e.g. 502 for a function that crashed). */
  readonly statusCode?: number;
  readonly code: ErrorCode;
  readonly message: string;
  readonly retryAfterSeconds?: number;
}

export type GatewayResponseType =
  | 'THROTTLED'
  | 'QUOTA_EXCEEDED'
  | 'WAF_FILTERED'
  | 'REQUEST_TOO_LARGE'
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'INTEGRATION_TIMEOUT'
  | 'DEFAULT_4XX'
  | 'DEFAULT_5XX';

/** How long a client blocked by the per-IP rule should wait: WAF counts requests over 5-minute windows. */
export const WAF_RETRY_AFTER_SECONDS = 60;

export const GATEWAY_ANSWERS: readonly GatewayAnswer[] = [
  { type: 'QUOTA_EXCEEDED', statusCode: 429, code: 'RATE_LIMITED', message: 'Too many requests. Please retry shortly.', retryAfterSeconds: 1 },
  // WAF answers 403 by default; the only rule it has here is the per-IP rate rule.
  {
    type: 'WAF_FILTERED',
    statusCode: 429,
    code: 'RATE_LIMITED',
    message: 'Too many requests from this address. Please retry later.',
    retryAfterSeconds: WAF_RETRY_AFTER_SECONDS,
  },
  ...SHARED_GATEWAY_ANSWERS,
];

export function gatewayAnswer(type: GatewayResponseType): GatewayAnswer {
  const answer = GATEWAY_ANSWERS.find((candidate) => candidate.type === type);
  if (!answer) throw new Error(`no gateway answer for ${type}`);
  return answer;
}

/** The body: the API's error format, a fixed text, so the gateway needs no template variables. */
export const gatewayAnswerBody = (answer: GatewayAnswer): string => JSON.stringify({ error: answer.message, code: answer.code });

/** The headers every gateway answer carries, as the functions' errors do: JSON, CORS, never cached. */
export function gatewayAnswerHeaders(answer: Pick<GatewayAnswer, 'retryAfterSeconds'>): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Expose-Headers': EXPOSED_HEADERS,
    'Cache-Control': 'no-store',
    ...(answer.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(answer.retryAfterSeconds) }),
  };
}
