import { methodNotAllowed, routeNotFound } from '../http/api-error';
import type { McpMessage } from '../mcp/mcp-message';

export type Route =
  | { readonly name: 'listPrompts' }
  | { readonly name: 'getPrompt'; readonly promptId: string }
  /** The MCP endpoint (lambda/mcp/), a function of its own; its message is read once the key is known to be there. */
  | { readonly name: 'mcp'; readonly message?: McpMessage };
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
