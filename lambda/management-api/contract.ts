import * as z from 'zod/mini';

/**
 * A management route's contract: what it is called with and what it answers, declared once beside the route
 * (handlers/*-contracts.ts) and shared by everything that speaks it: the chain validates bodies with it
 * (route.ts), a handler's answers are typed by it, openapi-management.yaml is generated from it
 * (bin/openapi-management.ts), the tests parse every answer with it (test/support/management-harness.ts) and
 * the dashboard's client parses what it receives with it (dashboard/src/api/). So the contracts are written
 * with zod/mini, and this module and the contracts import only zod and lambda/domain: the dashboard bundles them.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The successes a route may answer; 204 has no body. */
export type AnswerStatus = 200 | 201 | 202 | 204;

/** The refusals and failures some routes answer beyond those every route may (400, 401, 403, 404, 500, 503), each with the one error body. */
export type RefusalStatus = 409 | 412 | 413 | 428 | 429 | 502 | 504;

/** `accountId | promptId` for `/api/accounts/{accountId}/prompts/{promptId}`. */
export type PathParameterName<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}` ? Name | PathParameterName<Rest> : never;

export type PathParameters<Path extends string> = { readonly [Name in PathParameterName<Path>]: string };

export interface RouteContract {
  readonly method: HttpMethod;
  /** The REST API resource, e.g. `/api/accounts/{accountId}/prompts/{promptId}`. */
  readonly path: string;
  /** One line: what the route does (the OpenAPI operation's summary). */
  readonly summary: string;
  /** What more a caller needs to know, beyond who may call it, which the route's access says. */
  readonly description?: string;
  /** The JSON body's schema, for a route that takes one. */
  readonly body?: z.core.$ZodType;
  /** No body at all reads as `{}` (a body whose every field is optional: a decision without a comment). */
  readonly bodyOptional?: boolean;
  /** The query parameters the handler reads, each described. */
  readonly query?: z.ZodMiniObject;
  /** The body of each success it answers; `null` for none (204). */
  readonly answers: { readonly [Status in AnswerStatus]?: z.core.$ZodType | null };
  readonly refusals?: readonly RefusalStatus[];
  /** The answer carries the version's strong ETag; the request may send If-Match, If-None-Match. */
  readonly etag?: boolean;
  readonly ifMatch?: boolean;
  readonly ifNoneMatch?: boolean;
  /** The 200 may also be server-sent events, for `Accept: text/event-stream`, as this says. */
  readonly events?: string;
}

/** A route's contract, as declared (its literal types kept, so handlers and callers are typed by them). */
export const contract = <const Contract extends RouteContract>(declared: Contract): Contract => declared;

/** What the components of openapi-management.yaml call the contracts' schemas: every body and answer has a name. */
export const SCHEMA_NAMES = z.registry<{ readonly id: string }>();

export function named<Schema extends z.core.$ZodType>(id: string, schema: Schema): Schema {
  SCHEMA_NAMES.add(schema, { id });
  return schema;
}

/**
 * What openapi-management.yaml shows for a schema JSON Schema cannot say from zod alone: a check made in code (a
 * run's variables, whose names are data and never copied into an object by parsing).
 */
export const JSON_SHAPES = z.registry<{ readonly jsonSchema: Readonly<Record<string, unknown>> }>();

export function jsonShaped<Schema extends z.core.$ZodType>(schema: Schema, jsonSchema: Readonly<Record<string, unknown>>): Schema {
  // A checked schema is a clone of the one it checks, which the generator reaches too.
  for (let shaped: z.core.$ZodType | undefined = schema; shaped !== undefined; shaped = shaped._zod.parent) JSON_SHAPES.add(shaped, { jsonSchema });
  return schema;
}

/** For z.toJSONSchema: a schema jsonShaped gave a JSON Schema is shown as that; any other zod cannot say is a mistake. */
export const shownAsDeclared = ({ zodSchema }: { readonly zodSchema: z.core.$ZodType }): Record<string, unknown> | 'throw' => {
  const shape = JSON_SHAPES.get(zodSchema)?.jsonSchema;
  return shape === undefined ? 'throw' : { ...shape };
};

/** A schema with its description, which openapi-management.yaml shows. */
export const described = <Schema extends z.ZodMiniType>(description: string, schema: Schema): Schema => schema.check(z.describe(description));

export const ERROR_CODES = [
  'BAD_REQUEST',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'PRECONDITION_FAILED',
  'PRECONDITION_REQUIRED',
  'PAYLOAD_TOO_LARGE',
  'SERVICE_UNAVAILABLE',
  'INTERNAL_ERROR',
  // Runs (docs/runs.md): the account's budget of model tokens, and what the model did.
  'BUDGET_EXCEEDED',
  'MODEL_ERROR',
  'MODEL_THROTTLED',
  'MODEL_TIMEOUT',
] as const;

/** The one body of every refusal and failure, whatever the route: the read API's `{"error", "code"}`. */
export const ErrorAnswer = named(
  'Error',
  z.strictObject({
    error: z.string(),
    code: z.enum(ERROR_CODES),
    field: z.optional(described('The field, parameter or header a 400 is about', z.string())),
    used: z.optional(described("With 429 BUDGET_EXCEEDED: the month's model tokens counted, and held by runs under way", z.int())),
    limit: z.optional(described("With 429 BUDGET_EXCEEDED: the account's monthly budget of model tokens", z.int())),
    runId: z.optional(described('With 502, 503 and 504 of a run: the failed run, kept (GET /api/accounts/{accountId}/runs/{runId})', z.string())),
    current: z.optional(
      described(
        'With 412: the draft as it now stands, so nothing is lost',
        z.strictObject({ etag: z.string(), updatedAt: z.optional(z.string()), updatedBy: z.optional(z.string()) }),
      ),
    ),
  }),
);

/** What is sent as a body (by a handler, or to a route): what the schema takes, its arrays and objects readonly or not. */
export type Sent<T> = T extends readonly (infer Item)[] ? readonly Sent<Item>[] : T extends object ? { readonly [Key in keyof T]: Sent<T[Key]> } : T;

type BodyOf<Schema> = Schema extends z.core.$ZodType ? z.output<Schema> : undefined;

/** What a caller receives from a route: one of its successes, its body as the contract reads it. */
export type AnswerOf<Contract extends RouteContract> = {
  [Status in keyof Contract['answers'] & AnswerStatus]: { readonly status: Status; readonly body: BodyOf<Contract['answers'][Status]> };
}[keyof Contract['answers'] & AnswerStatus];

/** The body a route answers with `status`. */
export type AnswerBody<Contract extends RouteContract, Status extends keyof Contract['answers'] & AnswerStatus> = BodyOf<Contract['answers'][Status]>;

/** The body a route takes, as a caller sends it. */
export type RequestBody<Contract extends RouteContract> = Contract['body'] extends z.core.$ZodType ? Sent<z.input<Contract['body']>> : undefined;

/** The route's path with its parameters filled in, each encoded as one path segment. */
export function pathOf<Path extends string>(path: Path, params: PathParameters<Path>): string {
  const values: Readonly<Record<string, string>> = params;
  return path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    if (value === undefined) throw new Error(`${path}: no value for {${name}}`);
    return encodeURIComponent(value);
  });
}
