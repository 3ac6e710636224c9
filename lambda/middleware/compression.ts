import { gzipSync } from 'node:zlib';
import type { MiddlewareObj } from '@middy/core';
import type { ApiEvent, ApiResult } from '../http/http-event';
import type { ApiContext } from './api-context';

/** Below this a body gains too little to be worth the CPU. */
const MIN_BYTES = 8 * 1024;

/** RFC 9110 Accept-Encoding: `gzip` (or `*`) listed with a non-zero weight. */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((entry) => {
    const [coding = '', ...parameters] = entry.trim().toLowerCase().split(';');
    const weight = parameters.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return (coding.trim() === 'gzip' || coding.trim() === '*') && (weight === undefined || Number(weight.slice(2)) > 0);
  });
}

/**
 * Gzips large bodies for callers that accept it. A whole prompt list is the service's largest
 * answer, and Lambda returns at most 6 MB: compressed, a list has room for tens of megabytes of
 * JSON. Answers with an ETag are left alone, so a strong validator always names one representation.
 */
export const compression = (): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  after: (request) => {
    const response = request.response;
    if (!response?.body || response.isBase64Encoded) return;
    const headers = response.headers;
    const has = (name: string) => Object.keys(headers).some((key) => key.toLowerCase() === name);
    if (has('etag') || has('content-encoding')) return;
    if (Buffer.byteLength(response.body) < MIN_BYTES) return;
    if (!acceptsGzip(request.context.httpRequest?.headers['accept-encoding'])) return;
    response.body = gzipSync(response.body).toString('base64');
    response.isBase64Encoded = true;
    response.headers = { ...headers, 'Content-Encoding': 'gzip' };
  },
});
