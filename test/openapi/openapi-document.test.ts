import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoStore } from '../../lambda/read-api/store/dynamo-store';
import type { PromptLookup } from '../../lambda/read-api/store/api-store';
import type { ApiDependencies } from '../../lambda/read-api/handlers/api-handler';
import { createFallbackHandler, createGetPromptHandler, createListPromptsHandler } from '../../lambda/read-api/handlers';
import type { ApiResult } from '../../lambda/http/http-event';
import { GATEWAY_ANSWERS, gatewayAnswer, gatewayAnswerBody } from '../../lambda/read-api/routes';
import { testTelemetry } from '../support/api-harness';
import { apiEvent, lambdaContext } from '../support/events';
import { Fixtures, prompt, version } from '../support/fixtures';
import { type LocalStore, startLocalStore } from '../support/local-store';
import { validateWithOpenApiSchemaValidator } from '../support/openapi-validator';
import {
  expectResponseMatchesOpenApi,
  HTTP_METHODS,
  loadOpenApiDocument,
  type ObservedResponse,
  type OpenApiDocument,
  type ResponseObject,
  resolveReference,
  type HeaderObject,
} from '../support/openapi';
import { StoreUnavailableError } from '../../lambda/table/errors';

const ROOT = join(__dirname, '..', '..');
const document = loadOpenApiDocument();

function documentedStatuses(method: string, path: string): string[] {
  const operation = document.paths[path]?.[method as (typeof HTTP_METHODS)[number]];
  return Object.keys(operation?.responses ?? {}).sort();
}

function errorCodesOfSource(): string[] {
  const source = readFileSync(join(ROOT, 'lambda', 'http', 'api-error.ts'), 'utf8');
  const union = /export type ErrorCode =([^;]+);/.exec(source)?.[1] ?? '';
  return [...union.matchAll(/'([A-Z_]+)'/g)].map((match) => match[1] ?? '');
}

