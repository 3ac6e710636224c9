import type { IncomingMessage, ServerResponse } from 'node:http';
import { createManagementHandler, type ManagementDependencies } from '../lambda/management-api/management-handler';
import { MANAGEMENT_FUNCTIONS, managementAnswerBody, managementAnswerHeaders, managementGatewayAnswer } from '../lambda/management-api/routes';
import { managementDependencies } from '../lambda/management-api/runtime';
import { createStreamingManagementHandler } from '../lambda/management-api/streaming-handler';
import { RUN_FUNCTION_TIMEOUT_MS } from '../lambda/features/runs/run-prompt';
import { loadModelsConfig } from '../lambda/config';
import { createModels, type Models } from '../lambda/models/models';
import { createGatewayListener, type GatewayAnswerWriter, type GatewayRoute, type LambdaHandler } from './http-gateway';

/** What the identity stand-in's verifier says of a token: the claims, as strings, or undefined when it is not valid. */
export type TokenVerifier = (token: string) => Promise<Record<string, string> | undefined>;

export interface ManagementGatewayOptions {
  /** Checks what the deployed Cognito authorizer checks (signature, issuer, audience, `token_use`, expiry). */
  readonly verifyToken: TokenVerifier;
  /**
   * The functions' environment as the stack gives it: TABLE_NAME, USER_POOL_ID, and locally
   * DYNAMODB_ENDPOINT and COGNITO_ENDPOINT (the stand-in). Read once, as a cold start does.
   */
  readonly environment?: Readonly<Record<string, string>>;
  /** Ready-made dependencies instead of the environment (tests). */
  readonly dependencies?: ManagementDependencies;
  /** The run function's models instead of the environment's catalog (tests). */
  readonly models?: Models;
  /** A function that threw: the gateway answers 502, the developer should see why. */
  readonly onFunctionError?: (functionName: string, error: unknown) => void;
  readonly concurrency?: { readonly maxRunning: number; readonly maxWaiting: number };
}

/** `Authorization: Bearer <token>` (or the bare token, which the REST API's Cognito authorizer takes too). */
export function bearerTokenOf(headers: IncomingMessage['headers']): string | undefined {
  const value = headers.authorization;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(value.trim());
  return match ? match[1] : /\s/.test(value.trim()) ? undefined : value.trim();
}

const writeManagementAnswer: GatewayAnswerWriter = (response: ServerResponse, type, gatewayStatus) => {
  const answer = managementGatewayAnswer(type === 'WAF_FILTERED' || type === 'QUOTA_EXCEEDED' ? 'THROTTLED' : type);
  const status = answer.statusCode ?? gatewayStatus ?? 500;
  response.writeHead(status, managementAnswerHeaders(answer));
  response.end(managementAnswerBody(answer));
};

/**
 * The management REST API locally, as a node request listener for the dashboard's origin to hand
 * `/api/*` to: the same methods (MANAGEMENT_FUNCTIONS), a token check on every one in place of the
 * Cognito authorizer (the verifier's claims go into the event exactly where the authorizer puts them),
 * the same Lambda proxy events, and the gateway's own answers from the same table as the deployed one.
 */
export function createManagementGateway(options: ManagementGatewayOptions): (request: IncomingMessage, response: ServerResponse) => void {
  const environment = { ...process.env, ...options.environment };
  const deps = options.dependencies ?? managementDependencies(environment);
  // Made on the first run, as the run function's cold start makes them: a stack that runs nothing reads no catalog.
  let models = options.models;
  const runDeps = () => {
    models ??= createModels(loadModelsConfig(environment));
    return { ...deps, models };
  };
  const routes: GatewayRoute[] = MANAGEMENT_FUNCTIONS.flatMap((fn) => {
    // The run function's answers stream, as its deployed integration's do: the gateway pipes a body that is a stream.
    let streaming: LambdaHandler | undefined;
    const handler: LambdaHandler = fn.streaming
      ? (event, context) => {
          streaming ??= createStreamingManagementHandler(runDeps(), fn.routes);
          return streaming(event, context);
        }
      : createManagementHandler(deps, fn.routes);
    // Bodies are read once the token is checked, never before (http-gateway.ts).
    const timeout = fn.streaming ? { timeoutMs: RUN_FUNCTION_TIMEOUT_MS } : {};
    return fn.routes.map((route) => ({ routeKey: `${route.method} ${route.path}`, function: { name: fn.id, handler, ...timeout }, readsBody: true }));
  });
  return createGatewayListener({
    routes,
    concurrency: options.concurrency ?? { maxRunning: 16, maxWaiting: 1_000 },
    onFunctionError: options.onFunctionError ?? (() => undefined),
    writeAnswer: writeManagementAnswer,
    authorize: async (headers) => {
      const token = bearerTokenOf(headers);
      return token === undefined ? undefined : options.verifyToken(token);
    },
  });
}
