import { ApiHarness } from '../support/api-harness';
import { prompt, version } from '../support/fixtures';
import { hashApiKey } from '../../lambda/domain/api-key';

/** docs/behaviour-rules.md, "Caching". */
const api = new ApiHarness();
let key: string;

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme');
  key = await api.fixtures.apiKey('acme');
  await api.fixtures.prompts('acme', prompt('welcome', [version('1.0.0'), version('1.1.0')]));
});
afterAll(() => api.stop());

describe('ETag', () => {
  test('200 responses of GET /prompts/{promptId} carry a strong ETag computed from the body', async () => {
    const first = await api.get('/prompts/welcome', key);
    const again = await api.get('/prompts/welcome', key);
    const other = await api.get('/prompts/welcome?version=1.0.0', key);
    expect(first.headers.etag).toMatch(/^"[^"]+"$/);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(other.headers.etag).not.toBe(first.headers.etag);
  });

  test('the ETag changes when the latest version changes', async () => {
    const before = (await api.get('/prompts/welcome', key)).headers.etag;
    await api.fixtures.prompts('acme', prompt('welcome', [version('1.2.0')]));
    const after = (await api.get('/prompts/welcome', key)).headers.etag;
    expect(after).not.toBe(before);
  });

  test.each([
    ['the exact tag', (etag: string) => etag],
    ['the tag in a list', (etag: string) => `"other", ${etag}`],
    ['the weak form of the tag', (etag: string) => `W/${etag}`],
    ['*', () => '*'],
  ])('If-None-Match with %s gets 304 with no body', async (_, ifNoneMatch) => {
    const { headers } = await api.get('/prompts/welcome?version=1.0.0', key);
    const response = await api.get('/prompts/welcome?version=1.0.0', key, { 'If-None-Match': ifNoneMatch(headers.etag ?? '') });
    expect(response.status).toBe(304);
    expect(response.rawBody ?? '').toBe('');
    expect(response.headers.etag).toBe(headers.etag);
    expect(response.headers['cache-control']).toBe('private, max-age=31536000, immutable');
  });

  test('If-None-Match that does not match gets 200 with the body', async () => {
    const plain = await api.get('/prompts/welcome', key);
    const response = await api.get('/prompts/welcome', key, { 'If-None-Match': '"stale"' });
    expect(response.status).toBe(200);
    // The whole body, as a request without If-None-Match gets it, and the tag that names it.
    expect(response.rawBody).toBe(plain.rawBody);
    expect(response.body).toMatchObject({ promptId: 'welcome', version: plain.json<{ version: string }>().version });
    expect(response.headers.etag).toBe(plain.headers.etag);
  });

  test('a 304 still counts against the quota', async () => {
    const counted = await api.fixtures.apiKey('acme');
    const { headers } = await api.get('/prompts/welcome', counted);
    const response = await api.get('/prompts/welcome', counted, { 'If-None-Match': headers.etag ?? '' });
    expect(response.status).toBe(304);
    expect(response.headers['x-ratelimit-remaining']).toBe('4998');
    expect(await api.fixtures.admin.usage(hashApiKey(counted), '2026-11')).toBe(2);
  });
});

