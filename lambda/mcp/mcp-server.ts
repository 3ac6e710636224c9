import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  type JSONRPCMessage,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { ApiError } from '../http/api-error';
import type { ApiResult, HttpRequest } from '../http/http-event';
import { readPrompt } from '../read-api/handlers/get-prompt-handler';
import { readPromptList } from '../read-api/handlers/list-prompts-handler';
import type { PromptReader, PromptStore } from '../read-api/store/api-store';
import { type RolloutAnswer, rolloutField } from '../read-api/served-rollouts';
import { invalidParams, JsonRpcError } from './json-rpc';
import { getPromptResult, promptPage } from './mcp-prompts';
import { callTool, type EndpointDefaults, TOOLS } from './mcp-tools';

const SERVER_INFO = { name: 'prompt-retrieval-service', title: 'Prompt retrieval service', version: '0.1.0' };

const INSTRUCTIONS =
  'The prompts of the account that owns the API key. prompts/get fills a prompt with its arguments ' +
  '(every ${variable} of its messages, all required); the tools get_prompt and list_prompts answer the ' +
  "read API's JSON, model configuration included.";

/** The server validates JSON Schemas only for what it asks of a client (elicitation), which it never does; one per container. */
const schemaValidator = new AjvJsonSchemaValidator();

/** The headers the SDK's transport reads. No other header reaches it: `Authorization` (the key) never does. */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id'] as const;

export interface McpRead {
  readonly store: PromptStore;
  readonly reader: PromptReader;
  readonly defaults: EndpointDefaults;
  /** The sides the request's subject gets at rolling-out labels, and those its answer served. */
  readonly rollouts: RolloutAnswer;
}

/**
 * One message answered by the official SDK: its `Server` (initialize and version negotiation, ping,
 * unknown methods, JSON-RPC framing) over its web-standard Streamable HTTP transport, stateless (no session
 * id is made or needed) with JSON answers (no SSE stream). Both are made per request, as the SDK requires of
 * a stateless transport; the handlers read through the read API's own reads. A failure that is not the
 * caller's (a store fault, a bug) is not left as a JSON-RPC error in a 200: it is thrown, for the chain's
 * 503 or 500, and a unit taken for the request is given back.
 */
export async function answerMessage(message: JSONRPCMessage, request: HttpRequest, read: McpRead): Promise<ApiResult> {
  let failure: unknown;
  const guarded =
    <A, R>(handle: (input: A) => Promise<R>) =>
    async (input: A): Promise<R> => {
      try {
        return await handle(input);
      } catch (error) {
        if (!(error instanceof JsonRpcError)) failure ??= error;
        throw error;
      }
    };

  const server = serverFor(message, read, guarded);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(webRequestOf(request), { parsedBody: message });
    if (failure !== undefined) throw failure;
    return await resultOf(response);
  } finally {
    await server.close();
  }
}

type Guard = <A, R>(handle: (input: A) => Promise<R>) => (input: A) => Promise<R>;

function serverFor(message: JSONRPCMessage, { store, reader, defaults, rollouts }: McpRead, guarded: Guard): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { prompts: { listChanged: false }, tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: schemaValidator,
  });
  // The schemas below have already passed the message (mcp-message.ts); values are read from it as sent,
  // since a parsed copy drops names such as `__proto__`, which are the caller's data.
  const sentArguments = (): Readonly<Record<string, unknown>> =>
    ((message as { params?: { arguments?: Record<string, unknown> } }).params?.arguments ?? {}) as Readonly<Record<string, unknown>>;

  server.setRequestHandler(
    ListPromptsRequestSchema,
    guarded(async (request) => {
      const served = await readPromptList(store, reader, defaults.label, rollouts);
      const page = promptPage(
        served.map(({ prompt }) => prompt),
        request.params?.cursor,
      );
      const listed = new Set(page.prompts.map(({ name }) => name));
      for (const entry of served) if (listed.has(entry.prompt.promptId)) rollouts.record(entry);
      return page;
    }),
  );
  server.setRequestHandler(
    GetPromptRequestSchema,
    guarded(async (request) => {
      const name = request.params.name;
      const served = await readPrompt(store, reader, { promptId: name, label: defaults.label }, rollouts).catch((error: unknown) => {
        // Malformed, another account's, outside the key's scope, unpublished, deleted, or without the endpoint's label.
        if (error instanceof ApiError && error.statusCode < 500) throw invalidParams(`Unknown prompt: ${name}`);
        throw error;
      });
      const result = getPromptResult(served.prompt, sentArguments());
      rollouts.record(served);
      return { ...result, _meta: { ...result._meta, ...rolloutField(served) } };
    }),
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...TOOLS] }));
  server.setRequestHandler(
    CallToolRequestSchema,
    guarded(async (request) => callTool(store, reader, defaults, request.params.name, sentArguments(), rollouts)),
  );
  return server;
}

function webRequestOf(request: HttpRequest): Request {
  const headers = new Headers();
  for (const name of TRANSPORT_HEADERS) {
    const value = request.headers[name];
    if (value === undefined) continue;
    try {
      headers.set(name, value);
    } catch {
      // Not a value a fetch header may hold (a control character, a code point over 255): as if not sent.
    }
  }
  return new Request(`https://mcp.localhost${request.path}`, { method: 'POST', headers });
}

/** Header names as the rest of the service writes them (`Content-Type`), so that no answer carries one name twice. */
const canonical = (name: string): string => name.replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => dash + letter.toUpperCase());

async function resultOf(response: Response): Promise<ApiResult> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[canonical(name)] = value;
  });
  const body = await response.text();
  return { statusCode: response.status, headers, ...(body === '' ? {} : { body }) };
}
