import { hashApiKey } from '../../lambda/domain/api-key';
import { ApiHarness, type ErrorBody } from '../support/api-harness';
import { prompt, version } from '../support/fixtures';

/** docs/behaviour-rules.md, "Status codes and error codes": one test per row, and the order of checks. */
const api = new ApiHarness();
let key: string;
let otherKey: string;

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme');
  await api.fixtures.account('globex');
  key = await api.fixtures.apiKey('acme');
  otherKey = await api.fixtures.apiKey('globex');
  await api.fixtures.prompts(
    'acme',
    prompt('welcome', [version('1.0.0'), version('1.1.0', { published: false })]),
    prompt('only-drafts', [version('0.1.0', { published: false })]),
    prompt('retired', [version('1.0.0')], { deleted: true }),
  );
  await api.fixtures.prompts('globex', prompt('globex-secret', [version('1.0.0')]));
});
afterAll(() => api.stop());

function expectError(response: { status: number; headers: Record<string, string>; json<T>(): T }, status: number, code: string, error?: string) {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toBe('application/json');
  const body = response.json<ErrorBody>();
  expect(body.code).toBe(code);
  expect(typeof body.error).toBe('string');
  if (error !== undefined) expect(body.error).toBe(error);
  expect(JSON.stringify(body)).not.toMatch(/\bat .*\.(ts|js):\d+/);
}

describe('401 UNAUTHORIZED', () => {
  test('no Authorization header: Missing Authorization header, WWW-Authenticate without error', async () => {
    const response = await api.request('GET', '/prompts/welcome');
    expectError(response, 401, 'UNAUTHORIZED', 'Missing Authorization header');
    expect(response.headers['www-authenticate']).toBe('Bearer realm="prompts"');
  });

  test.each([['Basic dXNlcjpwYXNz'], ['Token abc'], ['Bearer'], ['Bearer   ']])(
    'Authorization %j is not a Bearer key: 401 Invalid Authorization header format',
    async (authorization) => {
      const response = await api.request('GET', '/prompts/welcome', { headers: { Authorization: authorization } });
      // A blank value is a missing header; anything else that is not "Bearer <key>" is a bad format.
      expectError(response, 401, 'UNAUTHORIZED');
      expect(['Invalid Authorization header format', 'Missing Authorization header']).toContain(response.json<ErrorBody>().error);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="prompts"');
    },
  );

  describe('more than one Authorization header, whatever they hold: 401 Invalid Authorization header format, not counted', () => {
    const used = (apiKey: string) => api.fixtures.admin.usage(hashApiKey(apiKey), '2026-11');
    const cases: [string, (a: string, b: string) => string[]][] = [
      ['two keys of the same account', (a, b) => ['Authorization', `Bearer ${a}`, 'Authorization', `Bearer ${b}`]],
      ['the same key twice', (a) => ['Authorization', `Bearer ${a}`, 'Authorization', `Bearer ${a}`]],
      ['the same key twice, the name in two cases', (a) => ['Authorization', `Bearer ${a}`, 'authorization', `Bearer ${a}`]],
      ['a key and an empty header', (a) => ['Authorization', `Bearer ${a}`, 'AUTHORIZATION', '']],
      ['three', (a, b) => ['authorization', `Bearer ${a}`, 'Authorization', `Bearer ${b}`, 'Authorization', `Bearer ${a}`]],
    ];
    test.each(cases)('%s', async (_, headers) => {
      const first = await api.fixtures.apiKey('acme');
      const second = await api.fixtures.apiKey('acme');
      for (const path of ['/prompts/welcome', '/prompts']) {
        const response = await api.request('GET', path, { rawHeaders: headers(first, second) });
        expectError(response, 401, 'UNAUTHORIZED', 'Invalid Authorization header format');
        expect(response.headers['www-authenticate']).toBe('Bearer realm="prompts"');
        expect(response.headers['x-ratelimit-limit']).toBeUndefined();
      }
      expect(await used(first)).toBe(0);
      expect(await used(second)).toBe(0);
    });
  });

  test('an empty Authorization header is a missing one', async () => {
    const response = await api.request('GET', '/prompts/welcome', { headers: { Authorization: '' } });
    expectError(response, 401, 'UNAUTHORIZED', 'Missing Authorization header');
  });

  test('Bearer with an empty key is an invalid header format', async () => {
    const response = await api.request('GET', '/prompts/welcome', { headers: { Authorization: 'Bearer ' } });
    expectError(response, 401, 'UNAUTHORIZED', 'Invalid Authorization header format');
  });

  test('the auth scheme is case-insensitive', async () => {
    const response = await api.request('GET', '/prompts/welcome', { headers: { Authorization: `bearer ${key}` } });
    expect(response.status).toBe(200);
  });

  test.each([
    ['unknown', 'prs_thisKeyDoesNotExistAnywhere000000000000000'],
    ['malformed', 'not a key!'],
    ['too short', 'prs_x'],
    ['too long', `prs_${'a'.repeat(400)}`],
  ])('a %s key: 401 Invalid API key with error="invalid_token"', async (_, badKey) => {
    const response = await api.request('GET', '/prompts/welcome', { headers: { Authorization: `Bearer ${badKey}` } });
    expectError(response, 401, 'UNAUTHORIZED', 'Invalid API key');
    expect(response.headers['www-authenticate']).toBe('Bearer realm="prompts", error="invalid_token"');
  });

  test('a revoked key looks exactly like an unknown one', async () => {
    const revoked = await api.fixtures.apiKey('acme', { revoked: true });
    const unknown = await api.request('GET', '/prompts/welcome', { apiKey: 'prs_unknownunknownunknownunknownunknown00000' });
    const response = await api.get('/prompts/welcome', revoked);
    expect(response.status).toBe(401);
    expect(response.body).toEqual(unknown.body);
    expect(response.headers['www-authenticate']).toBe(unknown.headers['www-authenticate']);
  });

  test('a key revoked after use is refused on its very next request', async () => {
    const apiKey = await api.fixtures.apiKey('acme');
    expect((await api.get('/prompts/welcome', apiKey)).status).toBe(200);
    await api.fixtures.admin.revokeApiKey(hashApiKey(apiKey));
    expectError(await api.get('/prompts/welcome', apiKey), 401, 'UNAUTHORIZED', 'Invalid API key');
    expectError(await api.get('/prompts/welcome?version=1.0.0', apiKey), 401, 'UNAUTHORIZED', 'Invalid API key');
  });

  test('the list endpoint needs a key too', async () => {
    expectError(await api.request('GET', '/prompts'), 401, 'UNAUTHORIZED', 'Missing Authorization header');
  });
});

