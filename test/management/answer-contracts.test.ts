import { quotaPeriodAt } from '../../lambda/domain/quota-period';
import * as keyContracts from '../../lambda/management-api/handlers/key-contracts';
import { keyAnswer } from '../../lambda/features/keys/answers';
import { defineRoute, type RouteDeclaration } from '../../lambda/management-api/route';
import { MANAGEMENT_FUNCTIONS } from '../../lambda/management-api/routes';
import { listKeyUsage } from '../../lambda/features/keys/keys';
import { contractMismatches } from '../support/management-contracts';
import { ManagementHarness, type Person } from '../support/management-harness';

/**
 * Every answer a management test receives is held to its route's contract by the harness: a handler that answers
 * what its contract does not allow fails whichever test called it. Here the keys list is served by handlers that
 * get it wrong in the ways types let through: a field the contract does not name, data of the wrong shape read
 * from somewhere untyped, a status the contract does not give.
 */

const api = new ManagementHarness();
let viewer: Person;
const KEYS = '/api/accounts/acme/keys';
const listKeys = MANAGEMENT_FUNCTIONS.flatMap((fn) => fn.routes).find((route) => route.method === 'GET' && route.path === keyContracts.listKeys.path);

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme', 'pro');
  viewer = await api.person('viewer@acme.test', 'acme', 'viewer');
  await api.operations().keys.create('acme', { name: 'Web app' });
});
afterAll(() => api.stop());

/** The route table with the keys list served by `handle`. */
function serveKeysWith(handle: RouteDeclaration<typeof keyContracts.listKeys>['handle']): void {
  const route = defineRoute(keyContracts.listKeys, { access: 'read the account', handle });
  api.useDependencies(
    api.deps,
    MANAGEMENT_FUNCTIONS.map((fn) => ({ ...fn, routes: fn.routes.map((candidate) => (candidate === listKeys ? route : candidate)) })),
  );
}
afterEach(() => api.useDependencies(api.deps));

test('the keys list as it is served keeps its contract', async () => {
  const listed = await api.send('GET', KEYS, { as: viewer });
  expect(listed.status).toBe(200);
  expect(listed.body).toMatchObject({ keys: [{ name: 'Web app', state: 'active' }] });
});

test('a key answered with a field its contract does not name (the stored status beside the state) fails the test', async () => {
  serveKeysWith(async (request) => {
    const usage = await listKeyUsage(request.table, request.params.accountId, quotaPeriodAt(request.now).month);
    return { status: 200, body: { keys: usage.map(({ key }) => ({ ...keyAnswer(key, request.now), status: key.status })) } };
  });
  await expect(api.send('GET', KEYS, { as: viewer })).rejects.toThrow(/breaks the route's contract:\n200 body\.keys\.0: Unrecognized key: "status"/);
});

test('a key whose state is no state the contract lists fails the test', async () => {
  serveKeysWith(async () => ({
    status: 200,
    body: JSON.parse(
      '{"keys":[{"keyId":"key_1","name":null,"displayPrefix":null,"state":"paused","monthlyLimit":null,"scope":null,"expiresAt":null,"createdAt":null,"createdBy":null}]}',
    ),
  }));
  await expect(api.send('GET', KEYS, { as: viewer })).rejects.toThrow(/200 body\.keys\.0\.state: Invalid option/);
});

test('an answer missing a field its contract requires fails the test', async () => {
  serveKeysWith(async () => ({ status: 200, body: JSON.parse('{}') }));
  await expect(api.send('GET', KEYS, { as: viewer })).rejects.toThrow(/200 body\.keys: Invalid input: expected array, received undefined/);
});

test('a status the contract does not give fails the test, and so does a refusal the route never answers', async () => {
  serveKeysWith(async () => JSON.parse('{"status":202,"body":{"keys":[]}}'));
  await expect(api.send('GET', KEYS, { as: viewer })).rejects.toThrow(/answered 202, which its contract does not give/);
  if (!listKeys) throw new Error('the route table has no keys list');
  expect(contractMismatches(listKeys, 409, { error: 'conflict', code: 'CONFLICT' })).toEqual([
    'GET /api/accounts/{accountId}/keys answered 409, which its contract does not give',
  ]);
  expect(contractMismatches(listKeys, 404, { error: 'Not found', code: 'NOT_FOUND', stack: 'at …' })).toEqual(['404 body: Unrecognized key: "stack"']);
  expect(contractMismatches(listKeys, 404, { error: 'Not found', code: 'NOT_FOUND' })).toEqual([]);
});
