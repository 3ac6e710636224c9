import type { MiddlewareObj } from '@middy/core';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  isJSONRPCRequest,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { ApiContext } from '../read-api/api-context';
import { type ApiEvent, type ApiResult, bodyTextOf, type HttpRequest } from '../http/http-event';

/**
 * A POST /mcp body, read as far as deciding how its key is checked needs, and no further: it is read
 * before the key check and answered after it, so a bad key is a 401 whatever the body holds.
 */
export type McpMessage =
  /** Not JSON at all: -32700. */
  | { readonly kind: 'unparsable' }
  /** JSON, but not one JSON-RPC message (a batch included: MCP has none since 2025-06-18): -32600. */
  | { readonly kind: 'invalid'; readonly reason: string }
  /** A request of a method this endpoint knows, whose params that method's schema refuses: -32602. */
  | { readonly kind: 'bad-params'; readonly id: RequestId; readonly method: string; readonly problem: string }
  /** One JSON-RPC message as sent (a request, a notification, or a response), for the SDK's server. */
  | { readonly kind: 'message'; readonly message: JSONRPCMessage };

/** The requests that read prompts, and so count one unit each, exactly as a GET does. */
const READING_METHODS: ReadonlySet<string> = new Set(['prompts/list', 'prompts/get', 'tools/call']);

/**
 * The SDK's schema of each method the endpoint answers. The SDK's server would report params its schema
 * refuses as an internal error (-32603); they are the caller's mistake, -32602, so they are checked here.
 * A Map: a method name is the caller's data (`__proto__` is one more unknown method).
 */
type RequestSchema = { safeParse(value: unknown): { success: boolean; error?: { message: string } } };
const PARAMS_SCHEMAS: ReadonlyMap<string, RequestSchema> = new Map<string, RequestSchema>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['prompts/list', ListPromptsRequestSchema],
  ['prompts/get', GetPromptRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
]);

export function readMcpMessage(text: string): McpMessage {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'unparsable' };
  }
  if (Array.isArray(json)) return { kind: 'invalid', reason: 'a batch: send one JSON-RPC message per request' };
  const parsed = JSONRPCMessageSchema.safeParse(json);
  if (!parsed.success) return { kind: 'invalid', reason: 'not a JSON-RPC 2.0 request, notification or response' };
  // The message as sent, not as the schema copied it: a copy drops names such as `__proto__`, which are data here.
  const message = json as JSONRPCMessage;
  if (isJSONRPCRequest(message)) {
    const schema = PARAMS_SCHEMAS.get(message.method);
    const checked = schema?.safeParse(message);
    if (checked && !checked.success) {
      return { kind: 'bad-params', id: message.id, method: message.method, problem: paramsProblem(checked.error?.message) };
    }
  }
  return { kind: 'message', message };
}

/** Whether answering the message reads prompts: a request of a reading method, well formed or not, as a GET with a bad parameter still counts. */
export function readsPrompts(read: McpMessage): boolean {
  if (read.kind === 'bad-params') return READING_METHODS.has(read.method);
  return read.kind === 'message' && isJSONRPCRequest(read.message) && READING_METHODS.has(read.message.method);
}

/** zod's report, a JSON list of issues, as one line that says where and what. */
function paramsProblem(report: string | undefined): string {
  try {
    const issues = JSON.parse(report ?? '[]') as { path?: unknown[]; message?: string }[];
    return issues.map((issue) => `${(issue.path ?? []).map(String).join('.') || 'params'}: ${issue.message ?? 'invalid'}`).join('; ');
  } catch {
    return 'invalid params';
  }
}

/**
 * What each request's body was read as, kept beside the request until it is answered: the read API's routes name
 * the MCP route and nothing of MCP, so its message stays here.
 */
const readMessages = new WeakMap<HttpRequest, McpMessage>();

/** The message the request's body held, as mcpMessageReader read it before the key check; undefined before. */
export const messageOf = (request: HttpRequest): McpMessage | undefined => readMessages.get(request);

/**
 * Reads the body (messageOf) and says whether the request reads prompts, which decides whether its key check counts
 * a unit (middleware/quota.ts). It never refuses anything: whatever is wrong with the body is answered once the key
 * has been checked.
 */
export const mcpMessageReader = (): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  before: (request) => {
    const { route, httpRequest } = request.context;
    if (route?.name !== 'mcp' || !httpRequest) return;
    const message = readMcpMessage(bodyTextOf(request.event));
    readMessages.set(httpRequest, message);
    request.context.readsPrompts = readsPrompts(message);
  },
});
