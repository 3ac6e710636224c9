import { registerApiKey } from '../support/log-capture';
import { ManagementHarness, type Person } from '../support/management-harness';

/**
 * docs/behaviour-rules.md, "Plans and limits": through the management API a key's own monthly limit may be
 * lower than the plan's or equal to it, never higher (400 naming the plan's limit); the operator's CLI may set any.
 */
const api = new ManagementHarness();
let freeAdmin: Person;
let proAdmin: Person;

const FREE = '/api/accounts/small/keys';
const PRO = '/api/accounts/big/keys';

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('small', 'free');
  await api.fixtures.account('big', 'pro');
  freeAdmin = await api.person('admin@small.test', 'small', 'admin');
  proAdmin = await api.person('admin@big.test', 'big', 'admin');
});
afterAll(() => api.stop());

type Key = { keyId: string; name: string; monthlyLimit: number | null; limit: number };

async function keysOf(path: string, as: Person): Promise<Key[]> {
  return ((await api.send('GET', path, { as })).body as { keys: Key[] }).keys;
}

const cli = (...argv: string[]) => api.cli('ops', ...argv);

test.each([
  ['free', FREE, 5_000],
  ['pro', PRO, 50_000],
] as const)(
  "a key of a %s account is created with its plan's limit or less, never more: 400 naming the plan's limit, no key made",
  async (_plan, path, ceiling) => {
    const as = path === FREE ? freeAdmin : proAdmin;
    const before = await keysOf(path, as);
    for (const monthlyLimit of [ceiling + 1, 2 ** 53 - 1, 1e15]) {
      const response = await api.send('POST', path, { as, body: { name: `over ${monthlyLimit}`, monthlyLimit } });
      expect(response).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST', field: 'monthlyLimit' } });
      expect((response.body as { error: string }).error).toContain(String(ceiling));
    }
    expect(await keysOf(path, as)).toEqual(before);
    for (const monthlyLimit of [ceiling, 1, 0]) {
      const created = await api.send('POST', path, { as, body: { name: `at ${monthlyLimit}`, monthlyLimit } });
      expect(created).toMatchObject({ status: 201, body: { key: { monthlyLimit } } });
    }
  },
);

test("a key's limit is changed to the plan's or less, never more: 400 naming the plan's limit, the key as it was", async () => {
  const created = await api.send('POST', FREE, { as: freeAdmin, body: { name: 'patched', monthlyLimit: 100 } });
  const { keyId } = (created.body as { key: Key }).key;
  const stored = async () => (await keysOf(FREE, freeAdmin)).find((key) => key.keyId === keyId);
  const before = await stored();
  const over = await api.send('PATCH', `${FREE}/${keyId}`, { as: freeAdmin, body: { name: 'renamed too', monthlyLimit: 5_001 } });
  expect(over).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST', field: 'monthlyLimit', error: expect.stringContaining('5000') } });
  expect(await stored()).toEqual(before);
  expect(await api.send('PATCH', `${FREE}/${keyId}`, { as: freeAdmin, body: { monthlyLimit: 5_000 } })).toMatchObject({
    status: 200,
    body: { monthlyLimit: 5_000 },
  });
  expect(await api.send('PATCH', `${FREE}/${keyId}`, { as: freeAdmin, body: { monthlyLimit: null } })).toMatchObject({
    status: 200,
    body: { monthlyLimit: null },
  });
  expect(await stored()).toMatchObject({ monthlyLimit: null, limit: 5_000 });
});

test('the operator may set any limit through the CLI; the API then shows it', async () => {
  const created = await cli('keys', 'create', '--account', 'small', '--monthly-limit', '1000000', '--json');
  expect(created.code).toBe(0);
  const { apiKey, keyId } = JSON.parse(created.stdout) as { apiKey: string; keyId: string };
  registerApiKey(apiKey);
  expect((await keysOf(FREE, freeAdmin)).find((key) => key.keyId === keyId)).toMatchObject({ monthlyLimit: 1_000_000, limit: 1_000_000 });
});
