import type { ApiEvent } from '../http/http-event';

/** Names from a request (headers, query, path) are data: a table of them inherits nothing, `constructor` included. */
export const nameTable = (): Record<string, string> => Object.create(null);

/** The request's headers, their names in lower case. */
export function headersOf(event: ApiEvent): Record<string, string> {
  const headers = nameTable();
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers[name.toLowerCase()] = value;
  return headers;
}

/** The query string's parameters as sent. */
export function queryOf(event: ApiEvent): Record<string, string> {
  const query = nameTable();
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) if (value !== undefined) query[name] = value;
  return query;
}