describe('404 NOT_FOUND', () => {
  test.each([
    ['does not exist', 'nothing-here'],
    ['exists only in another account', 'globex-secret'],
    ['has no published version', 'only-drafts'],
    ['is deleted', 'retired'],
  ])('a prompt that %s', async (_, promptId) => {
    expectError(await api.get(`/prompts/${promptId}`, key), 404, 'NOT_FOUND');
  });

  test('a pinned version of a prompt of another account is NOT_FOUND, not VERSION_NOT_FOUND', async () => {
    expectError(await api.get('/prompts/globex-secret?version=1.0.0', key), 404, 'NOT_FOUND');
    expect((await api.get('/prompts/globex-secret?version=1.0.0', otherKey)).status).toBe(200);
  });

  test('a pinned version of a deleted prompt is NOT_FOUND', async () => {
    expectError(await api.get('/prompts/retired?version=1.0.0', key), 404, 'NOT_FOUND');
  });

  test.each([['/'], ['/prompt'], ['/prompts/welcome/versions'], ['/prompts/a/b'], ['/v1/prompts'], ['/PROMPTS']])(
    'the path %s is not a route: 404 Not found',
    async (path) => {
      expectError(await api.get(path, key), 404, 'NOT_FOUND', 'Not found');
    },
  );
});

describe('404 VERSION_NOT_FOUND', () => {
  test('a well-formed version that was never published', async () => {
    expectError(await api.get('/prompts/welcome?version=9.9.9', key), 404, 'VERSION_NOT_FOUND');
  });

  test('a version that exists only as a draft', async () => {
    expectError(await api.get('/prompts/welcome?version=1.1.0', key), 404, 'VERSION_NOT_FOUND');
  });
});

