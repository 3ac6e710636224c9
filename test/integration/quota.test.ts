import { hashApiKey } from '../../lambda/domain/api-key';
import { ApiHarness, type ErrorBody, UPGRADE_URL } from '../support/api-harness';
import { prompt, version } from '../support/fixtures';
import { StoreUnavailableError } from '../../lambda/table/errors';

/** docs/behaviour-rules.md, "What counts against the quota" and "Plans and limits", against a real store. */
const api = new ApiHarness();

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme', 'free');
  await api.fixtures.account('bigco', 'pro');
  await api.fixtures.prompts('acme', prompt('welcome', [version('1.0.0')]));
});
afterAll(() => api.stop());
beforeEach(() => {
  api.clock = new Date('2026-11-15T12:00:00Z');
});

const used = (apiKey: string, month = '2026-11') => api.fixtures.admin.usage(hashApiKey(apiKey), month);

describe('what counts', () => {
  test.each([
    [200, '/prompts/welcome', {}],
    [304, '/prompts/welcome', { 'If-None-Match': '*' }],
    [400, '/prompts/welcome?version=bad', {}],
    [404, '/prompts/missing', {}],
    [200, '/prompts', {}],
  ])('an authenticated GET answered %i counts one', async (status, path, headers) => {
    const apiKey = await api.fixtures.apiKey('acme');
    const response = await api.get(path, apiKey, headers);
    expect(response.status).toBe(status);
    expect(await used(apiKey)).toBe(1);
    expect(response.headers['x-ratelimit-remaining']).toBe('4999');
  });

  test('401, 405, OPTIONS and unknown routes do not count', async () => {
    const apiKey = await api.fixtures.apiKey('acme');
    expect((await api.request('POST', '/prompts/welcome', { apiKey })).status).toBe(405);
    expect((await api.request('OPTIONS', '/prompts/welcome', { apiKey })).status).toBe(204);
    expect((await api.get('/unknown', apiKey)).status).toBe(404);
    expect((await api.get('/prompts/a/b', apiKey)).status).toBe(404);
    expect(await used(apiKey)).toBe(0);
  });

  test('a 429 does not count', async () => {
    const apiKey = await api.fixtures.apiKey('acme', { monthlyLimit: 2 });
    for (let i = 0; i < 5; i += 1) await api.get('/prompts/welcome', apiKey);
    expect(await used(apiKey)).toBe(2);
  });

  test('a unit taken for a request that then fails with 5xx is given back', async () => {
    const apiKey = await api.fixtures.apiKey('acme');
    const real = api.realStore();
    api.useStore(
      Object.assign(Object.create(real) as typeof real, {
        findLatestPrompt: () => Promise.reject(new StoreUnavailableError('throttled')),
      }),
    );
    try {
      const response = await api.get('/prompts/welcome', apiKey);
      expect(response.status).toBe(503);
      expect(response.json<ErrorBody>().code).toBe('SERVICE_UNAVAILABLE');
      expect(response.headers['retry-after']).toMatch(/^\d+$/);
      expect(response.headers['x-ratelimit-remaining']).toBe('5000');
    } finally {
      api.useStore(real);
    }
    expect(await used(apiKey)).toBe(0);
  });

  test('a unit is given back after a 500 too', async () => {
    const apiKey = await api.fixtures.apiKey('acme');
    const real = api.realStore();
    api.useStore(Object.assign(Object.create(real) as typeof real, { listPrompts: () => Promise.reject(new Error('bug')) }));
    try {
      expect((await api.get('/prompts', apiKey)).status).toBe(500);
    } finally {
      api.useStore(real);
    }
    expect(await used(apiKey)).toBe(0);
  });
});

