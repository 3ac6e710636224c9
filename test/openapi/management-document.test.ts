import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import * as z from 'zod';
import { MANAGEMENT_OPENAPI_PATH, renderManagementOpenApi } from '../../bin/openapi-management';
import { MANAGEMENT_FUNCTIONS } from '../../lambda/management-api/routes';
import { REQUEST_BODIES } from '../../lambda/management-api/schemas';
import { loadManagementDocument, managementMismatches } from '../support/management-openapi';
import { validateWithOpenApiSchemaValidator } from '../support/openapi-validator';

/** openapi-management.yaml: a valid OpenAPI 3.1 document, generated from the code, its bodies from the functions' own schemas. */
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

test.each(Object.entries(REQUEST_BODIES))('the %s body is the JSON Schema of the zod schema the function validates with', (name, schema) => {
  const { $schema: _dialect, ...expected } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  expect(((document.components as Json).schemas as Json)[name]).toEqual(expected);
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
