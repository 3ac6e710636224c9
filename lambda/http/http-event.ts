import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * What the deployed REST API sends a function: the Lambda proxy event, payload format 1.0 (so do
 * `sam local` and the local gateway).
 */
export type ApiEvent = APIGatewayProxyEvent;

/** A Lambda proxy result; the body is base64 when `isBase64Encoded` (the API treats every type as binary). */
export interface ApiResult {
  statusCode: number;
  headers: Record<string, string>;
  body?: string;
  isBase64Encoded?: boolean;
}

/** What the service reads of a request. */
export interface HttpRequest {
  readonly method: string;
  /** The path as the client sent it (still percent-encoded), without the stage prefix. */
  readonly path: string;
  /** Header names in lower case; a repeated header's last value. No prototype: a name is only data. */
  readonly headers: Readonly<Record<string, string>>;
  /** Repeated parameters joined with commas. No prototype, like `headers`. */
  readonly query: Readonly<Record<string, string>>;
  /** Every `Authorization` header the request carried, in any case: more than one is refused. */
  readonly authorization: readonly string[];
}

type Names<T> = Record<string, T | undefined> | null | undefined;

/**
 * The entries of a map of names from the event. The deployed event is parsed JSON, where `__proto__` is
 * an own name like any other; the local gateway's maps have no prototype. Either way, only own names.
 */
function ownEntries<T>(names: Names<T>): [string, T][] {
  if (!names) return [];
  return Object.keys(names).flatMap((name) => {
    const value = names[name];
    return value === undefined ? [] : [[name, value] as [string, T]];
  });
}

/** A map of names with no prototype: reading `constructor` from it finds nothing unless the client sent it. */
function nameMap<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

function lowerCaseKeys(headers: Names<string>): Record<string, string> {
  const result = nameMap<string>();
  for (const [name, value] of ownEntries(headers)) result[name.toLowerCase()] = value;
  return result;
}

/**
 * Every value of a header: the REST API's `multiValueHeaders` keep each repeat, where `headers` keeps the
 * last one only. An event without them (a hand-written test event) has one value per name.
 */
function headerValues(event: ApiEvent, lowerCaseName: string): string[] {
  const named = <T>(names: Names<T>) => ownEntries(names).filter(([name]) => name.toLowerCase() === lowerCaseName);
  const repeated = named(event.multiValueHeaders).flatMap(([, values]) => (Array.isArray(values) ? values : []));
  return repeated.length > 0 ? repeated : named(event.headers).map(([, value]) => value);
}

/** A custom domain's base path may leave the stage in `path`; the execute-api URL does not. */
function withoutStage(path: string, stage: string | undefined): string {
  if (!stage) return path;
  const prefix = `/${stage}`;
  return path === prefix || path.startsWith(`${prefix}/`) ? path.slice(prefix.length) || '/' : path;
}

export function readHttpRequest(event: ApiEvent): HttpRequest {
  const query = nameMap<string>();
  for (const [name, value] of ownEntries(event.queryStringParameters)) query[name] = value;
  for (const [name, values] of ownEntries(event.multiValueQueryStringParameters)) {
    if (Array.isArray(values) && values.length > 0) query[name] = values.join(',');
  }
  return {
    method: event.httpMethod.toUpperCase(),
    path: withoutStage(event.path, (event.requestContext as Partial<ApiEvent['requestContext']> | undefined)?.stage),
    headers: lowerCaseKeys(event.headers),
    query,
    authorization: headerValues(event, 'authorization'),
  };
}

/** The request's body as text: the REST API sends every body base64-encoded (its binary media types are every type). */
export function bodyTextOf(event: Pick<ApiEvent, 'body' | 'isBase64Encoded'>): string {
  if (!event.body) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

export function httpMethodOf(event: ApiEvent): string {
  return event.httpMethod.toUpperCase();
}
