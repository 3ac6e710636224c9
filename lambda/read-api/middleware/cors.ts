import httpCors from '@middy/http-cors';
import { ALLOWED_METHODS } from '../../http/responses';

export const EXPOSED_HEADERS = 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, ETag, X-Prompt-Rollout';
export const ALLOWED_REQUEST_HEADERS = 'Authorization, Content-Type, If-None-Match, X-Prompt-Subject';
export const PREFLIGHT_MAX_AGE_SECONDS = 7200;

/** What a function's answers let a browser do: the read API's by default; the MCP endpoint names its own. */
export interface CorsRules {
  readonly methods: string;
  readonly allowedHeaders: string;
  readonly exposedHeaders: string;
}

export const READ_API_CORS: CorsRules = {
  methods: ALLOWED_METHODS,
  allowedHeaders: ALLOWED_REQUEST_HEADERS,
  exposedHeaders: EXPOSED_HEADERS,
};

/**
 * CORS for every origin, on every response (errors included), and the answer to every preflight
 * before routing, authentication or the store are involved. No credentials: keys travel in a header.
 */
export const cors = (rules: CorsRules = READ_API_CORS) =>
  httpCors({
    origin: '*',
    exposeHeaders: rules.exposedHeaders,
    methods: rules.methods,
    headers: rules.allowedHeaders,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
    disableBeforePreflightResponse: false,
  });
