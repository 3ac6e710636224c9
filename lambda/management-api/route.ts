import type { Readable } from 'node:stream';
import type * as z from 'zod';
import type { Capability } from '../domain/roles';
import type { Models } from '../models/models';
import type { Operations } from '../operations';
import type { Table } from '../table/table';
import type { Member } from '../features/members/members';
import type { UserDirectory } from '../users/user-directory';

/**
 * A management route, declared once (handlers/*-routes.ts): its method and path, who may call it (what it
 * lets a member do, whose least role lambda/domain/roles.ts gives, and the dashboard explains), what
 * the audit log calls it, the zod schema of its body and its handler, whose request is typed by the other
 * four: `request.body` is what the schema reads, `request.params` has the names of the path's `{...}`.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Any signed-in person, or members of the path's account whose role may do this (domain/roles.ts CAPABILITIES). */
export type Access = 'signed-in' | Capability;

/** The signed-in person, as the gateway's Cognito authorizer (or the local gateway) vouches for them. */
export interface Caller {
  readonly userId: string;
  readonly email: string;
}

/** What the chain gives every handler: the request as its middleware read it. */
export interface HandlerInput {
  readonly caller: Caller;
  /** Path parameters, validated (names as data): `accountId`, `promptId`, `version`, `label`, `keyId`, `userId`, `requestId`. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** For routes under an account: the caller's membership, read on this request. */
  readonly member: Member | undefined;
  readonly table: Table;
  readonly ops: Operations;
  readonly directory: UserDirectory;
  readonly now: Date;
  /** The stack's models: given by the run function's chain alone (streaming-handler.ts), the one that calls them. */
  readonly models?: Models;
}

/** `accountId | promptId` for `/api/accounts/{accountId}/prompts/{promptId}`. */
export type PathParameterName<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}` ? Name | PathParameterName<Rest> : never;

export type PathParameters<Path extends string> = { readonly [Name in PathParameterName<Path>]: string };

/** What a route's handler gets: the path's parameters by name, and the body as the route's schema read it. */
export interface RouteRequest<Path extends string, Body> extends Omit<HandlerInput, 'params'> {
  readonly params: PathParameters<Path>;
  readonly body: Body;
}

export interface Reply {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** The answer's body as it is written (server-sent events): only the run function's chain sends one (streaming-handler.ts). */
  readonly stream?: Readable;
}

interface Declared<Path extends string> {
  readonly method: HttpMethod;
  /** The REST API resource, e.g. `/api/accounts/{accountId}/prompts/{promptId}`. */
  readonly path: Path;
  readonly access: Access;
  /** Set on routes that change something: the audit log's name for the attempt, refused ones included. */
  readonly action?: string;
}

/** A route that takes a JSON body, read by `body`. */
export interface RouteWithBody<Path extends string, Schema extends z.ZodType> extends Declared<Path> {
  readonly body: Schema;
  /** Body fields that name what a refused attempt was aimed at, for routes whose path does not (what they create). */
  readonly bodyTarget?: readonly (keyof z.output<Schema> & string)[];
  /**
   * Body fields that hold a URL: the record (a refusal's target and what it asked for) keeps only its origin
   * (domain/webhook-rules.ts recordedUrl), as a receiver's URL may carry its token in the path or query.
   */
  readonly urlFields?: readonly (keyof z.output<Schema> & string)[];
  /** No body at all reads as `{}` (a body whose every field is optional: a decision without a comment). */
  readonly bodyOptional?: boolean;
  handle(request: RouteRequest<Path, z.output<Schema>>): Promise<Reply>;
}

/** A route that reads no body (whatever is sent). */
export interface RouteWithoutBody<Path extends string> extends Declared<Path> {
  readonly body?: undefined;
  readonly bodyTarget?: undefined;
  readonly urlFields?: undefined;
  readonly bodyOptional?: undefined;
  handle(request: RouteRequest<Path, undefined>): Promise<Reply>;
}

export type BoundHandler = (input: HandlerInput) => Promise<Reply>;

/** A route as the chain and the route table see it, whatever its body and path. */
export interface ManagementRoute {
  readonly method: HttpMethod;
  readonly path: string;
  readonly access: Access;
  readonly action?: string;
  readonly body?: z.ZodType;
  readonly bodyTarget?: readonly string[];
  readonly urlFields?: readonly string[];
  readonly bodyOptional?: boolean;
  /** The handler with `json` as the route's schema reads it (nothing read for a route that takes no body), or why it does not fit. */
  bindBody(json: unknown): { readonly handle: BoundHandler } | { readonly invalid: z.ZodError };
}

const takesBody = <Path extends string, Schema extends z.ZodType>(
  route: RouteWithBody<Path, Schema> | RouteWithoutBody<Path>,
): route is RouteWithBody<Path, Schema> => route.body !== undefined;

/** Whether `params` has every parameter `path` names (the gateway gives each; a hand-made event may not). */
function hasPathParameters<Path extends string>(path: Path, params: Readonly<Record<string, string>>): params is PathParameters<Path> {
  return [...path.matchAll(/\{(\w+)\}/g)].every(([, name]) => name !== undefined && Object.hasOwn(params, name));
}

export function defineRoute<const Path extends string, Schema extends z.ZodType>(route: RouteWithBody<Path, Schema>): ManagementRoute;
export function defineRoute<const Path extends string>(route: RouteWithoutBody<Path>): ManagementRoute;
export function defineRoute<const Path extends string, Schema extends z.ZodType>(route: RouteWithBody<Path, Schema> | RouteWithoutBody<Path>): ManagementRoute {
  const bind =
    <Body>(handle: (request: RouteRequest<Path, Body>) => Promise<Reply>, body: Body): BoundHandler =>
    (input) => {
      const { params } = input;
      if (!hasPathParameters(route.path, params)) throw new Error(`${route.method} ${route.path}: a path parameter is missing`);
      return handle({ ...input, params, body });
    };
  return {
    method: route.method,
    path: route.path,
    access: route.access,
    ...(route.action === undefined ? {} : { action: route.action }),
    ...(route.body === undefined ? {} : { body: route.body }),
    ...(route.bodyTarget === undefined ? {} : { bodyTarget: route.bodyTarget }),
    ...(route.urlFields === undefined ? {} : { urlFields: route.urlFields }),
    ...(route.bodyOptional === undefined ? {} : { bodyOptional: route.bodyOptional }),
    bindBody(json) {
      if (!takesBody(route)) return { handle: bind(route.handle, undefined) };
      const parsed = route.body.safeParse(json);
      return parsed.success ? { handle: bind(route.handle, parsed.data) } : { invalid: parsed.error };
    },
  };
}
