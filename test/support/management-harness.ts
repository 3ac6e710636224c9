import type { APIGatewayProxyEvent } from 'aws-lambda';
import { runAdmin } from '../../admin/cli';
import type { ApiResult } from '../../lambda/http/http-event';
import { createManagementHandler, type ManagementDependencies } from '../../lambda/management-api/management-handler';
import { text } from 'node:stream/consumers';
import { createStreamingManagementHandler } from '../../lambda/management-api/streaming-handler';
import type { ManagementRoute } from '../../lambda/management-api/route';
import { createModels, type Models } from '../../lambda/models/models';
import { localCatalog } from '../../lambda/models/catalog';
import { type ModelStandIn, startModelStandIn } from '../../local/model-stand-in/server';
import { MANAGEMENT_FUNCTIONS, type ManagementFunction } from '../../lambda/management-api/routes';
import { Operations } from '../../lambda/operations';
import type { Role } from '../../lambda/table/item-types';
import { Table } from '../../lambda/table/table';
import { gatewayRouteFor, type LambdaFunction, restEvent } from '../../local/http-gateway';
import { type ApiResponse, testTelemetry, toApiResponse } from './api-harness';
import { lambdaContext } from './events';
import { Fixtures } from './fixtures';
import { type LocalStore, startLocalStore } from './local-store';
import { MemoryDirectory } from './memory-directory';
import { expectAnswerKeepsContract } from './management-contracts';
import { expectManagementResponseMatches } from './management-openapi';
import { capturedRequestLines, registerApiKey } from './log-capture';
import { TEST_SERVICE_NAME } from './api-harness';
import type { LogRecord } from './key-leak-check';
import type { Actor } from '../../lambda/domain/actor';
import { addMember } from '../../lambda/features/members/operations';
import { localWebhookTools } from './webhook-tools';

export interface Person {
  readonly userId: string;
  readonly email: string;
}

export interface SendOptions {
  readonly as?: Person | null;
  readonly body?: unknown;
  /** A body sent as is (not JSON-encoded). */
  readonly rawBody?: string;
  readonly headers?: Record<string, string>;
  /** Claims as the authorizer would pass them, replacing the person's. */
  readonly claims?: Record<string, string>;
}

type Handler = (event: APIGatewayProxyEvent, context: ReturnType<typeof lambdaContext>) => Promise<ApiResult>;

/** The claims a REST API Cognito user-pool authorizer hands a function for a valid ID token: all strings. */
export function idTokenClaims(person: Person): Record<string, string> {
  return {
    sub: person.userId,
    email: person.email,
    email_verified: 'true',
    'cognito:username': person.userId,
    token_use: 'id',
    iss: 'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_TestPool',
    aud: 'test-client-id',
    auth_time: '1795000000',
    iat: '1795000000',
    exp: '1795003600',
  };
}

/**
 * The management functions as deployed behind the REST API: each route's function, a Cognito
 * authorizer's claims on each event, against a real local store (dynalite) and a user directory in memory.
 */
export class ManagementHarness {
  readonly directory = new MemoryDirectory();
  local!: LocalStore;
  fixtures!: Fixtures;
  deps!: ManagementDependencies;
  private functions: { name: string; routes: readonly ManagementRoute[]; handler: Handler }[] = [];
  private logsFrom = 0;

  async start(): Promise<this> {
    this.logsFrom = capturedRequestLines(TEST_SERVICE_NAME).length;
    this.local = await startLocalStore();
    this.fixtures = new Fixtures(this.local.client, this.local.tableName);
    this.deps = {
      table: new Table(this.local.clients.reads, this.local.tableName, () => new Date(), { writeClient: this.local.clients.writes }),
      directory: this.directory,
      telemetry: testTelemetry(),
      webhooks: localWebhookTools(),
    };
    this.useDependencies(this.deps);
    return this;
  }

  /** The functions built on `deps`; `functions` other than the route table's only where a test needs a route of its own. */
  useDependencies(deps: ManagementDependencies, functions: readonly ManagementFunction[] = MANAGEMENT_FUNCTIONS): void {
    this.functions = functions.map((fn) => ({
      name: fn.id,
      routes: fn.routes,
      handler: fn.streaming ? this.streamingHandler(deps, fn.routes) : createManagementHandler(deps, fn.routes),
    }));
  }

  /**
   * The run function's models: a test may set them; otherwise the local stand-in model is started for them on the
   * first run (and stopped with the harness). Its answers stream; here each is read to its end.
   */
  models: Models | undefined;