describe('the counter never passes the limit', () => {
  test('limit 50, 300 concurrent requests: exactly 50 succeed and the rest get 429 with used == limit', async () => {
    const apiKey = await api.fixtures.apiKey('acme', { monthlyLimit: 50 });
    const responses = await Promise.all(Array.from({ length: 300 }, () => api.get('/prompts/welcome', apiKey)));

    const ok = responses.filter((response) => response.status === 200);
    const refused = responses.filter((response) => response.status === 429);
    expect(ok).toHaveLength(50);
    expect(refused).toHaveLength(250);
    for (const response of refused) {
      expect(response.json<ErrorBody>().usage).toEqual({ used: 50, limit: 50 });
    }
    const remaining = ok.map((response) => Number(response.headers['x-ratelimit-remaining'])).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(await used(apiKey)).toBe(50);
  }, 30_000);

  test('exact too when the key is already known, so prompt reads run alongside the count', async () => {
    const apiKey = await api.fixtures.apiKey('acme', { monthlyLimit: 51 });
    expect((await api.get('/prompts/welcome', apiKey)).status).toBe(200);
    const responses = await Promise.all(Array.from({ length: 300 }, () => api.get('/prompts/welcome', apiKey)));

    expect(responses.filter((response) => response.status === 200)).toHaveLength(50);
    const refused = responses.filter((response) => response.status === 429);
    expect(refused).toHaveLength(250);
    for (const response of refused) expect(response.json<ErrorBody>().usage).toEqual({ used: 51, limit: 51 });
    expect(await used(apiKey)).toBe(51);
  }, 30_000);

  test('the request that takes the last unit gets 200 with Remaining 0; the next gets 429', async () => {
    const apiKey = await api.fixtures.apiKey('acme', { monthlyLimit: 3 });
    const statuses: Array<[number, string | undefined]> = [];
    for (let i = 0; i < 4; i += 1) {
      const response = await api.get('/prompts/welcome', apiKey);
      statuses.push([response.status, response.headers['x-ratelimit-remaining']]);
    }
    expect(statuses).toEqual([
      [200, '2'],
      [200, '1'],
      [200, '0'],
      [429, '0'],
    ]);
  });

  test('the 429 body carries error, code, usage with used == limit, and the configured upgradeUrl', async () => {
    const apiKey = await api.fixtures.apiKey('acme', { monthlyLimit: 1 });
    await api.get('/prompts/welcome', apiKey);
    const response = await api.get('/prompts/welcome', apiKey);
    expect(response.status).toBe(429);
    expect(response.body).toEqual({
      error: expect.any(String),
      code: 'USAGE_LIMIT_EXCEEDED',
      usage: { used: 1, limit: 1 },
      upgradeUrl: UPGRADE_URL,
    });
  });

  test("a lowered limit below this month's count still reports used == limit", async () => {
    const apiKey = await api.fixtures.apiKey('acme', { monthlyLimit: 3 });
    for (let i = 0; i < 3; i += 1) await api.get('/prompts/welcome', apiKey);
    await api.fixtures.admin.putApiKey({
      keyHash: hashApiKey(apiKey),
      keyId: 'key_lowered',
      accountId: 'acme',
      displayPrefix: apiKey.slice(0, 8),
      monthlyLimit: 2,
    });
    const response = await api.get('/prompts/welcome', apiKey);
    expect(response.status).toBe(429);
    expect(response.json<ErrorBody>().usage).toEqual({ used: 2, limit: 2 });
    expect(response.headers['x-ratelimit-remaining']).toBe('0');
  });

  test('a limit of zero refuses the first request', async () => {
    const apiKey = await api.fixtures.apiKey('acme', { monthlyLimit: 0 });
    const response = await api.get('/prompts/welcome', apiKey);
    expect(response.status).toBe(429);
    expect(response.json<ErrorBody>().usage).toEqual({ used: 0, limit: 0 });
    expect(await used(apiKey)).toBe(0);
  });
});

describe('the month is the calendar month in UTC', () => {
  test('the count starts from zero on the first second of the next month, with no job', async () => {
    const apiKey = await api.fixtures.apiKey('acme', { monthlyLimit: 1 });
    api.clock = new Date('2026-11-30T23:59:59Z');
    expect((await api.get('/prompts/welcome', apiKey)).status).toBe(200);
    expect((await api.get('/prompts/welcome', apiKey)).status).toBe(429);

    api.clock = new Date('2026-12-01T00:00:00Z');
    const response = await api.get('/prompts/welcome', apiKey);
    expect(response.status).toBe(200);
    expect(response.headers['x-ratelimit-remaining']).toBe('0');
    expect(response.headers['x-ratelimit-reset']).toBe(String(Date.UTC(2027, 0, 1) / 1000));
    expect(await used(apiKey, '2026-11')).toBe(1);
    expect(await used(apiKey, '2026-12')).toBe(1);
  });

  test('the 429 Retry-After is the seconds until that reset', async () => {
    const apiKey = await api.fixtures.apiKey('acme', { monthlyLimit: 0 });
    api.clock = new Date('2026-11-30T23:00:00Z');
    const response = await api.get('/prompts/welcome', apiKey);
    expect(response.headers['retry-after']).toBe('3600');
    expect(response.headers['x-ratelimit-reset']).toBe(String(Date.UTC(2026, 11, 1) / 1000));
  });
});

describe('plans and limits', () => {
  test('a free account key has 5,000 requests a month', async () => {
    const apiKey = await api.fixtures.apiKey('acme');
    expect((await api.get('/prompts', apiKey)).headers['x-ratelimit-limit']).toBe('5000');
  });

  test('a pro account key has 50,000 requests a month', async () => {
    const apiKey = await api.fixtures.apiKey('bigco');
    expect((await api.get('/prompts', apiKey)).headers['x-ratelimit-limit']).toBe('50000');
  });

  test('each key of an account has the monthly limit of its own', async () => {
    const first = await api.fixtures.apiKey('acme', { monthlyLimit: 1 });
    const second = await api.fixtures.apiKey('acme', { monthlyLimit: 1 });
    expect((await api.get('/prompts', first)).status).toBe(200);
    expect((await api.get('/prompts', first)).status).toBe(429);
    expect((await api.get('/prompts', second)).status).toBe(200);
  });

  test("a key's own monthly limit overrides the plan's", async () => {
    const apiKey = await api.fixtures.apiKey('bigco', { monthlyLimit: 123 });
    expect((await api.get('/prompts', apiKey)).headers['x-ratelimit-limit']).toBe('123');
  });

  test('a plan change applies to the next request', async () => {
    await api.fixtures.account('upgrader', 'free');
    const apiKey = await api.fixtures.apiKey('upgrader');
    expect((await api.get('/prompts', apiKey)).headers['x-ratelimit-limit']).toBe('5000');
    await api.fixtures.admin.setAccountPlan('upgrader', 'pro');
    expect((await api.get('/prompts', apiKey)).headers['x-ratelimit-limit']).toBe('50000');
  });
});