describe('openapi.yaml, the document', () => {
  test('is valid OpenAPI 3.1 for @seriousme/openapi-schema-validator, which rejects a broken copy', () => {
    const { info: _info, ...withoutInfo } = document as OpenApiDocument & { info: unknown };
    const [whole, broken] = validateWithOpenApiSchemaValidator([document, withoutInfo]);

    expect(document.openapi).toBe('3.1.0');
    expect(whole).toEqual({ valid: true });
    expect(broken?.valid).toBe(false);
  });

  test('documents every status docs/behaviour-rules.md gives each operation, and no other', () => {
    expect(documentedStatuses('get', '/prompts/{promptId}')).toEqual(['200', '304', '400', '401', '404', '405', '429', '500', '503'].sort());
    expect(documentedStatuses('get', '/prompts')).toEqual(['200', '304', '400', '401', '405', '429', '500', '503'].sort());
    expect(documentedStatuses('options', '/prompts/{promptId}')).toEqual(['204']);
    expect(documentedStatuses('options', '/prompts')).toEqual(['204']);
    expect(documentedStatuses('post', '/mcp')).toEqual(['200', '202', '400', '401', '406', '415', '429', '500', '503'].sort());
    expect(documentedStatuses('options', '/mcp')).toEqual(['204']);
    expect(Object.keys(document.paths).sort()).toEqual(['/mcp', '/prompts', '/prompts/{promptId}']);
  });

  test('documents the requests no operation covers: other methods 405, other paths 404, preflight 204', () => {
    const unmatched = document['x-unmatched-requests'];
    expect(unmatched.otherMethod.response).toEqual({ $ref: '#/components/responses/MethodNotAllowed' });
    expect(unmatched.otherPath.response).toEqual({ $ref: '#/components/responses/RouteNotFound' });
    expect(unmatched.preflight.response).toEqual({ $ref: '#/components/responses/Preflight' });
  });

  test("documents the gateway's own answers with the codes and texts lambda/read-api/routes.ts deploys", () => {
    const raw = document as OpenApiDocument & {
      'x-gateway-responses': Record<string, { response?: { $ref: string } }>;
      components: { responses: Record<string, { content: Record<string, { examples: Record<string, { value: unknown }> }> }> };
    };
    const gateway = raw['x-gateway-responses'];
    expect(gateway.throttled?.response).toEqual({ $ref: '#/components/responses/RateLimited' });
    expect(gateway.requestTooLarge?.response).toEqual({ $ref: '#/components/responses/PayloadTooLarge' });
    const example = (name: string) => Object.values(raw.components.responses[name]?.content['application/json']?.examples ?? {})[0]?.value;
    expect(example('RateLimited')).toEqual(JSON.parse(gatewayAnswerBody(gatewayAnswer('THROTTLED'))));
    expect(example('PayloadTooLarge')).toEqual(JSON.parse(gatewayAnswerBody(gatewayAnswer('REQUEST_TOO_LARGE'))));
    const codes = (document.components.schemas.ErrorCode as { enum: string[] }).enum;
    for (const answer of GATEWAY_ANSWERS) expect(codes).toContain(answer.code);
  });

  test('lists exactly the error codes of lambda/http/api-error.ts', () => {
    const enumInDocument = (document.components.schemas.ErrorCode as { enum: string[] }).enum;
    const inSource = errorCodesOfSource();

    expect(inSource.length).toBeGreaterThan(0);
    expect([...enumInDocument].sort()).toEqual([...inSource].sort());
  });

  test('requires a Bearer key everywhere but on OPTIONS', () => {
    const raw = document as OpenApiDocument & {
      security: unknown;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(raw.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(raw.security).toEqual([{ bearerAuth: [] }]);
    for (const item of Object.values(document.paths)) {
      expect(item.options?.security).toEqual([]);
      expect(item.get?.security).toBeUndefined();
      expect(item.post?.security).toBeUndefined();
    }
  });

  test('fixes the header values docs/behaviour-rules.md fixes', () => {
    const header = (name: string) => resolveReference<HeaderObject>(document.components.headers[name] as HeaderObject).schema;
    expect(header('Allow')).toMatchObject({ enum: ['GET, OPTIONS', 'POST, OPTIONS'] });
    expect(header('AccessControlAllowOrigin')).toMatchObject({ const: '*' });
    expect(header('AccessControlAllowMethods')).toMatchObject({ const: 'GET, OPTIONS' });
    expect(header('AccessControlAllowHeaders')).toMatchObject({ const: 'Authorization, Content-Type, If-None-Match, X-Prompt-Subject' });
    expect(header('AccessControlMaxAge')).toMatchObject({ const: 7200 });
    expect(header('AccessControlExposeHeaders')).toMatchObject({
      enum: [
        'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, ETag, X-Prompt-Rollout',
        'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, ETag, X-Prompt-Rollout, Mcp-Protocol-Version, Mcp-Session-Id',
      ],
    });
    expect(header('CacheControlPrompt')).toMatchObject({
      enum: ['private, max-age=31536000, immutable', 'private, no-cache'],
    });
    expect(header('CacheControlRevalidate')).toMatchObject({ const: 'private, no-cache' });
    expect(header('WWWAuthenticate')).toMatchObject({
      enum: ['Bearer realm="prompts"', 'Bearer realm="prompts", error="invalid_token"'],
    });
  });
});

// ---- responses built from the document's own examples

const EXAMPLE_PATHS: Record<string, string> = {
  '/prompts': '/prompts',
  '/prompts/{promptId}': '/prompts/welcome-email',
};

interface ExampleResponse {
  readonly name: string;
  readonly observed: ObservedResponse;
}

function headersFromExamples(response: ResponseObject): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, declared] of Object.entries(response.headers ?? {})) {
    const example = (resolveReference<HeaderObject>(declared) as HeaderObject & { example?: unknown }).example;
    if (example !== undefined) headers[name] = String(example);
  }
  return headers;
}

/** One response per example (and one per body-less response) of every operation, as the document shows it. */
function exampleResponses(): ExampleResponse[] {
  const responses: ExampleResponse[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      for (const [status, declared] of Object.entries(item[method]?.responses ?? {})) {
        const response = resolveReference<ResponseObject>(declared);
        const base = {
          method: method.toUpperCase(),
          path: EXAMPLE_PATHS[template] ?? template,
          status: Number(status),
          headers: headersFromExamples(response),
        };
        const media = response.content?.['application/json'];
        if (!media) {
          responses.push({ name: `${base.method} ${template} ${status}`, observed: base });
          continue;
        }
        for (const [exampleName, example] of Object.entries(media.examples ?? {})) {
          responses.push({
            name: `${base.method} ${template} ${status} ${exampleName}`,
            observed: {
              ...base,
              headers: { ...base.headers, 'Content-Type': 'application/json' },
              body: JSON.stringify(example.value),
            },
          });
        }
      }
    }
  }
  return responses;
}

const examples = exampleResponses();

