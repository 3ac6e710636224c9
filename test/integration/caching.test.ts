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
    const response = await api.get('/prompts/welcome', key, { 'If-None-Match': '"stale"' });
    expect(response.status).toBe(200);
    expect(response.body).toBeDefined();
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

describe('Cache-Control', () => {
  test('a pinned version is immutable', async () => {
    expect((await api.get('/prompts/welcome?version=1.1.0', key)).headers['cache-control']).toBe(
      'private, max-age=31536000, immutable',
    );
  });

  test('latest revalidates', async () => {
    expect((await api.get('/prompts/welcome', key)).headers['cache-control']).toBe('private, no-cache');
  });

  test('the list revalidates', async () => {
    expect((await api.get('/prompts', key)).headers['cache-control']).toBe('private, no-cache');
    expect((await api.get('/prompts?include_versions=true', key)).headers['cache-control']).toBe('private, no-cache');
  });
});
