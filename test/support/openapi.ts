import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/** The API's contract; every response a test sees must be one it documents. */
export const OPENAPI_PATH = join(__dirname, '..', '..', 'openapi.yaml');

export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

export interface Reference {
  readonly $ref: string;
}

export interface HeaderObject {
  readonly description?: string;
  readonly required?: boolean;
  readonly schema?: JsonSchema;
}

export interface MediaTypeObject {
  readonly schema?: JsonSchema;
  readonly examples?: Readonly<Record<string, { readonly summary?: string; readonly value?: unknown }>>;
}

export interface ResponseObject {
  readonly description: string;
  readonly headers?: Readonly<Record<string, HeaderObject | Reference>>;
  readonly content?: Readonly<Record<string, MediaTypeObject>>;
}

export type Responses = Readonly<Record<string, ResponseObject | Reference>>;

export interface OperationObject {
  readonly operationId?: string;
  readonly security?: readonly Readonly<Record<string, readonly string[]>>[];
  readonly responses: Responses;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type PathItem = { readonly [M in HttpMethod]?: OperationObject };

interface UnmatchedRequest {
  readonly description: string;
  readonly response: ResponseObject | Reference;
}

export interface OpenApiDocument {
  readonly openapi: string;
  readonly paths: Readonly<Record<string, PathItem>>;
  readonly components: {
    readonly schemas: Readonly<Record<string, JsonSchema>>;
    readonly responses: Readonly<Record<string, ResponseObject>>;
    readonly headers: Readonly<Record<string, HeaderObject>>;
  };
  readonly 'x-unmatched-requests': {
    readonly otherMethod: UnmatchedRequest;
    readonly otherPath: UnmatchedRequest;
    readonly preflight: UnmatchedRequest;
  };
}

let cachedDocument: OpenApiDocument | undefined;

export function loadOpenApiDocument(): OpenApiDocument {
  cachedDocument ??= parse(readFileSync(OPENAPI_PATH, 'utf8')) as OpenApiDocument;
  return cachedDocument;
}

function isReference(value: unknown): value is Reference {
  return typeof value === 'object' && value !== null && typeof (value as Reference).$ref === 'string';
}

/** Follows local `#/...` references (Reference Objects, not schemas: Ajv resolves those) to what they name. */
export function resolveReference<T>(value: T | Reference, document: OpenApiDocument = loadOpenApiDocument()): T {
  let current: unknown = value;
  for (let hops = 0; isReference(current); hops += 1) {
    const ref = current.$ref;
    if (hops > 10 || !ref.startsWith('#/')) throw new Error(`openapi.yaml: cannot resolve reference ${ref}`);
    current = ref
      .slice(2)
      .split('/')
      .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, token) => (node as Record<string, unknown> | undefined)?.[token], document);
    if (current === undefined) throw new Error(`openapi.yaml: reference ${ref} names nothing`);
  }
  return current as T;
}

// ---- schemas: one Ajv for the document, each schema compiled once

const DOCUMENT_ID = 'https://prompts.example/openapi.yaml';
const COMPONENT_SCHEMA_REF = /^#\/components\/schemas\//;

/** The document's schema references made absolute, pointing into its components registered as `$defs`. */
function withAbsoluteRefs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withAbsoluteRefs);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([keyword, value]) => [
      keyword,
      keyword === '$ref' && typeof value === 'string' ? value.replace(COMPONENT_SCHEMA_REF, `${DOCUMENT_ID}#/$defs/`) : withAbsoluteRefs(value),
    ]),
  );
}

let ajv: Ajv2020 | undefined;
const compiled = new WeakMap<object, ValidateFunction>();

function schemaValidator(schema: JsonSchema): ValidateFunction {
  if (!ajv) {
    // strict: a misspelt keyword in openapi.yaml fails here instead of silently validating nothing.
    // strictRequired is a lint against `required` refining a property defined elsewhere, as allOf does.
    ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
    addFormats(ajv);
    ajv.addSchema({ $id: DOCUMENT_ID, $defs: withAbsoluteRefs(loadOpenApiDocument().components.schemas) });
  }
  if (typeof schema === 'boolean') return ajv.compile(schema);
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(withAbsoluteRefs(schema) as object);
    compiled.set(schema, validate);
  }
  return validate;
}

