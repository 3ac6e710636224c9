import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** API Gateway HTTP API (payload 2.0) events, and REST / payload 1.0 events. */
export type ApiEvent = APIGatewayProxyEventV2 | APIGatewayProxyEvent;

export interface ApiResult extends APIGatewayProxyStructuredResultV2 {
  statusCode: number;
  headers: Record<string, string>;
}

/** What the service reads of a request, the same whatever the payload version. */
export interface HttpRequest {
  readonly method: string;
  /** The path as the client sent it, without the stage prefix. */
  readonly path: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** Repeated parameters joined with commas, as payload 2.0 does. */
  readonly query: Readonly<Record<string, string>>;
}

function isV2(event: ApiEvent): event is APIGatewayProxyEventV2 {
  return (event as APIGatewayProxyEventV2).version === '2.0';
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

function withoutStage(path: string, stage: string | undefined): string {
  if (!stage || stage === '$default') return path;
  const prefix = `/${stage}`;
  return path === prefix || path.startsWith(`${prefix}/`) ? path.slice(prefix.length) || '/' : path;
}

export function readHttpRequest(event: ApiEvent): HttpRequest {
  if (isV2(event)) {
    return {
      method: event.requestContext.http.method.toUpperCase(),
      path: withoutStage(event.rawPath, event.requestContext.stage),
      headers: lowerCaseKeys(event.headers),
      query: definedValues(event.queryStringParameters),
    };
  }
  const multi = event.multiValueQueryStringParameters ?? {};
  const query = definedValues(event.queryStringParameters);
  for (const [name, values] of Object.entries(multi)) {
    if (values && values.length > 0) query[name] = values.join(',');
  }
  return {
    method: event.httpMethod.toUpperCase(),
    path: event.path,
    headers: lowerCaseKeys(event.headers),
    query,
  };
}

export function httpMethodOf(event: ApiEvent): string {
  return isV2(event) ? event.requestContext.http.method.toUpperCase() : event.httpMethod.toUpperCase();
}
