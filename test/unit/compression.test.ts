import { gunzipSync } from 'node:zlib';
import type { Request } from '@middy/core';
import type { ApiEvent, ApiResult } from '../../lambda/http/http-event';
import type { ApiContext } from '../../lambda/read-api/api-context';
import { acceptsGzip, compression, gzipEtag } from '../../lambda/read-api/middleware/compression';
import { apiEvent, lambdaContext } from '../support/events';

describe('Accept-Encoding', () => {
  test.each([['gzip'], ['gzip, deflate, br'], ['br;q=1.0, gzip;q=0.8'], ['*'], [' GZIP ']])('%j accepts gzip', (header) => {
    expect(acceptsGzip(header)).toBe(true);
  });

  test.each([[undefined], [''], ['identity'], ['br'], ['gzip;q=0'], ['gzip;q=0.0, br']])('%j does not', (header) => {
    expect(acceptsGzip(header)).toBe(false);
  });
});

describe('compression', () => {
  const largeBody = JSON.stringify(Array.from({ length: 500 }, (_, i) => ({ promptId: `p-${i}`, text: 'hello ${name}' })));

  async function afterHook(response: ApiResult, acceptEncoding?: string, ifNoneMatch?: string): Promise<ApiResult> {
    const headers: Record<string, string> = acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding };
    if (ifNoneMatch !== undefined) headers['if-none-match'] = ifNoneMatch;
    const context: ApiContext = {
      ...lambdaContext(),
      httpRequest: { method: 'GET', path: '/prompts', headers, query: {}, authorization: [] },
    };
    const request = { event: apiEvent('GET', '/prompts'), context, response, error: null, internal: {} };
    await compression().after?.(request as Request<ApiEvent, ApiResult, Error, ApiContext>);
    return request.response;
  }

  test('a large answer is gzipped for a caller that accepts it, and decodes to the same text', async () => {
    const result = await afterHook({ statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: largeBody }, 'gzip');
    expect(result.isBase64Encoded).toBe(true);
    expect(result.headers['Content-Encoding']).toBe('gzip');
    expect(gunzipSync(Buffer.from(result.body ?? '', 'base64')).toString('utf8')).toBe(largeBody);
    expect(Buffer.byteLength(result.body ?? '')).toBeLessThan(largeBody.length / 4);
  });

  test('a caller that does not accept gzip gets the text as it is', async () => {
    const result = await afterHook({ statusCode: 200, headers: {}, body: largeBody });
    expect(result.body).toBe(largeBody);
    expect(result.isBase64Encoded).toBeUndefined();
  });

  test('a small answer is left alone', async () => {
    const result = await afterHook({ statusCode: 200, headers: {}, body: '{"a":1}' }, 'gzip');
    expect(result.body).toBe('{"a":1}');
  });

  test('an answer with an ETag that does not vary by Accept-Encoding is left alone, so its tag names one representation', async () => {
    const result = await afterHook({ statusCode: 200, headers: { ETag: '"x"' }, body: largeBody }, 'gzip');
    expect(result.body).toBe(largeBody);
  });

  test('an answer with an ETag that varies by Accept-Encoding is gzipped under a tag of its own', async () => {
    const headers = { 'Content-Type': 'application/json', ETag: '"x"', Vary: 'Authorization, Accept-Encoding' };
    const result = await afterHook({ statusCode: 200, headers, body: largeBody }, 'gzip');
    expect(result.headers).toEqual({ ...headers, ETag: '"x-gzip"', 'Content-Encoding': 'gzip' });
    expect(gunzipSync(Buffer.from(result.body ?? '', 'base64')).toString('utf8')).toBe(largeBody);
  });

  test('a request that already holds the gzipped representation gets 304 naming its tag', async () => {
    const headers = { 'Content-Type': 'application/json', ETag: '"x"', Vary: 'Authorization, Accept-Encoding', 'Cache-Control': 'private, no-cache' };
    const result = await afterHook({ statusCode: 200, headers, body: largeBody }, 'gzip', '"x-gzip"');
    expect(result).toEqual({ statusCode: 304, headers: { ETag: '"x-gzip"', Vary: 'Authorization, Accept-Encoding', 'Cache-Control': 'private, no-cache' } });
  });

  test.each([['"x"'], ['"y-gzip"']])('If-None-Match %s does not match the gzipped representation', async (ifNoneMatch) => {
    const headers = { ETag: '"x"', Vary: 'Accept-Encoding' };
    const result = await afterHook({ statusCode: 200, headers, body: largeBody }, 'gzip', ifNoneMatch);
    expect(result.statusCode).toBe(200);
    expect(result.headers.ETag).toBe('"x-gzip"');
  });
});

test('the gzip tag of a strong tag is the tag with -gzip before its closing quote', () => {
  expect(gzipEtag('"bP0D1_Bm"')).toBe('"bP0D1_Bm-gzip"');
});
