/**
 * @run-alone every fault is answered within 5 s: another test file's CPU would be in those times.
 */
import { createStoreClients, type StoreClients } from '../../lambda/table/client';
import { Table } from '../../lambda/table/table';
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
    table: new Table(clients.reads, api.local.tableName, () => new Date(), { writeClient: clients.writes }),
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

test.each(['stall', 'throttle', 'drop-answer'] as const)(
  'the store does "%s" on every call: 503 SERVICE_UNAVAILABLE within 5 s',
  async (fault) => {
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
  },
  30_000,
);

interface Entry {
  action: string;
  outcome: string;
}

const entriesOf = async (action: string): Promise<Entry[]> => {
  const audit = await api.send('GET', '/api/accounts/acme/audit', { as: owner });
  expect(audit.status).toBe(200);
  return (audit.body as { entries: Entry[] }).entries.filter((entry) => entry.action === action);
};

test("the change's transaction stalls: 503 within 5 s, and nothing of it is stored, its audit entry included", async () => {
  proxy.rule = (operation) => (operation === 'TransactWriteItems' ? 'stall' : 'pass');
  const { response, ms } = await timed(() => api.send('PATCH', '/api/accounts/acme', { as: owner, body: { name: 'Slow' } }));
  expect(response.status).toBe(503);
  expect(response.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  expect(ms).toBeLessThan(5_000);
  proxy.rule = () => 'pass';
  expect((await api.send('GET', '/api/accounts/acme', { as: owner })).body).toMatchObject({ name: 'Account acme' });
  // The entry is written in the change's own transaction: no change, no entry (and never one `pending`).
  expect(await entriesOf('account.update')).toEqual([]);
}, 30_000);

test('the store throttles every write: 503, nothing is changed and nothing is recorded', async () => {
  proxy.rule = (operation) => (['TransactWriteItems', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'].includes(operation) ? 'throttle' : 'pass');
  const response = await api.send('POST', '/api/accounts/acme/prompts', { as: owner, body: { promptId: 'unrecorded', promptName: 'U' } });
  expect(response.status).toBe(503);
  proxy.rule = () => 'pass';
  expect((await api.send('GET', '/api/accounts/acme/prompts/unrecorded', { as: owner })).status).toBe(404);
  expect(await entriesOf('prompt.create')).toEqual([]);
}, 30_000);
