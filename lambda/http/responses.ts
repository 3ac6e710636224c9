import type { ApiResult } from './http-event';

export const JSON_CONTENT_TYPE = 'application/json';

/** The only methods the API answers: named by 405's `Allow` and by the CORS preflight alike. */
export const ALLOWED_METHODS = 'GET, OPTIONS';

/** A published version never changes; "latest" and the list may move with every publish. */
export const PINNED_CACHE_CONTROL = 'private, max-age=31536000, immutable';
export const REVALIDATE_CACHE_CONTROL = 'private, no-cache';

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
