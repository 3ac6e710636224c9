import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { type ApiDependencies, createApiHandler } from '../read-api/handlers/api-handler';
import type { RouteHandler } from '../read-api/handlers/route-handler';
import { labelOf } from '../read-api/label-query';
import { ALLOWED_REQUEST_HEADERS, type CorsRules, EXPOSED_HEADERS } from '../read-api/middleware/cors';
import { MCP_ALLOWED_METHODS } from '../read-api/routes';
import type { PromptStore } from '../read-api/store/api-store';
import { invalidParams, JsonRpcError, jsonRpcErrorAnswer } from './json-rpc';
import { mcpMessageReader, messageOf } from './mcp-message';
import { foreseeMcp } from './mcp-foresight';
import { answerMessage } from './mcp-server';

/** The headers of the Streamable HTTP transport, which a browser page must be allowed to send and read. */
const MCP_HEADERS = 'Mcp-Protocol-Version, Mcp-Session-Id';

/** As on every read route, with POST for GET and the transport's headers allowed and exposed. */
export const MCP_CORS: CorsRules = {
  methods: MCP_ALLOWED_METHODS,
  allowedHeaders: `${ALLOWED_REQUEST_HEADERS}, ${MCP_HEADERS}`,
  exposedHeaders: `${EXPOSED_HEADERS}, ${MCP_HEADERS}`,
};

/**
 * POST /mcp once the key is checked (and counted, for a message that reads prompts): `?label=` first, then
 * the body, whose faults are answered in JSON-RPC's own terms; a well-formed message goes to the SDK's server.
 */
export const mcpEndpoint =
  (store: PromptStore): RouteHandler<'mcp'> =>
  async ({ request, reader, rollouts }) => {
    const defaults = { label: labelOf(request) };
    const read = messageOf(request);
    if (read === undefined) throw new Error('the MCP route reached its handler without its message');
    switch (read.kind) {
      case 'unparsable':
        return jsonRpcErrorAnswer(null, new JsonRpcError(ErrorCode.ParseError, 'Parse error: the body is not JSON'));
      case 'invalid':
        return jsonRpcErrorAnswer(null, new JsonRpcError(ErrorCode.InvalidRequest, `Invalid Request: ${read.reason}`));
      case 'bad-params':
        return jsonRpcErrorAnswer(read.id, invalidParams(`Invalid params for ${read.method}: ${read.problem}`));
      case 'message':
        return answerMessage(read.message, request, { store, reader, defaults, rollouts });
    }
  };

/**
 * The MCP endpoint's function: the read API's chain (CORS, route, key, quota, errors, request logs) with its
 * own CORS rules and its message read before the key check, which decides whether that check counts a unit.
 */
export const createMcpHandler = (deps: ApiDependencies) =>
  createApiHandler(
    deps,
    { mcp: mcpEndpoint(deps.prompts) },
    {
      cors: MCP_CORS,
      beforeKeyCheck: mcpMessageReader(),
      foresights: { mcp: foreseeMcp },
    },
  );
