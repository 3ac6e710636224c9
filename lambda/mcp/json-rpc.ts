import { ErrorCode, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { ApiResult } from '../http/http-event';
import { jsonResponse } from '../http/responses';

/**
 * A JSON-RPC error a request is answered with: what a handler throws for the SDK's server to send
 * (it sends `code` and `message` as they are), or what the endpoint answers itself before the server runs.
 */
export class JsonRpcError extends Error {
  override readonly name = 'JsonRpcError';

  constructor(
    readonly code: number,
    message: string,
    readonly data?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
  }
}

export const invalidParams = (message: string, data?: Readonly<Record<string, unknown>>): JsonRpcError =>
  new JsonRpcError(ErrorCode.InvalidParams, message, data);

/**
 * The answer to a body the SDK's server never sees: not JSON (-32700) or not a JSON-RPC request (-32600),
 * HTTP 400 with no id to answer to, as the SDK's transport answers them; or a request whose params its
 * method's schema refuses (-32602), HTTP 200 with the request's id, as the server answers any error of a request.
 */
export function jsonRpcErrorAnswer(id: RequestId | null, error: JsonRpcError): ApiResult {
  return jsonResponse(id === null ? 400 : 200, {
    jsonrpc: '2.0',
    id,
    error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) },
  });
}