function example(name: string): ObservedResponse {
  const found = examples.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no example ${name}`);
  return found.observed;
}

describe('the examples of openapi.yaml', () => {
  test('cover every documented response', () => {
    const documented = Object.entries(document.paths).flatMap(([template, item]) =>
      HTTP_METHODS.flatMap((method) => Object.keys(item[method]?.responses ?? {}).map((status) => `${method.toUpperCase()} ${template} ${status}`)),
    );
    for (const response of documented) {
      expect(examples.some(({ name }) => name.startsWith(response))).toBe(true);
    }
  });

  test.each(examples.map(({ name, observed }) => [name, observed] as const))('%s matches its own schemas', (_name, observed) => {
    expect(() => expectResponseMatchesOpenApi(observed)).not.toThrow();
  });
});

// ---- the checker itself: it must be able to fail

describe('expectResponseMatchesOpenApi', () => {
  const found = example('GET /prompts/{promptId} 200 latest');
  const quota = example('GET /prompts/{promptId} 429 freePlanUsedUp');
  const notFound = example('GET /prompts/{promptId} 404 promptNotFound');
  const withoutHeader = (observed: ObservedResponse, name: string): ObservedResponse => {
    const { [name]: _dropped, ...headers } = observed.headers as Record<string, string>;
    return { ...observed, headers };
  };
  const withBody = (observed: ObservedResponse, change: (body: Record<string, unknown>) => void): ObservedResponse => {
    const body = JSON.parse(observed.body ?? '') as Record<string, unknown>;
    change(body);
    return { ...observed, body: JSON.stringify(body) };
  };

  test('accepts header names in any case, and a fetch Headers object', () => {
    const lowerCase = Object.fromEntries(Object.entries(found.headers as Record<string, string>).map(([name, value]) => [name.toLowerCase(), value]));
    expect(() => expectResponseMatchesOpenApi({ ...found, headers: lowerCase })).not.toThrow();
    expect(() => expectResponseMatchesOpenApi({ ...found, headers: new Headers(found.headers as Record<string, string>) })).not.toThrow();
  });

  test('rejects an error body without code', () => {
    const observed = withBody(notFound, (body) => delete body.code);
    expect(() => expectResponseMatchesOpenApi(observed)).toThrow(/body must have required property 'code'/);
  });

  test('rejects an error code the response does not document', () => {
    const observed = withBody(notFound, (body) => (body.code = 'BAD_REQUEST'));
    expect(() => expectResponseMatchesOpenApi(observed)).toThrow(/body\/code must be equal to one of the allowed values/);
  });

  test('rejects a 429 without usage', () => {
    const observed = withBody(quota, (body) => delete body.usage);
    expect(() => expectResponseMatchesOpenApi(observed)).toThrow(/body must have required property 'usage'/);
  });

  test('rejects a 429 without Retry-After', () => {
    expect(() => expectResponseMatchesOpenApi(withoutHeader(quota, 'Retry-After'))).toThrow(/header Retry-After is required but missing/);
  });

  test('rejects a 200 without X-RateLimit-Reset', () => {
    expect(() => expectResponseMatchesOpenApi(withoutHeader(found, 'X-RateLimit-Reset'))).toThrow(/header X-RateLimit-Reset is required but missing/);
  });

  test('rejects a rate-limit header that is not an integer', () => {
    const observed = { ...found, headers: { ...(found.headers as Record<string, string>), 'X-RateLimit-Remaining': '4.5' } };
    expect(() => expectResponseMatchesOpenApi(observed)).toThrow(/header X-RateLimit-Remaining: "4.5" must be integer/);
  });

  test('rejects a status the operation does not document', () => {
    expect(() => expectResponseMatchesOpenApi({ ...notFound, path: '/prompts' })).toThrow(
      /GET \/prompts -> 404 does not match openapi\.yaml \(paths\.\/prompts\.get\.responses\):\n {2}- status 404 is not documented/,
    );
    expect(() => expectResponseMatchesOpenApi({ ...found, status: 418 })).toThrow(/status 418 is not documented/);
  });

  test('rejects a prompt with a field the schema does not have, or a temperature above 2', () => {
    const extraField = withBody(found, (body) => (body.pk = 'ACCOUNT#acme'));
    const hot = withBody(found, (body) => ((body.config as Record<string, unknown>).temperature = 2.5));
    expect(() => expectResponseMatchesOpenApi(extraField)).toThrow(/body must NOT have additional properties \("pk"\)/);
    expect(() => expectResponseMatchesOpenApi(hot)).toThrow(/body\/config\/temperature must be <= 2/);
  });

  test('rejects publishedVersions on GET /prompts/{promptId}', () => {
    const observed = withBody(found, (body) => (body.publishedVersions = [{ version: '1.2.0', userMessage: 'x' }]));
    expect(() => expectResponseMatchesOpenApi(observed)).toThrow(/body\/publishedVersions boolean schema is false/);
  });

  test('rejects a body on 304, a missing body on 200, and a body that is not application/json', () => {
    const notModified = example('GET /prompts/{promptId} 304');
    expect(() => expectResponseMatchesOpenApi({ ...notModified, body: '{}' })).toThrow(/documents no body/);
    expect(() => expectResponseMatchesOpenApi({ ...found, body: undefined })).toThrow(/body, got none/);
    const text = { ...found, headers: { ...(found.headers as Record<string, string>), 'Content-Type': 'text/plain' } };
    expect(() => expectResponseMatchesOpenApi(text)).toThrow(/Content-Type is "text\/plain"/);
  });

  test('holds other methods to 405 and other paths to 404, on any path', () => {
    const methodNotAllowed = example('GET /prompts/{promptId} 405 post');
    expect(() => expectResponseMatchesOpenApi({ ...methodNotAllowed, method: 'DELETE', path: '/nowhere' })).not.toThrow();
    expect(() => expectResponseMatchesOpenApi({ ...notFound, method: 'POST' })).toThrow(
      /x-unmatched-requests\.otherMethod[\s\S]*status 404 is not documented \(documented: 405/,
    );
    const routeNotFound = { ...notFound, path: '/nowhere', body: '{"error":"Not found","code":"NOT_FOUND"}' };
    expect(() => expectResponseMatchesOpenApi(routeNotFound)).not.toThrow();
    expect(() => expectResponseMatchesOpenApi({ ...routeNotFound, body: notFound.body })).toThrow(/body\/error must be equal to constant \("Not found"\)/);
  });
});

// ---- the real handlers, against a real (local) store

const ACCOUNT = 'acme';
const NOW = new Date('2026-11-15T12:00:00Z');

type Handler = (event: ReturnType<typeof apiEvent>, context: ReturnType<typeof lambdaContext>) => Promise<ApiResult>;

/** Which function the REST API's methods send a request to. */
function handlerFor(deps: ApiDependencies, method: string, path: string): Handler {
  const pathOnly = path.replace(/\?.*$/, '');
  if (method === 'GET' && pathOnly === '/prompts') return createListPromptsHandler(deps);
  if (method === 'GET' && /^\/prompts\/[^/]+$/.test(pathOnly)) return createGetPromptHandler(deps);
  return createFallbackHandler(deps);
}

class FailingPromptStore extends DynamoStore {
  constructor(
    local: LocalStore,
    private readonly failure: () => Error,
  ) {
    super(local.clients, local.tableName);
  }

  override async findLatestPrompt(): Promise<PromptLookup> {
    throw this.failure();
  }
}

describe('responses of the real handlers match openapi.yaml', () => {
  let local: LocalStore;
  let apiKey: string;
  let usedUpKey: string;

  beforeAll(async () => {
    local = await startLocalStore();
    const fixtures = new Fixtures(local.client, local.tableName);
    await fixtures.account(ACCOUNT);
    apiKey = await fixtures.apiKey(ACCOUNT);
    usedUpKey = await fixtures.apiKey(ACCOUNT, { monthlyLimit: 0 });
    await fixtures.prompts(ACCOUNT, prompt('welcome-email', [version('1.1.0'), version('1.2.0')], { labels: { production: '1.1.0' } }));
  });

  afterAll(async () => {
    await local.close();
  });

  type Key = 'valid' | 'usedUp' | 'none' | 'unknown';
  type Store = 'local' | 'unavailable' | 'broken';
  interface Case {
    readonly method: string;
    readonly path: string;
    readonly key?: Key;
    readonly headers?: Record<string, string>;
    readonly store?: Store;
    readonly status: number;
    readonly code?: string;
  }

  const cases: Record<string, Case> = {
    'latest version': { method: 'GET', path: '/prompts/welcome-email', status: 200 },
    'pinned version': { method: 'GET', path: '/prompts/welcome-email?version=1.1.0', status: 200 },
    'If-None-Match matches': {
      method: 'GET',
      path: '/prompts/welcome-email',
      headers: { 'If-None-Match': '*' },
      status: 304,
    },
    list: { method: 'GET', path: '/prompts', status: 200 },
    'list with versions': { method: 'GET', path: '/prompts?include_versions=true', status: 200 },
    'at a label': { method: 'GET', path: '/prompts/welcome-email?label=production', status: 200 },
    'at a label, If-None-Match matches': {
      method: 'GET',
      path: '/prompts/welcome-email?label=production',
      headers: { 'If-None-Match': '*' },
      status: 304,
    },
    'list at a label': { method: 'GET', path: '/prompts?label=production', status: 200 },
    'list at a label with versions': { method: 'GET', path: '/prompts?label=production&include_versions=true', status: 200 },
    'label the prompt does not carry': {
      method: 'GET',
      path: '/prompts/welcome-email?label=canary',
      status: 404,
      code: 'LABEL_NOT_FOUND',
    },
    'malformed label': { method: 'GET', path: '/prompts/welcome-email?label=Production', status: 400, code: 'BAD_REQUEST' },
    'label with version': {
      method: 'GET',
      path: '/prompts/welcome-email?label=production&version=1.1.0',
      status: 400,
      code: 'BAD_REQUEST',
    },
    'malformed version': { method: 'GET', path: '/prompts/welcome-email?version=1.02.0', status: 400, code: 'BAD_REQUEST' },
    'malformed include_versions': { method: 'GET', path: '/prompts?include_versions=yes', status: 400, code: 'BAD_REQUEST' },
    'no key': { method: 'GET', path: '/prompts/welcome-email', key: 'none', status: 401, code: 'UNAUTHORIZED' },
    'not Bearer': {
      method: 'GET',
      path: '/prompts',
      key: 'none',
      headers: { Authorization: 'Basic dXNlcjpwYXNz' },
      status: 401,
      code: 'UNAUTHORIZED',
    },
    'unknown key': { method: 'GET', path: '/prompts', key: 'unknown', status: 401, code: 'UNAUTHORIZED' },
    'unknown prompt': { method: 'GET', path: '/prompts/no-such-prompt', status: 404, code: 'NOT_FOUND' },
    'unpublished version': {
      method: 'GET',
      path: '/prompts/welcome-email?version=9.0.0',
      status: 404,
      code: 'VERSION_NOT_FOUND',
    },
    'unknown path': { method: 'GET', path: '/nothing-here', status: 404, code: 'NOT_FOUND' },
    'other method': { method: 'POST', path: '/prompts', status: 405, code: 'METHOD_NOT_ALLOWED' },
    'quota used up': { method: 'GET', path: '/prompts/welcome-email', key: 'usedUp', status: 429, code: 'USAGE_LIMIT_EXCEEDED' },
    'store unavailable': {
      method: 'GET',
      path: '/prompts/welcome-email',
      store: 'unavailable',
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
    },
    'unexpected failure': {
      method: 'GET',
      path: '/prompts/welcome-email',
      store: 'broken',
      status: 500,
      code: 'INTERNAL_ERROR',
    },
    'preflight on a prompt': { method: 'OPTIONS', path: '/prompts/welcome-email', key: 'none', status: 204 },
    'preflight anywhere': { method: 'OPTIONS', path: '/nothing-here', key: 'none', status: 204 },
  };

  test.each(Object.entries(cases))('%s', async (_name, { method, path, key = 'valid', headers, store = 'local', status, code }) => {
    const stores = {
      local: () => new DynamoStore(local.clients, local.tableName),
      unavailable: () => new FailingPromptStore(local, () => new StoreUnavailableError('throttled')),
      broken: () => new FailingPromptStore(local, () => new TypeError('a bug')),
    };
    const keys: Record<Key, string | undefined> = {
      valid: apiKey,
      usedUp: usedUpKey,
      none: undefined,
      unknown: 'prs_ThisKeyWasNeverIssuedToAnyoneAtAll0000000',
    };
    const chosen = stores[store]();
    const deps: ApiDependencies = {
      usage: chosen,
      prompts: chosen,
      upgradeUrl: 'https://prompts.example.test/upgrade',
      now: () => NOW,
      telemetry: testTelemetry(),
    };
    const event = apiEvent(method, path, { headers, ...(keys[key] === undefined ? {} : { apiKey: keys[key] }) });

    const result = await handlerFor(deps, method, path)(event, lambdaContext());

    expect(result.statusCode).toBe(status);
    if (code !== undefined) expect(JSON.parse(result.body ?? '{}')).toMatchObject({ code });
    expectResponseMatchesOpenApi({ method, path, status: result.statusCode, headers: result.headers, body: result.body });
  });
});