  /** Started for the run function when a test gave it no models: the local stand-in model, as npm start's. */
  private standIn: ModelStandIn | undefined;

  private async defaultModels(): Promise<Models> {
    this.standIn ??= await startModelStandIn();
    return createModels({ catalog: localCatalog(), region: 'us-east-1', standInEndpoint: this.standIn.url, endpointKeys: new Map() });
  }

  private streamingHandler(deps: ManagementDependencies, routes: readonly ManagementRoute[]): Handler {
    return async (event, context) => {
      this.models ??= await this.defaultModels();
      const result = await createStreamingManagementHandler({ ...deps, models: this.models }, routes)(event, context);
      return { ...result, body: result.body === undefined || typeof result.body === 'string' ? (result.body ?? '') : await text(result.body) };
    };
  }

  /** The request lines the functions wrote since the harness started. */
  get logs(): readonly LogRecord[] {
    return capturedRequestLines(TEST_SERVICE_NAME).slice(this.logsFrom);
  }

  /** The operator's table, as the CLI uses it. */
  get table(): Table {
    return new Table(this.local.client, this.local.tableName, () => new Date());
  }

  operations(actor: Actor = { type: 'cli', operator: 'test' }): Operations {
    return new Operations({ table: this.table, actor, directory: this.directory, ...(this.deps.webhooks ? { webhooks: this.deps.webhooks } : {}) });
  }

  /** The admin CLI in-process against the harness's store and directory, as `operator` (PROMPTS_ADMIN_ACTOR). */
  async cli(operator: string, ...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const code = await runAdmin(
      argv,
      { TABLE_NAME: this.local.tableName, DYNAMODB_ENDPOINT: this.local.endpoint, PROMPTS_ADMIN_ACTOR: operator },
      { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) },
      () => new Date(),
      { directory: this.directory, ...(this.deps.webhooks ? { webhooks: this.deps.webhooks } : {}) },
    );
    return { code, stdout, stderr };
  }

  /** A person who can sign in, a member of `accountId` with `role` (added as an operator would). */
  async person(email: string, accountId?: string, role: Role = 'viewer'): Promise<Person> {
    const user = (await this.directory.findByEmail(email)) ?? this.directory.add(email);
    if (accountId) await addMember(this.table, accountId, { userId: user.userId, email: user.email, role }, 'cli:test');
    return user;
  }

  async send(method: string, pathWithQuery: string, options: SendOptions = {}): Promise<ApiResponse> {
    const url = new URL(pathWithQuery, 'https://dashboard.example.test');
    const routes = this.functions.flatMap((fn) =>
      fn.routes.map((route) => ({ routeKey: `${route.method} ${route.path}`, function: { name: fn.name, handler: fn.handler } as unknown as LambdaFunction })),
    );
    const match = gatewayRouteFor(routes, method, url.pathname);
    if (!match) throw new Error(`the REST API has no method ${method} ${url.pathname}`);
    const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    const rawHeaders = Object.entries({ 'Content-Type': 'application/json', Authorization: 'Bearer test-id-token', ...options.headers }).flat();
    const event = restEvent({
      method,
      rawPath: url.pathname,
      rawQueryString: url.search.slice(1),
      rawHeaders,
      resource: match.resource,
      pathParameters: match.pathParameters,
      body: Buffer.from(body ?? '', 'utf8'),
      sourceIp: '127.0.0.1',
      protocol: 'HTTP/1.1',
      stage: 'prod',
      now: new Date(),
    });
    const claims = options.claims ?? (options.as ? idTokenClaims(options.as) : undefined);
    if (claims) (event.requestContext as { authorizer?: unknown }).authorizer = { claims };
    const handler = match.route.function.handler as unknown as Handler;
    const response = toApiResponse(await handler(event, lambdaContext()));
    // Every answer is what its route's contract allows, and what openapi-management.yaml says.
    const route = this.functions.flatMap((fn) => fn.routes).find((candidate) => candidate.method === method && candidate.path === match.resource);
    if (!route) throw new Error(`no route ${method} ${match.resource}`);
    expectAnswerKeepsContract(route, response.status, response.body);
    expectManagementResponseMatches({ method, resource: match.resource, status: response.status, headers: response.headers, body: response.body });
    // A key handed out (its one 201) joins the keys the run's logs are grepped for.
    const apiKey = (response.body as { apiKey?: unknown } | undefined)?.apiKey;
    if (typeof apiKey === 'string') registerApiKey(apiKey);
    return response;
  }

  async stop(): Promise<void> {
    await Promise.all([this.local.close(), this.standIn?.close()]);
  }
}
