import type { Readable } from 'node:stream';
import * as z from 'zod/mini';
import { type Capability, roleFor } from '../domain/roles';
import type { Models } from '../models/models';
import type { Operations } from '../operations';
import type { Table } from '../table/table';
import type { Member } from '../features/members/members';
import type { UserDirectory } from '../users/user-directory';
import './english';
import type { AnswerStatus, ErrorAnswer, HttpMethod, PathParameterName, PathParameters, RefusalStatus, RouteContract, Sent } from './contract';

/**
 * A management route, declared once (handlers/*-routes.ts): its contract (contract.ts: method, path, body and
 * answers, declared in handlers/*-contracts.ts), who may call it (what it lets a member do, whose least role
 * lambda/domain/roles.ts gives, and the dashboard explains), what the audit log calls it, and its handler, which
 * the contract types: `request.body` and `request.query` are what the body's and the query's schemas read,
 * `request.params` has the names of the path's `{...}`, and what it returns is a body the contract gives its status
 * (a type error otherwise).
 */

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
  /** The query string's parameters as sent (names as data); a route's handler gets them as its contract's query reads them. */
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

/**
 * What a route's handler gets: the path's parameters by name, the body and the query as the contract's schemas read
 * them (a route that declares no query reads none), and, under an account, the caller's membership
 * (middleware/membership.ts answers 404 to anyone else).
 */
export interface RouteRequest<Path extends string, Body, Query = QueryRead> extends Omit<HandlerInput, 'params' | 'query' | 'member'> {
  readonly params: PathParameters<Path>;
  readonly body: Body;
  readonly query: Query;
  readonly member: string extends Path ? Member | undefined : 'accountId' extends PathParameterName<Path> ? Member : undefined;
}

/** What the chain sends, whatever the route. */
export interface Reply {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** The answer's body as it is written (server-sent events): only the run function's chain sends one (streaming-handler.ts). */
  readonly stream?: Readable;
}

type Headers = Readonly<Record<string, string>>;

type AnswerReply<Status, Schema> = Schema extends z.core.$ZodType
  ? { readonly status: Status; readonly body: Sent<z.input<Schema>>; readonly headers?: Headers }
  : { readonly status: Status; readonly body?: undefined; readonly headers?: Headers };

type RefusalReply<Contract extends RouteContract> = Contract['refusals'] extends readonly RefusalStatus[]
  ? { readonly status: Contract['refusals'][number]; readonly body: Sent<z.input<typeof ErrorAnswer>>; readonly headers?: Headers }
  : never;

/** A route whose 200 may be server-sent events answers with the stream the events are written to. */
type EventsReply<Contract extends RouteContract> = Contract['events'] extends string
  ? { readonly status: 200; readonly body?: undefined; readonly stream: Readable; readonly headers?: Headers }
  : never;

/** What a route's handler may answer: a success with the body its contract gives that status, its events, or one of its refusals. */
export type ReplyOf<Contract extends RouteContract> =
  | { [Status in keyof Contract['answers'] & AnswerStatus]: AnswerReply<Status, Contract['answers'][Status]> }[keyof Contract['answers'] & AnswerStatus]
  | EventsReply<Contract>
  | RefusalReply<Contract>;

type BodyOf<Contract extends RouteContract> = Contract['body'] extends z.core.$ZodType ? z.output<Contract['body']> : undefined;

/** What a handler reads of the query: what the contract's query schema reads, or nothing for a route that declares none. */
type QueryRead = Readonly<Record<string, never>>;
type QueryOf<Contract extends RouteContract> = Contract['query'] extends z.core.$ZodType ? z.output<Contract['query']> : QueryRead;

/** A route as its handler file declares it, beside its contract: who may call it, what the audit log calls it, and its handler. */
export interface RouteDeclaration<Contract extends RouteContract> {
  readonly access: Access;
  /** Set on routes that change something: the audit log's name for the attempt, refused ones included. */
  readonly action?: string;
  /** Body fields that name what a refused attempt was aimed at, for routes whose path does not (what they create). */
  readonly bodyTarget?: readonly (keyof BodyOf<Contract> & string)[];
  /**
   * Body fields that hold a URL: the record (a refusal's target and what it asked for) keeps only its origin
   * (domain/webhook-rules.ts recordedUrl), as a receiver's URL may carry its token in the path or query.
   */
  readonly urlFields?: readonly (keyof BodyOf<Contract> & string)[];
  handle(request: RouteRequest<Contract['path'], BodyOf<Contract>, QueryOf<Contract>>): Promise<ReplyOf<Contract>>;
}

