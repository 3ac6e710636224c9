import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import * as z from 'zod/mini';
import { roleFor } from '../lambda/domain/roles';
import { SCHEMA_NAMES, shownAsDeclared } from '../lambda/management-api/contract';
import { PATH_PARAMETERS } from '../lambda/management-api/middleware/path-parameters';
import { type ManagementRoute, refusalStatuses } from '../lambda/management-api/route';
import { ALL_ROUTES } from '../lambda/management-api/routes';

/**
 * openapi-management.yaml, generated from the routes' contracts (lambda/management-api/handlers/*-contracts.ts):
 * each operation's summary, description, parameters, body and answers, and every schema, from the zod schemas the
 * functions validate with and the tests and the dashboard parse answers with (z.toJSONSchema). Written here: what
 * every operation shares, the error answers and the sign-in. `npm run openapi:management` rewrites the file;
 * test/openapi/management-document.test.ts fails when the file and this differ.
 */

export const MANAGEMENT_OPENAPI_PATH = join(__dirname, '..', 'openapi-management.yaml');

type Json = Record<string, unknown>;

const unrepresentable = shownAsDeclared;

/** One schema as JSON Schema, without the dialect (OpenAPI 3.1's is JSON Schema 2020-12). */
function jsonSchema(schema: z.core.$ZodType, io: 'input' | 'output'): Json {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io, unrepresentable });
  return json;
}

function ref(schema: z.core.$ZodType): Json {
  const id = SCHEMA_NAMES.get(schema)?.id;
  if (id === undefined) throw new Error('every body and answer of a contract is named (contract.ts named)');
  return { $ref: `#/components/schemas/${id}` };
}

const SUCCESS_TEXT: Readonly<Record<string, string>> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted: asked for, not done yet (a change request opened, a test event to be delivered)',
  204: 'Done',
};

const ERROR_TEXT: Readonly<Record<number, string>> = {
  400: 'A bad body, parameter or header: `field` names it',
  401: 'No, malformed, expired or foreign token (answered by the gateway)',
  403: 'A member whose role does not allow this',
  404: 'No such thing, or an account the caller is not a member of',
  409: 'Contradicts what is stored (an existing id, a published version, the last owner, a revoked key, a change request already decided, another open for the label, or found stale, a label that rolls out or already has a rollout, a rollout named that the label no longer has, a 21st webhook in an account)',
  412: 'If-Match or If-None-Match does not hold: someone saved in between',
  413: "The version's content is over 300 KB",
  428: 'If-Match is required',
  429: "BUDGET_EXCEEDED: the account's monthly budget of model tokens cannot cover the run (`used`, `limit`)",
  500: 'Unexpected (never a stack trace)',
  502: "MODEL_ERROR: the model's provider refused or failed the run, in its words (`runId`: the failed run, kept)",
  503: 'The store or the user pool could not answer in time: retry. Of a run, MODEL_THROTTLED: the model stayed throttled through the retries (`runId`)',
  504: "MODEL_TIMEOUT: the model did not finish within the run's 120 s (`runId`)",
};

function queryParameters(query: z.core.$ZodType): Json[] {
  const { properties = {}, required = [] } = z.toJSONSchema(query, { io: 'input', unrepresentable });
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...schema } = typeof property === 'boolean' ? {} : property;
    return { name, in: 'query', required: required.includes(name), description, schema };
  });
}

function operationFor(route: ManagementRoute): Json {
  const { contract } = route;
  const cacheControl = { 'Cache-Control': { $ref: '#/components/headers/CacheControl' } };
  const responses: Json = {};
  for (const [status, schema] of Object.entries(contract.answers)) {
    responses[status] = {
      description: SUCCESS_TEXT[status],
      headers: { ...cacheControl, ...(contract.etag ? { ETag: { $ref: '#/components/headers/ETag' } } : {}) },
      ...(schema
        ? {
            content: {
              'application/json': { schema: ref(schema) },
              ...(contract.events && status === '200' ? { 'text/event-stream': { schema: { type: 'string', description: contract.events } } } : {}),
            },
          }
        : {}),
    };
  }
  for (const status of refusalStatuses(route)) responses[String(status)] = { $ref: `#/components/responses/E${status}` };
  const parameters = [
    ...(contract.ifMatch ? [{ $ref: '#/components/parameters/IfMatch' }] : []),
    ...(contract.ifNoneMatch ? [{ $ref: '#/components/parameters/IfNoneMatch' }] : []),
    ...(contract.query ? queryParameters(contract.query) : []),
  ];
  const needs = route.access === 'signed-in' ? 'any signed-in user' : `a member with the role ${roleFor(route.access)} or above`;
  const recorded = route.action === undefined ? [] : [`Recorded in the audit log as \`${route.action}\`, refusals included.`];
  return {
    summary: contract.summary,
    operationId: `${route.method.toLowerCase()}${route.path
      .replace(/[{}]/g, '')
      .split('/')
      .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
      .join('')}`,
    description: [...(contract.description ? [contract.description] : []), `Needs: ${needs}.`, ...recorded].join(' '),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(contract.body ? { requestBody: { required: !contract.bodyOptional, content: { 'application/json': { schema: ref(contract.body) } } } } : {}),
    responses,
  };
}

