import { gzipSync } from 'node:zlib';
import type { MiddlewareObj } from '@middy/core';
import { ifNoneMatchMatches } from '../etag';
import type { ApiEvent, ApiResult } from '../../http/http-event';
import type { ApiContext } from '../api-context';

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
 * The strong validator of the gzipped representation of the body whose validator is `etag`: the
 * bytes differ, so the tag must too (RFC 9110 8.8.3). `"abc"` becomes `"abc-gzip"`.
 */
export function gzipEtag(etag: string): string {
  return etag.endsWith('"') ? `${etag.slice(0, -1)}-gzip"` : `${etag}-gzip`;
}

function headerOf(headers: ApiResult['headers'], name: string): string | undefined {
  const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
  return key === undefined ? undefined : String(headers[key]);
}

function withoutHeader(headers: ApiResult['headers'], name: string): ApiResult['headers'] {
  return Object.fromEntries(Object.entries(headers).filter(([candidate]) => candidate.toLowerCase() !== name));
}

function variesByEncoding(headers: ApiResult['headers']): boolean {
  return (headerOf(headers, 'vary') ?? '').split(',').some((name) => name.trim().toLowerCase() === 'accept-encoding');
}

/**
 * Gzips large bodies for callers that accept it. A whole prompt list is the service's largest
 * answer, and Lambda returns at most 6 MB: compressed, a list has room for tens of megabytes of
 * JSON. An answer with an ETag is gzipped only when its handler says it varies by Accept-Encoding
 * (the list); it then carries the gzip representation's own tag, and a request that already holds
 * that representation gets 304. Other tagged answers (single prompts) keep their one representation.
 */
export const compression = (): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  after: (request) => {
    const response = request.response;
    if (!response?.body || response.isBase64Encoded) return;
    const headers = response.headers;
    const etag = headerOf(headers, 'etag');
    if (headerOf(headers, 'content-encoding') !== undefined) return;
    if (etag !== undefined && !variesByEncoding(headers)) return;
    if (Buffer.byteLength(response.body) < MIN_BYTES) return;
    const requestHeaders = request.context.httpRequest?.headers ?? {};
    if (!acceptsGzip(requestHeaders['accept-encoding'])) return;
    const others = withoutHeader(headers, 'etag');
    if (etag === undefined) {
      response.headers = { ...others, 'Content-Encoding': 'gzip' };
    } else {
      const tag = gzipEtag(etag);
      if (response.statusCode === 200 && ifNoneMatchMatches(requestHeaders['if-none-match'], tag)) {
        request.response = { statusCode: 304, headers: { ...withoutHeader(others, 'content-type'), ETag: tag } };
        return;
      }
      response.headers = { ...others, ETag: tag, 'Content-Encoding': 'gzip' };
    }
    response.body = gzipSync(response.body).toString('base64');
    response.isBase64Encoded = true;
  },
});
