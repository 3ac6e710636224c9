import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createManagementGateway } from '../../local/management-gateway';
import { idTokenClaims, ManagementHarness, type Person } from '../support/management-harness';

/**
 * local/management-gateway.ts over HTTP: the token check in place of the Cognito authorizer, its claims
 * in the event where the authorizer puts them, the gateway's own answers. The verifier here accepts one
 * token per person (the identity stand-in's real verifier is given at merge, with the OAuth flow's tests).
 */
const api = new ManagementHarness();
let server: Server;
let base: string;
let owner: Person;
const tokens = new Map<string, Person>();

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme', 'pro');
  owner = await api.person('owner@acme.test', 'acme', 'owner');
  tokens.set('token-of-owner', owner);
  const listener = createManagementGateway({
    dependencies: api.deps,
    verifyToken: async (token) => {
      const person = tokens.get(token);
      return person ? idTokenClaims(person) : undefined;
    },
  });
  server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await api.stop();
});

const call = (path: string, init: RequestInit = {}) => fetch(`${base}${path}`, init);

test('a valid token: the function sees the claims, /api/me answers', async () => {
  const response = await call('/api/me', { headers: { Authorization: 'Bearer token-of-owner' } });
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ userId: owner.userId, email: 'owner@acme.test', accounts: [{ accountId: 'acme', role: 'owner' }] });
  expect(response.headers.get('access-control-allow-origin')).toBeNull();
});

test.each([
  ['no Authorization header', {}],
  ['a token the verifier refuses', { Authorization: 'Bearer forged' }],
  ['a header that is no token', { Authorization: 'Basic a b' }],
])('%s: the gateway answers 401 in the service format, the function never runs', async (_case, headers) => {
  const response = await call('/api/accounts/acme', { headers });
  expect(response.status).toBe(401);
  expect(await response.json()).toEqual({ error: expect.any(String), code: 'UNAUTHORIZED' });
  expect(response.headers.get('cache-control')).toBe('no-store');
});

test('a method the API does not have: 404 in the service format', async () => {
  const response = await call('/api/nothing-here', { headers: { Authorization: 'Bearer token-of-owner' } });
  expect(response.status).toBe(404);
  expect(await response.json()).toEqual({ error: 'Not found', code: 'NOT_FOUND' });
});

test('bodies and headers reach the function: a prompt and a draft with If-None-Match', async () => {
  const auth = { Authorization: 'Bearer token-of-owner', 'Content-Type': 'application/json' };
  const created = await call('/api/accounts/acme/prompts', { method: 'POST', headers: auth, body: JSON.stringify({ promptId: 'local', promptName: 'Local' }) });
  expect(created.status).toBe(201);
  const draft = await call('/api/accounts/acme/prompts/local/versions/1.0.0', {
    method: 'PUT',
    headers: { ...auth, 'If-None-Match': '*' },
    body: JSON.stringify({ systemMessage: 's', userMessage: 'u', config: { model: 'm', temperature: 1 } }),
  });
  expect(draft.status).toBe(201);
  expect(draft.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
});
