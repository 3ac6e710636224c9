/**
 * The REST API's routes: which function serves which method of which resource. The deployed stack
 * (prompt-api.ts), the local gateway (local/lambda-functions.ts) and the test harness all build theirs
 * from these lists.
 */
export const GATEWAY_ROUTES = [
  { method: 'GET', path: '/prompts', function: 'listPrompts' },
  { method: 'GET', path: '/prompts/{promptId}', function: 'getPrompt' },
  // Every method of /mcp goes to the MCP function, which answers its own preflight and 405s (POST, OPTIONS):
  // so no gateway can give a POST to a function that does not speak MCP. Its function alone reads a body.
  { method: 'ANY', path: '/mcp', function: 'mcp', readsBody: true },
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
