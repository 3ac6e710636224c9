import type { ApiResult } from './http-event';

export const JSON_CONTENT_TYPE = 'application/json';

export function jsonResponse(statusCode: number, body: unknown, headers: Record<string, string> = {}): ApiResult {
  return {
    statusCode,
    headers: { 'Content-Type': JSON_CONTENT_TYPE, ...headers },
    body: JSON.stringify(body),
  };
}

export function emptyResponse(statusCode: number, headers: Record<string, string> = {}): ApiResult {
  return { statusCode, headers };
}
