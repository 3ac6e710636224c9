import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import * as z from 'zod/mini';
import { MANAGEMENT_OPENAPI_PATH, renderManagementOpenApi } from '../../bin/openapi-management';
import { SCHEMA_NAMES, shownAsDeclared } from '../../lambda/management-api/contract';
import { ALL_ROUTES, MANAGEMENT_FUNCTIONS } from '../../lambda/management-api/routes';
import { loadManagementDocument, managementMismatches } from '../support/management-openapi';
import { validateWithOpenApiSchemaValidator } from '../support/openapi-validator';

/** openapi-management.yaml: a valid OpenAPI 3.1 document, generated from the routes' contracts: its bodies and answers from the very schemas the functions validate with. */
const document = loadManagementDocument();
type Json = Record<string, Record<string, unknown>>;

test('the file is what npm run openapi:management generates from lambda/management-api/ (run it after a change)', () => {
  expect(readFileSync(MANAGEMENT_OPENAPI_PATH, 'utf8')).toBe(renderManagementOpenApi());
});

test('it is a valid OpenAPI 3.1 document', () => {
  const [result] = validateWithOpenApiSchemaValidator([parse(readFileSync(MANAGEMENT_OPENAPI_PATH, 'utf8'))]);
  expect(result?.errors).toBeUndefined();
  expect(result?.valid).toBe(true);
});

test('it documents every method of the management API, and nothing else', () => {
  const documented = Object.entries(document.paths as Json).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => key !== 'parameters')
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
  const deployed = MANAGEMENT_FUNCTIONS.flatMap((fn) => fn.routes.map((route) => `${route.method} ${route.path}`));
  expect(documented.sort()).toEqual(deployed.sort());
});

const bodies = ALL_ROUTES.flatMap((route) => (route.body ? [[`${route.method} ${route.path}`, route.body] as const] : []));

/** A component with every schema it refers to written in place, as z.toJSONSchema writes a schema on its own. */
function inPlace(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(inPlace);
  if (typeof value !== 'object' || value === null) return value;
  const { $ref, ...rest }: Record<string, unknown> = { ...value };
  const fields = Object.fromEntries(Object.entries(rest).map(([name, field]) => [name, inPlace(field)]));
  if (typeof $ref !== 'string') return fields;
  const referred = ((document.components as Json).schemas as Json)[$ref.replace('#/components/schemas/', '')];
  return { ...(inPlace(referred) as Json), ...fields };
}

test.each(bodies)('the body of %s is the JSON Schema of the zod schema the function validates it with', (_route, schema) => {
  const name = SCHEMA_NAMES.get(schema)?.id ?? '';
  const { $schema: _dialect, ...expected } = z.toJSONSchema(schema, { io: 'input', unrepresentable: shownAsDeclared });
  expect(inPlace(((document.components as Json).schemas as Json)[name])).toEqual(expected);
});

test('each answer of each operation is the schema its contract gives that status, and only those', () => {
  for (const route of ALL_ROUTES) {
    const operation = ((document.paths as Json)[route.path] as Json)[route.method.toLowerCase()] as { responses: Json };
    for (const [status, schema] of Object.entries(route.contract.answers)) {
      const content = (operation.responses[status] as { content?: Json }).content;
      expect([route.method, route.path, status, content]).toEqual([
        route.method,
        route.path,
        status,
        schema
          ? {
              'application/json': { schema: { $ref: `#/components/schemas/${SCHEMA_NAMES.get(schema)?.id}` } },
              // A run's 200 may also be its events, for Accept: text/event-stream.
              ...(route.contract.events && status === '200' ? { 'text/event-stream': { schema: { type: 'string', description: route.contract.events } } } : {}),
            }
          : undefined,
      ]);
    }
    const successes = Object.keys(operation.responses).filter((status) => status.startsWith('2'));
    expect(successes.sort()).toEqual(Object.keys(route.contract.answers).sort());
  }
});

test('answers are plain shapes, read as they are sent: no answer schema transforms or fills in anything', () => {
  for (const route of ALL_ROUTES) {
    for (const schema of Object.values(route.contract.answers)) {
      if (schema) expect([route.path, z.toJSONSchema(schema, { io: 'output' })]).toEqual([route.path, z.toJSONSchema(schema, { io: 'input' })]);
    }
  }
});

test('every answer of every operation is JSON with no CORS and never cached; errors have the one format', () => {
  const responses = (document.components as Json).responses as Record<string, Json>;
  for (const response of Object.values(responses)) {
    expect(response.content?.['application/json']).toEqual({ schema: { $ref: '#/components/schemas/Error' } });
    expect(Object.keys(response.headers ?? {})).toEqual(['Cache-Control']);
  }
  expect(JSON.stringify(document)).not.toMatch(/Access-Control/);
});

test('the checker the tests hold answers with finds what differs', () => {
  const resource = '/api/accounts/{accountId}/keys';
  expect(managementMismatches({ method: 'GET', resource, status: 200, headers: { 'cache-control': 'no-store' }, body: { keys: [] } })).toEqual([]);
  expect(managementMismatches({ method: 'GET', resource, status: 418, headers: {}, body: {} })[0]).toMatch(/does not document/);
  expect(managementMismatches({ method: 'GET', resource, status: 200, headers: {}, body: { keys: [{ keyId: 1 }] } }).join('\n')).toMatch(
    /Cache-Control is documented but missing[\s\S]*keyId/,
  );
  expect(managementMismatches({ method: 'PUT', resource, status: 200, headers: {}, body: {} })[0]).toMatch(/documents no PUT/);
});
