import type { ApiStore } from '../../lambda/read-api/store/api-store';
import { ApiHarness, type ApiResponse } from '../support/api-harness';
import { prompt, version } from '../support/fixtures';
import { StoreUnavailableError } from '../../lambda/table/errors';

/** docs/behaviour-rules.md, "Headers". */
const api = new ApiHarness();
let key: string;

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme');
  key = await api.fixtures.apiKey('acme', { monthlyLimit: 100 });
  await api.fixtures.prompts('acme', prompt('welcome', [version('1.0.0')]));
});
afterAll(() => api.stop());

const EXPOSED = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'ETag', 'X-Prompt-Rollout'];
const NEXT_MONTH = String(Date.UTC(2026, 11, 1) / 1000);

function expectRateLimitHeaders(response: ApiResponse) {
  expect(response.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
  expect(response.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
  expect(response.headers['x-ratelimit-reset']).toBe(NEXT_MONTH);
}

function expectCors(response: ApiResponse) {
  expect(response.headers['access-control-allow-origin']).toBe('*');
  const exposed = (response.headers['access-control-expose-headers'] ?? '').split(',').map((h) => h.trim().toLowerCase());
  for (const header of EXPOSED) expect(exposed).toContain(header.toLowerCase());
  expect(response.headers['access-control-allow-credentials']).toBeUndefined();
}

describe('every response to an authenticated request has the rate-limit headers', () => {
  test.each([
    [200, '/prompts/welcome', {}],
    [200, '/prompts', {}],
    [304, '/prompts/welcome', { 'If-None-Match': '*' }],
    [400, '/prompts/welcome?version=x', {}],
    [404, '/prompts/nope', {}],
  ])('%i %s', async (status, path, headers) => {
    const response = await api.get(path, key, headers);
    expect(response.status).toBe(status);
    expectRateLimitHeaders(response);
  });

  test('429, with Retry-After', async () => {
    const spent = await api.fixtures.apiKey('acme', { monthlyLimit: 0 });
    const response = await api.get('/prompts/welcome', spent);
    expect(response.status).toBe(429);
    expectRateLimitHeaders(response);
    expect(response.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(response.headers['retry-after'])).toBe(Number(NEXT_MONTH) - Date.parse('2026-11-15T12:00:00Z') / 1000);
  });

  test('503, with Retry-After', async () => {
    const real = api.realStore();
    const failing: ApiStore = Object.assign(Object.create(real) as typeof real, {
      listPrompts: () => Promise.reject(new StoreUnavailableError('down')),
    });
    api.useStore(failing);
    try {
      const response = await api.get('/prompts', key);
      expect(response.status).toBe(503);
      expectRateLimitHeaders(response);
      expect(response.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    } finally {
      api.useStore(real);
    }
  });

  test('X-RateLimit-Reset is the first second of the next UTC month, in integer unix seconds', async () => {
    api.clock = new Date('2026-12-31T23:59:59.999Z');
    try {
      const response = await api.get('/prompts', key);
      expect(response.headers['x-ratelimit-reset']).toBe('1798761600');
      expect(new Date(1798761600 * 1000).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    } finally {
      api.clock = new Date('2026-11-15T12:00:00Z');
    }
  });

  test('X-RateLimit-Remaining counts down with each request', async () => {
    const fresh = await api.fixtures.apiKey('acme', { monthlyLimit: 10 });
    const first = await api.get('/prompts', fresh);
    const second = await api.get('/prompts', fresh);
    expect([first.headers['x-ratelimit-remaining'], second.headers['x-ratelimit-remaining']]).toEqual(['9', '8']);
    expect(first.headers['x-ratelimit-limit']).toBe('10');
  });
});

describe('every response, errors included, carries CORS headers for any origin', () => {
  test.each([
    ['GET', '/prompts/welcome', true],
    ['GET', '/prompts', true],
    ['GET', '/prompts/welcome', false],
    ['GET', '/nowhere', true],
    ['DELETE', '/prompts', true],
    ['OPTIONS', '/prompts', false],
  ])('%s %s (key: %s)', async (method, path, withKey) => {
    const response = await api.request(method, path, {
      ...(withKey ? { apiKey: key } : {}),
      headers: { Origin: 'https://app.example.com' },
    });
    expectCors(response);
  });
});

describe('preflight', () => {
  test.each([['/prompts'], ['/prompts/welcome'], ['/anything/at/all']])(
    'OPTIONS %s answers 204 with the allowed methods, headers and max age',
    async (path) => {
      const response = await api.request('OPTIONS', path, {
        headers: {
          Origin: 'https://app.example.com',
          'Access-Control-Request-Method': 'GET',
          'Access-Control-Request-Headers': 'authorization, x-prompt-subject',
        },
      });
      expect(response.status).toBe(204);
      expect(response.rawBody ?? '').toBe('');
      expect(response.headers['access-control-allow-methods']).toBe('GET, OPTIONS');
      // X-Prompt-Subject: a browser may name the subject of a read at a rolling-out label (docs/rollouts.md).
      expect(response.headers['access-control-allow-headers']).toBe('Authorization, Content-Type, If-None-Match, X-Prompt-Subject');
      expect(response.headers['access-control-max-age']).toBe('7200');
      expectCors(response);
    },
  );

  test('OPTIONS never touches the store, with or without a key', async () => {
    const untouchable = new Proxy({} as ApiStore, {
      get: () => () => Promise.reject(new Error('the store was touched')),
    });
    api.useStore(untouchable);
    try {
      expect((await api.request('OPTIONS', '/prompts/welcome', { apiKey: key })).status).toBe(204);
      expect((await api.request('OPTIONS', '/prompts')).status).toBe(204);
    } finally {
      api.useStore(api.realStore());
    }
  });
});

describe('Content-Type: application/json on every body', () => {
  test.each([
    ['GET', '/prompts/welcome', true],
    ['GET', '/prompts', true],
    ['GET', '/prompts', false],
    ['GET', '/nowhere', false],
    ['PUT', '/prompts', false],
    ['GET', '/prompts/x?version=1', true],
  ])('%s %s (key: %s)', async (method, path, withKey) => {
    const response = await api.request(method, path, withKey ? { apiKey: key } : {});
    expect(response.rawBody).toBeTruthy();
    expect(response.headers['content-type']).toBe('application/json');
  });
});
