import * as auditContracts from '../../lambda/management-api/handlers/audit-contracts';
import { defineRoute, type RouteDeclaration } from '../../lambda/management-api/route';
import { MANAGEMENT_FUNCTIONS } from '../../lambda/management-api/routes';
import { ManagementHarness, type Person } from '../support/management-harness';

/**
 * A route's query, like its body, is read by its contract in the chain (middleware/body.ts validBody): the handler gets
 * what the contract's query schema reads, and a query the contract refuses is a 400 naming the parameter that never
 * reaches the handler. Here the audit log is served by a handler that only keeps what it was given. A problem the
 * contract words no way of its own is worded as zod words it in English (lambda/management-api/english.ts).
 */

const api = new ManagementHarness();
let viewer: Person;
let admin: Person;
const AUDIT = '/api/accounts/acme/audit';
const readAudit = MANAGEMENT_FUNCTIONS.flatMap((fn) => fn.routes).find((route) => route.method === 'GET' && route.path === auditContracts.readAudit.path);

type AuditRequest = Parameters<RouteDeclaration<typeof auditContracts.readAudit>['handle']>[0];
let received: AuditRequest['query'][] = [];

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme', 'pro');
  viewer = await api.person('viewer@acme.test', 'acme', 'viewer');
  admin = await api.person('admin@acme.test', 'acme', 'admin');
  const keeper = defineRoute(auditContracts.readAudit, {
    access: 'read the account',
    async handle(request) {
      received.push(request.query);
      return { status: 200, body: { entries: [], next: null } };
    },
  });
  api.useDependencies(
    api.deps,
    MANAGEMENT_FUNCTIONS.map((fn) => ({ ...fn, routes: fn.routes.map((candidate) => (candidate === readAudit ? keeper : candidate)) })),
  );
});
beforeEach(() => {
  received = [];
});
afterAll(() => api.stop());

test('the handler gets the query as its contract reads it: days made instants, names trimmed, parameters it does not name left out', async () => {
  const answer = await api.send('GET', `${AUDIT}?from=2026-11-24&to=2026-11-24&actor=%20owner%40acme.test%20&page=2`, { as: viewer });
  expect(answer.status).toBe(200);
  expect(received).toEqual([{ from: '2026-11-24T00:00:00.000Z', to: '2026-11-24T23:59:59.999Z', actor: 'owner@acme.test' }]);
});

test('a query its contract refuses is a 400 naming the parameter, and the handler never runs', async () => {
  const answer = await api.send('GET', `${AUDIT}?outcome=pending`, { as: viewer });
  expect(answer.status).toBe(400);
  expect(answer.body).toEqual({ error: 'outcome: must be succeeded, failed or refused', code: 'BAD_REQUEST', field: 'outcome' });
  expect(received).toEqual([]);
});

test('a body field of the wrong type is a 400 in English naming the field, and nothing is created', async () => {
  const answer = await api.send('POST', '/api/accounts/acme/keys', { as: admin, body: { name: 5 } });
  expect(answer.status).toBe(400);
  expect(answer.body).toEqual({ error: 'name: Invalid input: expected string, received number', code: 'BAD_REQUEST', field: 'name' });
  expect((await api.send('GET', '/api/accounts/acme/keys', { as: viewer })).body).toEqual({ keys: [] });
});
