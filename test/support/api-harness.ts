import { gunzipSync } from 'node:zlib';
import type { ApiStore } from '../../lambda/read-api/store/api-store';
import { CachedPromptStore, DEFAULT_PROMPT_CACHE } from '../../lambda/read-api/store/cached-prompt-store';
import { DynamoStore } from '../../lambda/read-api/store/dynamo-store';
import type { ApiDependencies } from '../../lambda/read-api/handlers/api-handler';
import { createFallbackHandler, createGetPromptHandler, createListPromptsHandler } from '../../lambda/read-api/handlers';
import { createMcpHandler } from '../../lambda/mcp/mcp-handler';
import { type ApiEvent, type ApiResult, readHttpRequest } from '../../lambda/http/http-event';
import { createTelemetry, type Telemetry } from '../../lambda/telemetry';
import { type EventOptions, apiEvent, lambdaContext } from './events';
import { Fixtures } from './fixtures';
import type { LogRecord } from './key-leak-check';
import { capturedRequestLines } from './log-capture';
import { type GatewayRoute, gatewayRouteFor, type LambdaFunction, type LambdaHandler } from '../../local/http-gateway';
import { type FunctionName, gatewayRoutes, type LocalFunctions } from '../../local/lambda-functions';
import { InvocationSlots, LOCAL_CONCURRENCY } from '../../local/invocation-slots';
import { type LocalStore, startLocalStore } from './local-store';
import { expectResponseMatchesOpenApi } from './openapi';

export const UPGRADE_URL = 'https://prompts.example.test/upgrade';

/** The service name the tests' functions log and count under. */
export const TEST_SERVICE_NAME = 'prompt-service-test';

/** Powertools' logger and metrics as a function builds them; their output is captured (log-capture.ts). */
export const testTelemetry = (): Telemetry => createTelemetry({ serviceName: TEST_SERVICE_NAME, logLevel: 'INFO' });

export interface ApiResponse {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly rawBody: string | undefined;
  readonly body: unknown;
  /** The body, read as the shape the test expects it to have. */
  json<T>(): T;
}

export interface ErrorBody {
  error: string;
  code: string;
  usage?: { used: number; limit: number };
  upgradeUrl?: string;
}

/** The body as a client reads it: a gzipped, base64-encoded answer decoded as a gateway and fetch would. */
export function decodedBody(result: ApiResult): string | undefined {
  if (!result.isBase64Encoded || result.body === undefined) return result.body;
  const bytes = Buffer.from(result.body, 'base64');
  const gzipped = Object.entries(result.headers).some(([name, value]) => name.toLowerCase() === 'content-encoding' && value === 'gzip');
  return (gzipped ? gunzipSync(bytes) : bytes).toString('utf8');
}

export function toApiResponse(result: ApiResult): ApiResponse {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers)) headers[name.toLowerCase()] = String(value);
  const rawBody = decodedBody(result);
  const body: unknown = rawBody === undefined || rawBody === '' ? undefined : JSON.parse(rawBody);
  return { status: result.statusCode, headers, rawBody, body, json: <T>() => body as T };
}

type Handler = (event: ApiEvent, context: ReturnType<typeof lambdaContext>) => Promise<ApiResult>;

/**
 * The four functions behind the methods the REST API is deployed with (lambda/read-api/routes.ts): each
 * route's function, and ANY to the fallback everywhere else.
 */
export class ApiHarness {
  clock = new Date('2026-11-15T12:00:00Z');
  store!: ApiStore;
  fixtures!: Fixtures;
  private local!: LocalStore;
  private functions!: LocalFunctions;
  private routes!: GatewayRoute[];
  private readonly slots = new InvocationSlots(LOCAL_CONCURRENCY.maxRunning, LOCAL_CONCURRENCY.maxWaiting);

  private logsFrom = 0;

  async start(): Promise<this> {
    this.logsFrom = capturedRequestLines(TEST_SERVICE_NAME).length;
    this.local = await startLocalStore();
    this.fixtures = new Fixtures(this.local.client, this.local.tableName);
    this.useStore(new DynamoStore(this.local.clients, this.local.tableName));
    return this;
  }

  /** The request lines the functions have written since the harness started, as written. */
  get logs(): readonly LogRecord[] {
    return capturedRequestLines(TEST_SERVICE_NAME).slice(this.logsFrom);
  }

  get localStore(): LocalStore {
    return this.local;
  }

  /** Swap the store the handlers use (e.g. one that fails on purpose); the table stays the same. */
  useStore(store: ApiStore): void {
    this.store = store;
    // As deployed: pinned versions come from memory once read.
    const prompts = new CachedPromptStore(store, DEFAULT_PROMPT_CACHE);
    const deps: ApiDependencies = {
      usage: store,
      prompts,
      remembered: prompts,
      upgradeUrl: UPGRADE_URL,
      now: () => this.clock,
      telemetry: testTelemetry(),
    };
    const fn = (name: FunctionName, handler: unknown): LambdaFunction => ({ name, handler: handler as LambdaHandler });
    this.functions = {
      getPrompt: fn('getPrompt', createGetPromptHandler(deps)),
      listPrompts: fn('listPrompts', createListPromptsHandler(deps)),
      fallback: fn('fallback', createFallbackHandler(deps)),
      mcp: fn('mcp', createMcpHandler(deps)),
    };
    this.routes = gatewayRoutes(this.functions);
  }

  realStore(): DynamoStore {
    return new DynamoStore(this.local.clients, this.local.tableName);
  }

  /** Sends one event as the gateway would, and holds every answer to the OpenAPI document. */
  async send(event: ApiEvent): Promise<ApiResponse> {
    // As many invocations at once as the local stack runs (a deployed function's concurrency, locally).
    const release = await this.slots.acquire();
    if (!release) throw new Error('more requests at once than the local stack queues');
    let result: ApiResult;
    try {
      result = await this.handlerFor(event)(event, lambdaContext());
    } finally {
      release();
    }
    const request = readHttpRequest(event);
    expectResponseMatchesOpenApi({
      method: request.method,
      path: request.path,
      status: result.statusCode,
      headers: result.headers,
      body: decodedBody(result),
    });
    return toApiResponse(result);
  }

  async request(method: string, pathWithQuery: string, options: EventOptions = {}): Promise<ApiResponse> {
    return this.send(apiEvent(method, pathWithQuery, options));
  }

  get(pathWithQuery: string, apiKey: string, headers: Record<string, string> = {}): Promise<ApiResponse> {
    return this.request('GET', pathWithQuery, { apiKey, headers });
  }

  async stop(): Promise<void> {
    await this.local.close();
  }

  /** The deployed REST API's methods, matched as the local gateway matches them. */
  private handlerFor(event: ApiEvent): Handler {
    const match = gatewayRouteFor(this.routes, event.httpMethod, event.path);
    return (match?.route.function ?? this.functions.fallback).handler as Handler;
  }
}