/** Every named schema: request bodies as they are sent (input), everything else as the API answers it (output). */
function componentSchemas(): Json {
  const uri = (id: string) => `#/components/schemas/${id}`;
  const sent = new Set(ALL_ROUTES.flatMap(({ contract }) => (contract.body ? [SCHEMA_NAMES.get(contract.body)?.id] : [])));
  const inputs = z.toJSONSchema(SCHEMA_NAMES, { io: 'input', uri, unrepresentable }).schemas;
  const outputs = z.toJSONSchema(SCHEMA_NAMES, { io: 'output', uri, unrepresentable }).schemas;
  return Object.fromEntries(
    Object.entries(outputs).map(([id, output]) => {
      const { $schema: _dialect, $id: _id, ...json } = sent.has(id) ? (inputs[id] ?? output) : output;
      return [id, json];
    }),
  );
}

export function managementOpenApiDocument(): Json {
  const paths: Record<string, Json> = {};
  for (const route of ALL_ROUTES) {
    const parameters = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name = '']) => {
      const schema = PATH_PARAMETERS.get(name);
      if (!schema) throw new Error(`${route.path}: no rule for the path parameter ${name}`);
      return { name, in: 'path', required: true, schema: jsonSchema(schema, 'input') };
    });
    const item = paths[route.path] ?? { parameters };
    item[route.method.toLowerCase()] = operationFor(route);
    paths[route.path] = item;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Prompt service management API',
      version: '1.0.0',
      description:
        "The dashboard's back end (docs/management-api.md): served under /api on the dashboard's own origin, so it sends no CORS headers. " +
        'Every request carries `Authorization: Bearer <ID token>` of the user pool, checked by the gateway (Cognito authorizer). ' +
        'Errors are `{"error", "code"}`. Generated by `npm run openapi:management` from the routes\' contracts in lambda/management-api/: do not edit by hand.',
    },
    servers: [{ url: '{origin}', variables: { origin: { default: 'https://dashboard.example.com' } } }],
    security: [{ userPool: [] }],
    paths,
    components: {
      securitySchemes: { userPool: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The ID token of the user pool' } },
      headers: {
        CacheControl: { description: 'Never cached', schema: { const: 'no-store' } },
        ETag: { description: "The version's strong ETag", schema: { type: 'string', pattern: '^"[0-9a-f]{32}"$' } },
      },
      parameters: {
        IfMatch: {
          name: 'If-Match',
          in: 'header',
          required: false,
          description: "The draft's ETag as read: required to replace, delete or publish one",
          schema: { type: 'string' },
        },
        IfNoneMatch: { name: 'If-None-Match', in: 'header', required: false, description: '`*`: create a new draft', schema: { const: '*' } },
      },
      responses: Object.fromEntries(
        Object.entries(ERROR_TEXT).map(([status, description]) => [
          `E${status}`,
          {
            description,
            headers: { 'Cache-Control': { $ref: '#/components/headers/CacheControl' } },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        ]),
      ),
      schemas: componentSchemas(),
    },
  };
}

export const renderManagementOpenApi = (): string =>
  `# Generated by npm run openapi:management from the routes' contracts in lambda/management-api/: do not edit by hand.\n${stringify(managementOpenApiDocument(), { lineWidth: 0, aliasDuplicateObjects: false })}`;

if (require.main === module) {
  writeFileSync(MANAGEMENT_OPENAPI_PATH, renderManagementOpenApi());
  process.stdout.write(`wrote ${MANAGEMENT_OPENAPI_PATH}\n`);
}