export type BoundHandler = (input: HandlerInput) => Promise<Reply>;

/** A route as the chain and the route table see it, whatever its contract. */
export interface ManagementRoute {
  readonly contract: RouteContract;
  readonly method: HttpMethod;
  readonly path: string;
  readonly access: Access;
  readonly action?: string;
  readonly body?: z.core.$ZodType;
  readonly bodyTarget?: readonly string[];
  readonly urlFields?: readonly string[];
  readonly bodyOptional?: boolean;
  /**
   * The handler with the body's `json` and the `query` as the route's schemas read them (nothing read for a route
   * that declares neither), or why one does not fit: the body's problem first.
   */
  bind(json: unknown, query: Readonly<Record<string, string>>): { readonly handle: BoundHandler } | { readonly invalid: z.core.$ZodError };
}

/** Whether `params` has every parameter `path` names (the gateway gives each; a hand-made event may not). */
function hasPathParameters<Path extends string>(path: Path, params: Readonly<Record<string, string>>): params is PathParameters<Path> {
  return [...path.matchAll(/\{(\w+)\}/g)].every(([, name]) => name !== undefined && Object.hasOwn(params, name));
}

/** A declaration whatever its contract: how defineRoute binds it (its one signature types it). */
interface AnyDeclaration {
  readonly access: Access;
  readonly action?: string;
  readonly bodyTarget?: readonly string[];
  readonly urlFields?: readonly string[];
  handle(request: RouteRequest<string, unknown, unknown>): Promise<Reply>;
}

/** A route: its contract (what it takes and answers) and its declaration (who may call it and how it is handled). */
export function defineRoute<const Contract extends RouteContract>(contract: Contract, route: RouteDeclaration<Contract>): ManagementRoute;
export function defineRoute(contract: RouteContract, route: AnyDeclaration): ManagementRoute {
  const { method, path, body: schema, query: querySchema } = contract;
  const bindTo =
    (body: unknown, query: unknown): BoundHandler =>
    async (input) => {
      const { params, member } = input;
      if (!hasPathParameters(path, params)) throw new Error(`${method} ${path}: a path parameter is missing`);
      // The chain reads the caller's membership before any handler of a route under an account (middleware/membership.ts).
      if (path.includes('{accountId}') && member === undefined) throw new Error(`${method} ${path}: the caller's membership was not read`);
      return route.handle({ ...input, params, member, body, query });
    };
  return {
    contract,
    method,
    path,
    access: route.access,
    ...(route.action === undefined ? {} : { action: route.action }),
    ...(schema === undefined ? {} : { body: schema }),
    ...(route.bodyTarget === undefined ? {} : { bodyTarget: route.bodyTarget }),
    ...(route.urlFields === undefined ? {} : { urlFields: route.urlFields }),
    ...(contract.bodyOptional === undefined ? {} : { bodyOptional: contract.bodyOptional }),
    bind(json, sentQuery) {
      const body = schema === undefined ? undefined : z.safeParse(schema, json);
      if (body?.success === false) return { invalid: body.error };
      const query = querySchema === undefined ? undefined : z.safeParse(querySchema, sentQuery);
      if (query?.success === false) return { invalid: query.error };
      return { handle: bindTo(body?.data, query === undefined ? {} : query.data) };
    },
  };
}

/**
 * The refusals a route may answer, each with the one error body: any route 401 (the gateway), 500 and 503; 404
 * under an account or a path parameter; 403 where a role is needed beyond any member's; 400 where something sent
 * is read; and the contract's own (409, 412, 413, 428).
 */
export function refusalStatuses(route: ManagementRoute): number[] {
  const { contract } = route;
  const changes = route.action !== undefined;
  const readsParameters = /\{(?!accountId\})\w+\}/.test(route.path);
  const statuses = new Set<number>([401, 500, 503, ...(contract.refusals ?? [])]);
  if (route.path.includes('{')) statuses.add(404);
  if (changes || (route.access !== 'signed-in' && roleFor(route.access) !== 'viewer')) statuses.add(403);
  if (changes || readsParameters || contract.body !== undefined || contract.query !== undefined) statuses.add(400);
  return [...statuses].sort((a, b) => a - b);
}