function describeSchemaErrors(where: string, errors: readonly ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((error) => {
    const allowed =
      error.keyword === 'const'
        ? ` (${JSON.stringify(error.params.allowedValue)})`
        : error.keyword === 'enum'
          ? ` (${(error.params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')})`
          : error.keyword === 'additionalProperties'
            ? ` (${JSON.stringify(error.params.additionalProperty)})`
            : '';
    return `${where}${error.instancePath} ${error.message ?? error.keyword}${allowed}`;
  });
}

/** Validates one value against a schema of the document; the problems, worded for a test failure. */
export function schemaProblems(schema: JsonSchema, value: unknown, where: string): string[] {
  const validate = schemaValidator(schema);
  return validate(value) ? [] : describeSchemaErrors(where, validate.errors);
}

// ---- finding what the document says about a request

export interface DocumentedResponses {
  /** Where in openapi.yaml the responses come from, for messages. */
  readonly where: string;
  /** Why these are the responses, when no operation documents the request. */
  readonly reason?: string;
  readonly responses: Responses;
}

/** The path as the server routes it: a request target carries no fragment, so a `#` in it is part of the path. */
function stripQuery(path: string): string {
  return path.replace(/\?.*$/, '');
}

function templateMatches(template: string, path: string): boolean {
  const pattern = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]*' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`).test(path);
}

function matchPathTemplate(document: OpenApiDocument, path: string): string | undefined {
  const templates = Object.keys(document.paths);
  // A literal path wins over a templated one, as OpenAPI requires.
  return templates.find((template) => template === path) ?? templates.find((template) => templateMatches(template, path));
}

function isHttpMethod(method: string): method is HttpMethod {
  return (HTTP_METHODS as readonly string[]).includes(method);
}

/**
 * The responses the document allows for a request: its operation's, or for requests no operation
 * covers (other methods, other paths, preflight anywhere) the ones `x-unmatched-requests` names.
 */
export function documentedResponses(method: string, path: string): DocumentedResponses {
  const document = loadOpenApiDocument();
  const unmatched = document['x-unmatched-requests'];
  const verb = method.toLowerCase();
  const concretePath = stripQuery(path);
  const template = matchPathTemplate(document, concretePath);
  const operation = template !== undefined && isHttpMethod(verb) ? document.paths[template]?.[verb] : undefined;
  if (template !== undefined && operation) {
    return { where: `paths.${template}.${verb}.responses`, responses: operation.responses };
  }
  const single = (name: keyof OpenApiDocument['x-unmatched-requests'], status: string): DocumentedResponses => ({
    where: `x-unmatched-requests.${name}`,
    reason: unmatched[name].description,
    responses: { [status]: unmatched[name].response },
  });
  if (verb === 'options') return single('preflight', '204');
  // Method first: a path the document has, or any method but GET on a path it has not (docs/behaviour-rules.md).
  if (template !== undefined || verb !== 'get') return single('otherMethod', '405');
  return single('otherPath', '404');
}

function responseFor(documented: DocumentedResponses, status: number): { key: string; response: ResponseObject } | undefined {
  const key = [String(status), `${Math.floor(status / 100)}XX`, 'default'].find((candidate) => documented.responses[candidate] !== undefined);
  const response = key === undefined ? undefined : documented.responses[key];
  return key === undefined || response === undefined ? undefined : { key, response: resolveReference(response) };
}

// ---- checking one response

/** Header values as a test holds them: a Lambda result's headers, or a fetch Response's `headers`. */
export type HeaderSource = { forEach(callback: (value: string, name: string) => void): void } | Readonly<Record<string, string | number | boolean | undefined>>;

export interface ObservedResponse {
  readonly method: string;
  /** The concrete request path, e.g. `/prompts/welcome-email`; a query string is ignored. */
  readonly path: string;
  readonly status: number;
  /** Header names in any case. */
  readonly headers: HeaderSource;
  /** The raw body; `undefined` or `''` for none. */
  readonly body?: string | undefined;
}

export class OpenApiMismatchError extends Error {
  override readonly name = 'OpenApiMismatchError';
}