describe('ETag of the list', () => {
  test.each([['/prompts'], ['/prompts?include_versions=true']])('200 responses of GET %s carry a strong ETag computed from the body', async (path) => {
    const first = await api.get(path, key);
    const again = await api.get(path, key);
    expect(first.headers.etag).toMatch(/^"[^"]+"$/);
    expect(again.headers.etag).toBe(first.headers.etag);
  });

  test('the list with and without versions are different representations with different tags', async () => {
    const plain = await api.get('/prompts', key);
    const withVersions = await api.get('/prompts?include_versions=true', key);
    expect(withVersions.headers.etag).not.toBe(plain.headers.etag);
  });

  test('a matching If-None-Match on the list gets 304 with no body, and counts one unit', async () => {
    const counted = await api.fixtures.apiKey('acme');
    const { headers } = await api.get('/prompts', counted);
    const response = await api.get('/prompts', counted, { 'If-None-Match': headers.etag ?? '' });
    expect(response.status).toBe(304);
    expect(response.rawBody ?? '').toBe('');
    expect(response.headers.etag).toBe(headers.etag);
    expect(response.headers['cache-control']).toBe('private, no-cache');
    expect(response.headers['x-ratelimit-remaining']).toBe('4998');
    expect(await api.fixtures.admin.usage(hashApiKey(counted), '2026-11')).toBe(2);
  });

  test('the list tag changes when any prompt of the account changes', async () => {
    await api.fixtures.account('listed');
    const listedKey = await api.fixtures.apiKey('listed');
    await api.fixtures.prompts('listed', prompt('one', [version('1.0.0')]), prompt('two', [version('1.0.0')]));
    const before = await api.get('/prompts', listedKey);
    await api.fixtures.prompts('listed', prompt('two', [version('1.0.1')]));
    const after = await api.get('/prompts', listedKey, { 'If-None-Match': before.headers.etag ?? '' });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  describe('a list large enough to be gzipped', () => {
    let bigKey: string;

    beforeAll(async () => {
      await api.fixtures.account('big');
      bigKey = await api.fixtures.apiKey('big');
      const text = 'A long template for ${name}. '.repeat(200);
      await api.fixtures.prompts(
        'big',
        prompt('big-1', [version('1.0.0', { userMessage: text })]),
        prompt('big-2', [version('1.0.0', { systemMessage: text })]),
      );
    });

    test('the gzipped representation has a tag of its own, derived from the plain one', async () => {
      const plain = await api.get('/prompts', bigKey);
      const gzipped = await api.get('/prompts', bigKey, { 'Accept-Encoding': 'gzip' });
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(gzipped.headers['content-encoding']).toBe('gzip');
      expect(gzipped.body).toEqual(plain.body);
      expect(gzipped.headers.etag).toBe(`${plain.headers.etag?.slice(0, -1)}-gzip"`);
    });

    test.each([
      ['the gzipped tag, from a caller that accepts gzip', true, 'gzip'],
      ['the plain tag, from a caller that does not', false, undefined],
    ])('If-None-Match with %s gets 304 naming that tag', async (_, gzip, acceptEncoding) => {
      const first = await api.get('/prompts', bigKey, acceptEncoding ? { 'Accept-Encoding': acceptEncoding } : {});
      expect(first.headers['content-encoding']).toBe(gzip ? 'gzip' : undefined);
      const etag = first.headers.etag ?? '';
      const again = await api.get('/prompts', bigKey, { 'If-None-Match': etag, ...(acceptEncoding ? { 'Accept-Encoding': acceptEncoding } : {}) });
      expect(again.status).toBe(304);
      expect(again.rawBody ?? '').toBe('');
      expect(again.headers.etag).toBe(etag);
    });

    test('a gzipped tag does not match the plain representation', async () => {
      const gzipped = await api.get('/prompts', bigKey, { 'Accept-Encoding': 'gzip' });
      const plain = await api.get('/prompts', bigKey, { 'If-None-Match': gzipped.headers.etag ?? '' });
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
    });
  });
});

describe('Cache-Control', () => {
  test('a pinned version is immutable', async () => {
    expect((await api.get('/prompts/welcome?version=1.1.0', key)).headers['cache-control']).toBe('private, max-age=31536000, immutable');
  });

  test('latest revalidates', async () => {
    expect((await api.get('/prompts/welcome', key)).headers['cache-control']).toBe('private, no-cache');
  });

  test('the list revalidates', async () => {
    expect((await api.get('/prompts', key)).headers['cache-control']).toBe('private, no-cache');
    expect((await api.get('/prompts?include_versions=true', key)).headers['cache-control']).toBe('private, no-cache');
  });
});
