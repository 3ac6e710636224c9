import httpCors from '@middy/http-cors';
import { ALLOWED_METHODS } from '../../http/responses';

export const EXPOSED_HEADERS = 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, ETag';
export const ALLOWED_REQUEST_HEADERS = 'Authorization, Content-Type, If-None-Match';
export const PREFLIGHT_MAX_AGE_SECONDS = 7200;

/**
 * CORS for every origin, on every response (errors included), and the answer to every preflight
 * before routing, authentication or the store are involved. No credentials: keys travel in a header.
 */
export const cors = () =>
  httpCors({
    origin: '*',
    exposeHeaders: EXPOSED_HEADERS,
    methods: ALLOWED_METHODS,
    headers: ALLOWED_REQUEST_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
    disableBeforePreflightResponse: false,
  });