function lowerCaseHeaders(source: HeaderSource): Map<string, string> {
  const headers = new Map<string, string>();
  if (typeof source.forEach === 'function') {
    (source as { forEach(callback: (value: string, name: string) => void): void }).forEach((value, name) => {
      headers.set(name.toLowerCase(), value);
    });
    return headers;
  }
  for (const [name, value] of Object.entries(source as Record<string, unknown>)) {
    if (value !== undefined) headers.set(name.toLowerCase(), String(value));
  }
  return headers;
}

function schemaTypes(schema: JsonSchema): string[] {
  if (typeof schema !== 'object') return [];
  const { type, const: constant } = schema;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((entry): entry is string => typeof entry === 'string');
  return constant === undefined ? [] : [typeof constant];
}

/** A header's text read as its schema's type (OpenAPI's `simple` style): `"42"` is the integer 42. */
function headerValue(schema: JsonSchema, raw: string): unknown {
  const types = schemaTypes(schema);
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(raw.trim())) {
    return Number(raw.trim());
  }
  if (types.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

function headerProblems(response: ResponseObject, headers: Map<string, string>): string[] {
  const problems: string[] = [];
  for (const [name, declared] of Object.entries(response.headers ?? {})) {
    const header = resolveReference<HeaderObject>(declared);
    const raw = headers.get(name.toLowerCase());
    if (raw === undefined) {
      if (header.required) problems.push(`header ${name} is required but missing`);
      continue;
    }
    if (header.schema !== undefined) {
      problems.push(...schemaProblems(header.schema, headerValue(header.schema, raw), `header ${name}: ${JSON.stringify(raw)}`));
    }
  }
  return problems;
}

function bodyProblems(response: ResponseObject, headers: Map<string, string>, body: string | undefined): string[] {
  const content = response.content ?? {};
  const mediaTypes = Object.keys(content);
  const hasBody = body !== undefined && body !== '';
  if (mediaTypes.length === 0) {
    return hasBody ? [`documents no body, got ${JSON.stringify(body.slice(0, 200))}`] : [];
  }
  if (!hasBody) return [`documents a ${mediaTypes.join(' or ')} body, got none`];
  const contentType = headers.get('content-type');
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  const media = mediaType === undefined ? undefined : content[mediaType];
  if (!media) {
    return [`Content-Type is ${contentType === undefined ? 'missing' : JSON.stringify(contentType)}, documented: ${mediaTypes.join(', ')}`];
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [`body is not JSON: ${JSON.stringify(body.slice(0, 200))}`];
  }
  return media.schema === undefined ? [] : schemaProblems(media.schema, parsed, 'body');
}

interface Comparison {
  readonly where: string;
  readonly mismatches: string[];
}

function compare(observed: ObservedResponse): Comparison {
  const documented = documentedResponses(observed.method, observed.path);
  const found = responseFor(documented, observed.status);
  if (!found) {
    const statuses = Object.keys(documented.responses).join(', ');
    const reason = documented.reason === undefined ? '' : `; ${documented.reason}`;
    return {
      where: documented.where,
      mismatches: [`status ${observed.status} is not documented (documented: ${statuses}${reason})`],
    };
  }
  const headers = lowerCaseHeaders(observed.headers);
  return {
    where: `${documented.where} ${found.key}`,
    mismatches: [...headerProblems(found.response, headers), ...bodyProblems(found.response, headers, observed.body)],
  };
}

/** Every way the response differs from what openapi.yaml documents for the request; empty when it matches. */
export function openApiMismatches(observed: ObservedResponse): string[] {
  return compare(observed).mismatches;
}

/**
 * Throws an OpenApiMismatchError naming every difference between the response and openapi.yaml:
 * undocumented status, body against its schema, missing required headers, header values against theirs.
 */
export function expectResponseMatchesOpenApi(observed: ObservedResponse): void {
  const { where, mismatches } = compare(observed);
  if (mismatches.length === 0) return;
  const request = `${observed.method.toUpperCase()} ${observed.path} -> ${observed.status}`;
  throw new OpenApiMismatchError(`${request} does not match openapi.yaml (${where}):\n${mismatches.map((problem) => `  - ${problem}`).join('\n')}`);
}
