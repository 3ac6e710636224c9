import * as z from 'zod/mini';
import { type AnswerOf, type PathParameters, pathOf, type RequestBody, type RouteContract } from '../../../lambda/management-api/contract';
import { ApiProblem, problemFromAnswer } from '../logic/api-errors';

/**
 * One call of the management API by its route's contract (lambda/management-api/handlers/*-contracts.ts): the path
 * filled from the contract's, the body its schema takes, and the answer parsed with the schema the contract gives its
 * status, so what the caller gets is what the contract says or an ApiProblem, never a body taken on trust. Nothing
 * here needs a browser: the dashboard calls its own origin with the signed-in person's ID token, and a Node
 * program (the admin CLI) can call a deployed API the same way.
 */

export interface CallerOptions {
  /** Where the API is served: `''` for the page's own origin, or e.g. `https://dashboard.example.com`. */
  readonly baseUrl?: string;
  /** The ID token of the user pool, if signed in. */
  readonly token: () => string | undefined;
  /** Told of a 401 before it is thrown: the dashboard asks the person to sign in again. */
  readonly onUnauthorized?: () => void;
  readonly fetch?: typeof fetch;
}

type Input<Schema> = Schema extends z.core.$ZodType ? z.input<Schema> : undefined;

/** What a call sends: the path's parameters, and the body and query its contract takes. */
export type CallRequest<Contract extends RouteContract> = {
  readonly params: PathParameters<Contract['path']>;
  readonly query?: Input<Contract['query']>;
  readonly headers?: Readonly<Record<string, string>>;
} & (Contract['body'] extends z.core.$ZodType
  ? Contract['bodyOptional'] extends true
    ? { readonly body?: RequestBody<Contract> }
    : { readonly body: RequestBody<Contract> }
  : { readonly body?: undefined });

/** The answer, as its contract reads it, with the ETag it carried. */
export type Answer<Contract extends RouteContract> = AnswerOf<Contract> & { readonly etag: string | null };

/** Whether an answer is one the contract gives, with the body it gives that status (answers are plain shapes: nothing to transform). */
function keepsContract<Contract extends RouteContract>(contract: Contract, answer: unknown): answer is Answer<Contract> {
  if (typeof answer !== 'object' || answer === null || !('status' in answer) || !('body' in answer)) return false;
  const given = Object.entries(contract.answers).find(([status]) => Number(status) === answer.status);
  if (!given) return false;
  const [, schema] = given;
  return schema ? z.safeParse(schema, answer.body).success : answer.body === undefined;
}

function queryText(query: object | undefined): string {
  const pairs = Object.entries(query ?? {}).flatMap(([name, value]): [string, string][] => (typeof value === 'string' ? [[name, value]] : []));
  const text = new URLSearchParams(pairs).toString();
  return text ? `?${text}` : '';
}

export type Call = <const Contract extends RouteContract>(contract: Contract, request: CallRequest<Contract>) => Promise<Answer<Contract>>;

export function createCaller({ baseUrl = '', token, onUnauthorized, fetch: send = globalThis.fetch }: CallerOptions): Call {
  return async (contract, request) => {
    const headers: Record<string, string> = { Accept: 'application/json', ...request.headers };
    const bearer = token();
    if (bearer) headers.Authorization = `Bearer ${bearer}`;
    if (request.body !== undefined) headers['Content-Type'] = 'application/json';
    // Never from a cache (the API says no-store too); Node's fetch has no cache, and ignores the option.
    const init: RequestInit & { readonly cache?: 'no-store' } = {
      method: contract.method,
      headers,
      cache: 'no-store',
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    };
    let response: Response;
    try {
      response = await send(`${baseUrl}${pathOf(contract.path, request.params)}${queryText(request.query)}`, init);
    } catch {
      throw new ApiProblem(0, 'NETWORK', 'the service could not be reached');
    }
    const text = await response.text().catch(() => '');
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (!response.ok) {
      if (response.status === 401) onUnauthorized?.();
      throw problemFromAnswer(response.status, body);
    }
    const answer: unknown = { status: response.status, body, etag: response.headers.get('ETag') };
    if (!keepsContract(contract, answer)) {
      throw new ApiProblem(response.status, 'INTERNAL_ERROR', `the service's answer to ${contract.method} ${contract.path} was not understood`);
    }
    return answer;
  };
}
