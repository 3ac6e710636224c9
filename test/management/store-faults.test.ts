import { createStoreClients, type StoreClients } from '../../lambda/table/client';
import { AdminTable } from '../../lambda/table/admin-table';
import { type FaultProxy, startFaultProxy } from '../support/fault-proxy';
import { ManagementHarness, type Person } from '../support/management-harness';

/** A store that stalls, throttles or loses answers: every management request is answered 503 within 5 s. */
const api = new ManagementHarness();
let proxy: FaultProxy;
let clients: StoreClients;
let owner: Person;

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme', 'pro');
  owner = await api.person('owner@acme.test', 'acme', 'owner');
  proxy = await startFaultProxy(api.local.endpoint);
  clients = createStoreClients({ region: 'us-east-1', endpoint: proxy.endpoint });
  api.useDependencies({
    ...api.deps,
    table: new AdminTable(clients.reads, api.local.tableName, () => new Date(), { writeClient: clients.writes }),
  });
});
afterAll(async () => {
  clients.destroy();
  await proxy.close();
  await api.stop();
});
beforeEach(() => {
  proxy.rule = () => 'pass';
});

const timed = async (run: () => Promise<{ status: number; body: unknown; headers: Record<string, string> }>) => {
  const started = Date.now();
  const response = await run();
  return { response, ms: Date.now() - started };
};

test.each(['stall', 'throttle', 'drop-answer'] as const)('the store does "%s" on every call: 503 SERVICE_UNAVAILABLE within 5 s', async (fault) => {
  proxy.rule = () => fault;
  for (const run of [
    () => api.send('GET', '/api/accounts/acme/prompts', { as: owner }),
    () => api.send('POST', '/api/accounts/acme/prompts', { as: owner, body: { promptId: 'p', promptName: 'P' } }),
  ]) {
    const { response, ms } = await timed(run);
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ error: expect.any(String), code: 'SERVICE_UNAVAILABLE' });
    expect(response.headers['retry-after']).toBe('1');
    expect(ms).toBeLessThan(5_000);
  }
}, 30_000);

test('the audit entry is written, the change stalls: 503 within 5 s, and the entry says it was attempted', async () => {
  proxy.rule = (operation) => (operation === 'UpdateItem' ? 'stall' : 'pass');
  const { response, ms } = await timed(() => api.send('PATCH', '/api/accounts/acme', { as: owner, body: { name: 'Slow' } }));
  expect(response.status).toBe(503);
  expect(ms).toBeLessThan(5_000);
  proxy.rule = () => 'pass';
  expect((await api.send('GET', '/api/accounts/acme', { as: owner })).body).toMatchObject({ name: 'Account acme' });
  const audit = await api.send('GET', '/api/accounts/acme/audit', { as: owner });
  const [entry] = (audit.body as { entries: { action: string; outcome: string }[] }).entries;
  // Its outcome could not be written either (the same store stalled): pending, which says "attempted, may or may not be done".
  expect(entry).toMatchObject({ action: 'account.update', outcome: 'pending' });
}, 30_000);

test('the store refuses every write before the change: nothing is changed, since the entry could not be written first', async () => {
  proxy.rule = (operation) => (operation === 'PutItem' ? 'throttle' : 'pass');
  const response = await api.send('POST', '/api/accounts/acme/prompts', { as: owner, body: { promptId: 'unrecorded', promptName: 'U' } });
  expect(response.status).toBe(503);
  proxy.rule = () => 'pass';
  expect((await api.send('GET', '/api/accounts/acme/prompts/unrecorded', { as: owner })).status).toBe(404);
}, 30_000);
