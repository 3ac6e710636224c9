import { createFallbackHandler, createGetPromptHandler, createListPromptsHandler } from '../lambda/read-api/handlers';
import type { ApiDependencies } from '../lambda/read-api/handlers/api-handler';
import { createMcpHandler } from '../lambda/mcp/mcp-handler';
import { productionDependencies } from '../lambda/read-api/runtime';
import { FALLBACK_RESOURCES, GATEWAY_ROUTES } from '../lambda/read-api/routes';
import type { GatewayRoute, LambdaFunction, LambdaHandler } from './http-gateway';
import type { LocalConfig } from './local-config';

export const FUNCTION_NAMES = ['getPrompt', 'listPrompts', 'fallback', 'mcp'] as const;
export type FunctionName = (typeof FUNCTION_NAMES)[number];

export type LocalFunctions = Readonly<Record<FunctionName, LambdaFunction>>;

/**
 * The deployed functions, built as each Lambda builds itself at cold start (lambda/read-api/runtime.ts reads
 * the environment), once per process, from the environment the deployed stack would give them.
 */
export function createLocalFunctions(
  config: LocalConfig,
  storeEndpoint: string,
  { maxSockets, ...overrides }: Partial<Pick<ApiDependencies, 'observeRequests'>> & { readonly maxSockets?: number } = {},
): LocalFunctions {
  // What Lambda tells an on-demand function; Powertools reports cold starts only when it is set.
  process.env.AWS_LAMBDA_INITIALIZATION_TYPE ??= 'on-demand';
  const deps: ApiDependencies = {
    ...productionDependencies(
      {
        TABLE_NAME: config.tableName,
        UPGRADE_URL: config.upgradeUrl,
        AWS_REGION: config.region,
        DYNAMODB_ENDPOINT: storeEndpoint,
      },
      { maxSockets },
    ),
    ...overrides,
  };
  const fn = (name: FunctionName, handler: LambdaHandler): LambdaFunction => ({ name, handler });
  return {
    getPrompt: fn('getPrompt', createGetPromptHandler(deps)),
    listPrompts: fn('listPrompts', createListPromptsHandler(deps)),
    fallback: fn('fallback', createFallbackHandler(deps)),
    mcp: fn('mcp', createMcpHandler(deps)),
  };
}

/** The REST API's methods, as the deployed stack declares them: each route's function, and ANY to the fallback. */
export function gatewayRoutes(functions: LocalFunctions): GatewayRoute[] {
  return [
    ...GATEWAY_ROUTES.map((route) => ({
      routeKey: `${route.method} ${route.path}`,
      function: functions[route.function],
      readsBody: 'readsBody' in route && route.readsBody,
    })),
    ...FALLBACK_RESOURCES.map((resource) => ({ routeKey: `ANY ${resource}`, function: functions.fallback })),
  ];
}

export function isFunctionName(value: string): value is FunctionName {
  return (FUNCTION_NAMES as readonly string[]).includes(value);
}
