import { ManagementHarness, type Person } from '../support/management-harness';

/**
 * docs/management-api.md, "The management API" (Audit log): `GET /api/accounts/{a}/audit` also takes `actor`, `prompt`, `action`,
 * `outcome`, `from` and `to`; each narrows the log, newest first, and every matching entry is reachable page by page.
 * And leaving: any member may remove themselves; removing someone else needs an admin.
 */

jest.setTimeout(60_000);

const api = new ManagementHarness();
let owner: Person;
let editor: Person;
let viewer: Person;
const A = '/api/accounts/acme';

interface Entry {
  readonly entryId: string;
  readonly at: string;
  readonly action: string;
  readonly outcome: string;
  readonly actor: { readonly email?: string; readonly operator?: string };
  readonly target: Readonly<Record<string, string>>;
}
interface Page {
  readonly entries: readonly Entry[];
  readonly next: string | null;
}

const audit = async (query: string, as: Person = viewer): Promise<Page> => {
  const response = await api.send('GET', `${A}/audit${query}`, { as });
  expect(response.status).toBe(200);
  return response.body as Page;
};

/** Every entry the query matches, page by page. */
async function all(query: string): Promise<Entry[]> {
  const entries: Entry[] = [];
  let next: string | null = null;
  do {
    const separator = query ? '&' : '?';
    const page: Page = await audit(`${query}${next ? `${separator}before=${encodeURIComponent(next)}` : ''}`);
    entries.push(...page.entries);
    next = page.next;
  } while (next);
  return entries;
}

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme', 'pro');
  owner = await api.person('owner@acme.test', 'acme', 'owner');
  editor = await api.person('editor@acme.test', 'acme', 'editor');
  viewer = await api.person('viewer@acme.test', 'acme', 'viewer');
  for (let i = 0; i < 60; i++)
    expect((await api.send('POST', `${A}/prompts`, { as: editor, body: { promptId: `bulk-${i}`, promptName: `Bulk ${i}` } })).status).toBe(201);
  expect((await api.send('POST', `${A}/prompts`, { as: owner, body: { promptId: 'owned', promptName: 'Owned' } })).status).toBe(201);
  // Refused: a viewer creating a prompt.
  expect((await api.send('POST', `${A}/prompts`, { as: viewer, body: { promptId: 'sneaky', promptName: 'Sneaky' } })).status).toBe(403);
  // Failed: creating one that exists.
  expect((await api.send('POST', `${A}/prompts`, { as: editor, body: { promptId: 'owned', promptName: 'Again' } })).status).toBe(409);
});
afterAll(() => api.stop());

test('actor: only what that person did, newest first, every entry reachable over pages', async () => {
  const entries = await all('?actor=editor%40acme.test');
  expect(entries.every((entry) => entry.actor.email === 'editor@acme.test')).toBe(true);
  expect(entries.filter((entry) => entry.action === 'prompt.create' && entry.outcome === 'succeeded')).toHaveLength(60);
  expect(entries.map((entry) => entry.at)).toEqual([...entries.map((entry) => entry.at)].sort().reverse());
});

test('prompt: only the changes of that prompt', async () => {
  const entries = await all('?prompt=owned');
  expect(entries.map((entry) => [entry.actor.email, entry.outcome])).toEqual([
    ['editor@acme.test', 'refused'],
    ['owner@acme.test', 'succeeded'],
  ]);
});

test("action and outcome: the attempt refused by role, and the one refused by the store's condition", async () => {
  expect((await all('?outcome=refused')).map((entry) => [entry.action, entry.target.promptId])).toContainEqual(['prompt.create', 'sneaky']);
  expect((await all('?action=prompt.create&outcome=refused')).map((entry) => entry.target.promptId).sort()).toEqual(['owned', 'sneaky']);
});

test('from and to: a day or an instant, both included; a range with nothing in it is an empty page', async () => {
  const everything = await all('');
  const middle = everything[Math.floor(everything.length / 2)] as Entry;
  const from = await all(`?from=${encodeURIComponent(middle.at)}`);
  expect(from.length).toBeGreaterThan(0);
  expect(from.every((entry) => entry.at >= middle.at)).toBe(true);
  const to = await all(`?to=${encodeURIComponent(middle.at)}`);
  expect(to.every((entry) => entry.at <= middle.at)).toBe(true);
  expect(from.length + to.length).toBeGreaterThanOrEqual(everything.length);
  const today = middle.at.slice(0, 10);
  expect(await all(`?from=${today}&to=${today}`)).toHaveLength(everything.length);
  expect((await audit('?to=2000-01-01')).entries).toEqual([]);
  expect((await audit(`?from=${today}&to=2000-01-01`)).entries).toEqual([]);
});

test('filters together: an actor and an outcome', async () => {
  expect((await all('?actor=viewer%40acme.test&outcome=refused')).map((entry) => entry.target.promptId)).toEqual(['sneaky']);
  expect(await all('?actor=viewer%40acme.test&outcome=succeeded')).toEqual([]);
});

test.each([
  ['outcome=won', 'outcome'],
  ['action=DROP TABLE', 'action'],
  ['from=yesterday', 'from'],
  ['to=2026-02-30', 'to'],
  ['prompt=no spaces', 'prompt'],
  ['actor=', 'actor'],
])('a filter that is not one (%s): 400 naming it', async (query, field) => {
  const response = await api.send('GET', `${A}/audit?${query.replace(' ', '%20')}`, { as: viewer });
  expect(response.status).toBe(400);
  expect(response.body).toMatchObject({ code: 'BAD_REQUEST', field });
});

test('a query parameter the log does not know is left aside, as a cache-buster would be', async () => {
  expect((await api.send('GET', `${A}/audit?_=123`, { as: viewer })).status).toBe(200);
});

describe('leaving an account', () => {
  test('a viewer may leave: 204, and from the next request the account is not theirs', async () => {
    const leaver = await api.person('leaver@acme.test', 'acme', 'viewer');
    expect((await api.send('DELETE', `${A}/members/${leaver.userId}`, { as: leaver })).status).toBe(204);
    expect((await api.send('GET', A, { as: leaver })).status).toBe(404);
  });

  test('an editor may not remove someone else: 403, and they stay', async () => {
    const stays = await api.person('stays@acme.test', 'acme', 'viewer');
    expect((await api.send('DELETE', `${A}/members/${stays.userId}`, { as: editor })).status).toBe(403);
    expect((await api.send('GET', A, { as: stays })).status).toBe(200);
  });

  test('the last owner may not leave: 409', async () => {
    expect((await api.send('DELETE', `${A}/members/${owner.userId}`, { as: owner })).status).toBe(409);
    expect((await api.send('GET', A, { as: owner })).status).toBe(200);
  });
});
