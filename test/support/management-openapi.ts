import { readFileSync } from 'node:fs';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { MANAGEMENT_OPENAPI_PATH } from '../../bin/openapi-management';

/**
 * Holds each answer of the management functions to openapi-management.yaml: the status is documented
 * for the operation, the body matches its schema, and documented headers (Cache-Control, ETag) are there.
 */

type Json = Record<string, unknown>;
const DOCUMENT_ID = 'https://prompts.example/openapi-management.yaml';

let document: Json | undefined;
let ajv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();

export function loadManagementDocument(): Json {
  document ??= parse(readFileSync(MANAGEMENT_OPENAPI_PATH, 'utf8')) as Json;
  return document;
}

const absolute = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(absolute);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === '$ref' && typeof inner === 'string' ? inner.replace('#/components/schemas/', `${DOCUMENT_ID}#/$defs/`) : absolute(inner),
    ]),
  );
};

function resolve(value: Json): Json {
  const reference = value.$ref;
  if (typeof reference !== 'string') return value;
  let current: unknown = loadManagementDocument();
  for (const part of reference.slice(2).split('/')) current = (current as Json)[part];
  return current as Json;
}

function validatorFor(schema: Json): ValidateFunction {
  if (!ajv) {
    ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
    addFormats(ajv);
    ajv.addSchema({ $id: DOCUMENT_ID, $defs: absolute((loadManagementDocument().components as Json).schemas) as Json });
  }
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(absolute(schema) as Json);
    validators.set(key, validate);
  }
  return validate;
}

export interface ManagementObservation {
  readonly method: string;
  /** The REST API resource the request took, e.g. `/api/accounts/{accountId}/keys`. */
  readonly resource: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

export function managementMismatches({ method, resource, status, headers, body }: ManagementObservation): string[] {
  const operation = ((loadManagementDocument().paths as Json)[resource] as Json | undefined)?.[method.toLowerCase()] as Json | undefined;
  if (!operation) return [`openapi-management.yaml documents no ${method} ${resource}`];
  const documented = (operation.responses as Json)[String(status)] as Json | undefined;
  if (!documented) return [`${method} ${resource} answered ${status}, which openapi-management.yaml does not document`];
  const response = resolve(documented);
  const problems: string[] = [];
  for (const name of Object.keys((response.headers as Json | undefined) ?? {})) {
    if (headers[name.toLowerCase()] === undefined) problems.push(`${status}: header ${name} is documented but missing`);
  }
  const schema = (((response.content as Json | undefined)?.['application/json'] as Json | undefined)?.schema ?? undefined) as Json | undefined;
  if (schema) {
    const validate = validatorFor(schema);
    if (!validate(body)) problems.push(...(validate.errors ?? []).map((error) => `${status} body${error.instancePath} ${error.message}`));
  } else if (body !== undefined) problems.push(`${status}: a body where none is documented`);
  return problems;
}

export function expectManagementResponseMatches(observation: ManagementObservation): void {
  const problems = managementMismatches(observation);
  if (problems.length > 0) throw new Error(`answer differs from openapi-management.yaml:\n${problems.join('\n')}`);
}