describe('400 BAD_REQUEST', () => {
  test.each([['1.0'], ['1.0.0.0'], ['01.0.0'], ['1.00.0'], ['1.0.0-beta'], ['v1.0.0'], ['1.0.x'], ['1234567890.0.0'], [''], [' 1.0.0']])(
    'version %j is not MAJOR.MINOR.PATCH',
    async (bad) => {
      expectError(await api.get(`/prompts/welcome?version=${encodeURIComponent(bad)}`, key), 400, 'BAD_REQUEST');
    },
  );

  test('a version of nine-digit parts is well formed', async () => {
    expectError(await api.get('/prompts/welcome?version=999999999.0.0', key), 404, 'VERSION_NOT_FOUND');
  });

  test.each([['yes'], ['TRUE'], ['1'], [''], ['true,true']])('include_versions=%j is neither true nor false', async (bad) => {
    expectError(await api.get(`/prompts?include_versions=${encodeURIComponent(bad)}`, key), 400, 'BAD_REQUEST');
  });

  test.each([
    ['over 128 characters', 'a'.repeat(129)],
    ['a space', 'bad%20id'],
    ['a character outside [A-Za-z0-9_.-]', 'bad!id'],
    ['non-ASCII letters', 'caf%C3%A9'],
    ['broken percent-encoding', 'bad%E0%A4'],
  ])('a promptId with %s', async (_, promptId) => {
    expectError(await api.get(`/prompts/${promptId}`, key), 400, 'BAD_REQUEST');
  });

  test('an empty promptId (/prompts/)', async () => {
    expectError(await api.get('/prompts/', key), 400, 'BAD_REQUEST');
  });

  test('a promptId of exactly 128 allowed characters is well formed', async () => {
    expectError(await api.get(`/prompts/${'A1_.-'.repeat(25)}abc`, key), 404, 'NOT_FOUND');
  });
});

describe('405 METHOD_NOT_ALLOWED', () => {
  test.each([['HEAD'], ['POST'], ['PUT'], ['PATCH'], ['DELETE'], ['TRACE'], ['CONNECT']])('%s is answered 405 with Allow: GET, OPTIONS', async (method) => {
    for (const path of ['/prompts', '/prompts/welcome']) {
      const response = await api.request(method, path, { apiKey: key });
      expectError(response, 405, 'METHOD_NOT_ALLOWED', 'Method not allowed');
      expect(response.headers.allow).toBe('GET, OPTIONS');
    }
  });
});

describe('500 INTERNAL_ERROR', () => {
  test('anything unexpected is a 500 with the JSON error and no trace of the cause', async () => {
    const real = api.realStore();
    api.useStore(
      Object.assign(Object.create(real) as typeof real, {
        findLatestPrompt: () => Promise.reject(new TypeError('secret internals at handler.ts:42')),
      }),
    );
    try {
      const response = await api.get('/prompts/welcome', key);
      expectError(response, 500, 'INTERNAL_ERROR', 'Internal server error');
      expect(response.rawBody).not.toContain('secret internals');
    } finally {
      api.useStore(real);
    }
  });
});

describe('the order of checks: method, then route, then key, then quota, then parameters and data', () => {
  test('a bad method on an unknown path is 405, not 404', async () => {
    expect((await api.request('POST', '/nowhere')).status).toBe(405);
  });

  test('an unknown path without a key is 404, not 401', async () => {
    expect((await api.request('GET', '/nowhere')).status).toBe(404);
  });

  test('a bad parameter without a key is 401, not 400', async () => {
    expect((await api.request('GET', '/prompts/welcome?version=bad')).status).toBe(401);
  });

  test('a bad parameter with a spent quota is 429, not 400', async () => {
    const spent = await api.fixtures.apiKey('acme', { monthlyLimit: 0 });
    expect((await api.get('/prompts/bad!id?version=bad', spent)).status).toBe(429);
  });

  test('a bad version for a prompt of another account is 400: parameters before data', async () => {
    expect((await api.get('/prompts/globex-secret?version=x', key)).status).toBe(400);
  });
});
