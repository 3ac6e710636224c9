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
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** Repeated parameters joined with commas. */
  readonly query: Readonly<Record<string, string>>;
}

function lowerCaseKeys(headers: Record<string, string | undefined> | null | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value !== undefined) result[name.toLowerCase()] = value;
  }
  return result;
}

function definedValues(query: Record<string, string | undefined> | null | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) result[name] = value;
  }
  return result;
}

/** A custom domain's base path may leave the stage in `path`; the execute-api URL does not. */
function withoutStage(path: string, stage: string | undefined): string {
  if (!stage) return path;
  const prefix = `/${stage}`;
  return path === prefix || path.startsWith(`${prefix}/`) ? path.slice(prefix.length) || '/' : path;
}

export function readHttpRequest(event: ApiEvent): HttpRequest {
  const query = definedValues(event.queryStringParameters);
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if (values && values.length > 0) query[name] = values.join(',');
  }
  return {
    method: event.httpMethod.toUpperCase(),
    path: withoutStage(event.path, (event.requestContext as Partial<ApiEvent['requestContext']> | undefined)?.stage),
    headers: lowerCaseKeys(event.headers),
    query,
  };
}

export function httpMethodOf(event: ApiEvent): string {
  return event.httpMethod.toUpperCase();
}
