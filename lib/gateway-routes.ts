/**
 * The HTTP API's route table: which function serves which route. Everything else takes `$default`
 * to the fallback. The deployed stack (prompt-api.ts) and the local gateway (local/lambda-functions.ts)
 * both build their routes from this one list.
 */
export const GATEWAY_ROUTES = [
  { method: 'GET', path: '/prompts', function: 'listPrompts' },
  { method: 'GET', path: '/prompts/{promptId}', function: 'getPrompt' },
] as const;

export type RoutedFunction = (typeof GATEWAY_ROUTES)[number]['function'];
