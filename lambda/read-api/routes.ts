import { methodNotAllowed, routeNotFound } from '../http/api-error';

export type Route = { readonly name: 'listPrompts' } | { readonly name: 'getPrompt'; readonly promptId: string };
export type RouteName = Route['name'];

const PROMPT_PATH = /^\/prompts\/([^/]*)$/;

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * The service's routing, checked in the order docs/behaviour-rules.md fixes: method first, then path.
 * OPTIONS never gets here: CORS answers every preflight before routing.
 */
export function matchRoute(method: string, path: string): Route {
  if (method !== 'GET') throw methodNotAllowed();
  if (path === '/prompts') return { name: 'listPrompts' };
  const match = PROMPT_PATH.exec(path);
  // A segment that is not valid percent-encoding still names the prompt route; the handler rejects the id.
  if (match) return { name: 'getPrompt', promptId: decodeSegment(match[1] ?? '') ?? match[1] ?? '' };
  throw routeNotFound();
}
