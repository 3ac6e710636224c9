import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planSetLabel } from '../../lambda/features/labels/labels';
import { prompt, version } from '../support/fixtures';
import { ManagementHarness, type Person } from '../support/management-harness';

/**
 * Issue 38, label history: every move or removal of a label is kept, in the move's own transaction, and read
 * newest first, 50 a page (`GET .../labels/{label}/history`), whichever door moved it: the management API (with
 * its note, or as a restore), the CLI, `prompts push`, an approved change request, an import.
 */
const api = new ManagementHarness();
const OPERATOR = 'ci-bot';
let editor: Person;
let viewer: Person;
let admin: Person;
let owner: Person;

const A = '/api/accounts/acme';
const P = `${A}/prompts`;

interface Entry {
  at: string;
  by: string;
  from: string | null;
  to: string | null;
  reason: string | null;
}
interface Page {
  entries: Entry[];
  next?: string;
}

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme', 'pro');
  const published = [version('1.0.0'), version('1.1.0'), version('1.2.0'), version('1.3.0', { published: false })];
  await api.fixtures.prompts(
    'acme',
    prompt('welcome', published),
    prompt('welcome-2', [version('1.0.0'), version('1.1.0')]),
    prompt('restored', [version('1.0.0'), version('1.1.0')]),
    prompt('paged', [version('1.0.0'), version('1.1.0')]),
    prompt('imported', [version('1.0.0')], { labels: { production: '1.0.0' } }),
  );
  editor = await api.person('editor@acme.test', 'acme', 'editor');
  viewer = await api.person('viewer@acme.test', 'acme', 'viewer');
  admin = await api.person('admin@acme.test', 'acme', 'admin');
  owner = await api.person('owner@acme.test', 'acme', 'owner');
});
afterAll(() => api.stop());

async function history(promptId: string, label: string, query = ''): Promise<Page> {
  const response = await api.send('GET', `${P}/${promptId}/labels/${label}/history${query}`, { as: viewer });
  expect(response.status).toBe(200);
  return response.body as Page;
}

const moves = (page: Page) => page.entries.map(({ from, to, by, reason }) => ({ from, to, by, reason }));

const put = (promptId: string, label: string, body: unknown, as: Person = editor) => api.send('PUT', `${P}/${promptId}/labels/${label}`, { as, body });

describe('the management API', () => {
  test('a move is kept, newest first: when, who (the email), from, to, and the note as its reason', async () => {
    expect((await put('welcome', 'staging', { version: '1.0.0', note: 'First cut' })).status).toBe(200);
    expect((await put('welcome', 'staging', { version: '1.1.0' })).status).toBe(200);
    const page = await history('welcome', 'staging');
    expect(moves(page)).toEqual([
      { from: '1.0.0', to: '1.1.0', by: 'editor@acme.test', reason: null },
      { from: null, to: '1.0.0', by: 'editor@acme.test', reason: 'First cut' },
    ]);
    expect(page.next).toBeUndefined();
    const [newest, oldest] = page.entries.map((entry) => Date.parse(entry.at));
    expect(newest).toBeGreaterThanOrEqual(oldest as number);
  });

  test('a removal is kept (to null); a move that changes nothing keeps nothing', async () => {
    await put('welcome', 'beta', { version: '1.2.0' });
    expect((await put('welcome', 'beta', { version: '1.2.0', note: 'again' })).status).toBe(200);
    expect((await api.send('DELETE', `${P}/welcome/labels/beta`, { as: editor })).status).toBe(204);
    expect(moves(await history('welcome', 'beta'))).toEqual([
      { from: '1.2.0', to: null, by: 'editor@acme.test', reason: null },
      { from: null, to: '1.2.0', by: 'editor@acme.test', reason: null },
    ]);
  });

  test('a refused move keeps nothing: a draft (409), a note empty or over 500 characters (400), a viewer (403), a protected label for an editor (403)', async () => {
    await put('welcome', 'gamma', { version: '1.0.0' });
    const before = await history('welcome', 'gamma');
    expect((await put('welcome', 'gamma', { version: '1.3.0' })).status).toBe(409);
    const empty = await put('welcome', 'gamma', { version: '1.1.0', note: '  ' });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ field: 'note' });
    expect((await put('welcome', 'gamma', { version: '1.1.0', note: 'x'.repeat(501) })).status).toBe(400);
    expect((await put('welcome', 'gamma', { version: '1.1.0', note: 'x'.repeat(500) }, viewer)).status).toBe(403);
    expect((await put('welcome', 'production', { version: '1.1.0' })).status).toBe(403);
    expect(await history('welcome', 'gamma')).toEqual(before);
    expect((await history('welcome', 'production')).entries).toEqual([]);
  });

  test('a note of 500 characters is kept whole', async () => {
    const note = 'n'.repeat(500);
    expect((await put('welcome', 'delta', { version: '1.0.0', note })).status).toBe(200);
    expect((await history('welcome', 'delta')).entries[0]?.reason).toBe(note);
  });

  test('a restore (`restore: true`) moves back to a past version and says so: `restore`, or `restore: <note>`', async () => {
    await put('restored', 'production', { version: '1.0.0' }, admin);
    await put('restored', 'production', { version: '1.1.0' }, admin);
    expect((await put('restored', 'production', { version: '1.0.0', restore: true }, admin)).body).toEqual({
      label: 'production',
      version: '1.0.0',
      previous: '1.1.0',
    });
    await put('restored', 'production', { version: '1.1.0' }, admin);
    await put('restored', 'production', { version: '1.0.0', restore: true, note: '1.1.0 breaks the greeting' }, admin);
    expect(moves(await history('restored', 'production')).map(({ to, reason }) => ({ to, reason }))).toEqual([
      { to: '1.0.0', reason: 'restore: 1.1.0 breaks the greeting' },
      { to: '1.1.0', reason: null },
      { to: '1.0.0', reason: 'restore' },
      { to: '1.1.0', reason: null },
      { to: '1.0.0', reason: null },
    ]);
    expect((await put('restored', 'production', { version: '1.1.0', restore: 'yes' }, admin)).status).toBe(400);
  });

  test('viewers read it; an unknown prompt is 404; a label that never moved has an empty history', async () => {
    expect((await api.send('GET', `${P}/nope/labels/staging/history`, { as: viewer })).status).toBe(404);
    expect(await history('welcome', 'never')).toEqual({ entries: [] });
    expect((await api.send('GET', `${P}/welcome/labels/Not-A-Label/history`, { as: viewer })).status).toBe(400);
    const stranger = await api.person('stranger@else.test');
    expect((await api.send('GET', `${P}/welcome/labels/staging/history`, { as: stranger })).status).toBe(404);
  });

  test("one label's history holds its own moves only: staging never shows staging-2's, welcome never welcome-2's", async () => {
    await put('welcome', 'staging-2', { version: '1.2.0' });
    await put('welcome-2', 'staging', { version: '1.0.0' });
    await put('welcome-2', 'staging-2', { version: '1.1.0' });
    expect(moves(await history('welcome', 'staging')).map(({ to }) => to)).toEqual(['1.1.0', '1.0.0']);
    expect(moves(await history('welcome', 'staging-2')).map(({ to }) => to)).toEqual(['1.2.0']);
    expect(moves(await history('welcome-2', 'staging')).map(({ to }) => to)).toEqual(['1.0.0']);
    expect(moves(await history('welcome-2', 'staging-2')).map(({ to }) => to)).toEqual(['1.1.0']);
  });
});

describe('paging', () => {
  const MOVES = 56;
  beforeAll(async () => {
    const ops = api.operations({ type: 'cli', operator: OPERATOR });
    for (let move = 0; move < MOVES; move += 1) await ops.labels.set('acme', 'paged', 'canary', move % 2 === 0 ? '1.0.0' : '1.1.0', { note: `move ${move}` });
  }, 60_000);

  test('50 a page, newest first; `next` goes on where the page ended; the last page has none', async () => {
    const first = await history('paged', 'canary');
    expect(first.entries).toHaveLength(50);
    expect(first.next).toEqual(expect.any(String));
    const second = await history('paged', 'canary', `?before=${encodeURIComponent(first.next as string)}`);
    expect(second.entries).toHaveLength(MOVES - 50);
    expect(second.next).toBeUndefined();
    const reasons = [...first.entries, ...second.entries].map((entry) => entry.reason);
    expect(reasons).toEqual(Array.from({ length: MOVES }, (_, index) => `move ${MOVES - 1 - index}`));
  });

  test("a cursor that is not one of this label's pages is 400 naming before", async () => {
    const first = await history('paged', 'canary');
    for (const query of ['?before=nonsense', `?before=${Buffer.from('LABELHIST#paged#canary#').toString('base64url')}`]) {
      const response = await api.send('GET', `${P}/paged/labels/canary/history${query}`, { as: viewer });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'BAD_REQUEST', field: 'before' });
    }
    const foreign = await api.send('GET', `${P}/welcome/labels/canary/history?before=${first.next}`, { as: viewer });
    expect(foreign.status).toBe(400);
  });
});

describe('every door', () => {
  test('the CLI: prompts label --note keeps the note, by cli:<operator>; prompts label-history prints it, --json gives the page', async () => {
    const moved = await api.cli(
      OPERATOR,
      'prompts',
      'label',
      '--account',
      'acme',
      '--prompt',
      'welcome',
      '--label',
      'cli',
      '--version',
      '1.1.0',
      '--note',
      'Hotfix',
    );
    expect(moved.code).toBe(0);
    expect(moves(await history('welcome', 'cli'))).toEqual([{ from: null, to: '1.1.0', by: `cli:${OPERATOR}`, reason: 'Hotfix' }]);

    const printed = await api.cli(OPERATOR, 'prompts', 'label-history', '--account', 'acme', '--prompt', 'welcome', '--label', 'cli');
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(/cli:ci-bot\s+-\s+1\.1\.0\s+Hotfix/);
    const json = await api.cli(OPERATOR, 'prompts', 'label-history', '--account', 'acme', '--prompt', 'welcome', '--label', 'cli', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({
      accountId: 'acme',
      promptId: 'welcome',
      label: 'cli',
      entries: [{ by: `cli:${OPERATOR}`, from: null, to: '1.1.0', reason: 'Hotfix' }],
    });
  });

  test('the CLI refuses a note that is empty or over 500 characters (exit 2), and moves nothing', async () => {
    for (const note of ['', 'x'.repeat(501)]) {
      const refused = await api.cli(
        OPERATOR,
        'prompts',
        'label',
        '--account',
        'acme',
        '--prompt',
        'welcome',
        '--label',
        'cli',
        '--version',
        '1.0.0',
        '--note',
        note,
      );
      expect(refused.code).toBe(2);
    }
    expect((await history('welcome', 'cli')).entries).toHaveLength(1);
    const paged = await api.cli(OPERATOR, 'prompts', 'label-history', '--account', 'acme', '--prompt', 'paged', '--label', 'canary');
    expect(paged.stdout).toMatch(/more: add --before \S+/);
    expect((await api.cli(OPERATOR, 'prompts', 'label-history', '--account', 'acme', '--prompt', 'welcome', '--label', 'cli', '--before', 'x')).code).toBe(2);
  });

  test('prompts push keeps its moves as `push`, by cli:<operator>', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'label-history-'));
    try {
      expect((await api.cli(OPERATOR, 'prompts', 'pull', '--account', 'acme', '--dir', dir)).code).toBe(0);
      const file = join(dir, 'welcome-2.prompt.yaml');
      const text = await readFile(file, 'utf8');
      await writeFile(file, text.replace(/labels:\n(?:\s+.*\n)*/, 'labels:\n  pushed: 1.0.0\n  staging: 1.1.0\n'));
      const pushed = await api.cli(OPERATOR, 'prompts', 'push', '--account', 'acme', '--dir', dir, '--note', 'From main');
      expect(pushed.code).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(moves(await history('welcome-2', 'pushed'))).toEqual([{ from: null, to: '1.0.0', by: `cli:${OPERATOR}`, reason: 'push' }]);
    expect(moves(await history('welcome-2', 'staging'))[0]).toEqual({ from: '1.0.0', to: '1.1.0', by: `cli:${OPERATOR}`, reason: 'push' });
    // The label the file leaves out is removed, and kept as such.
    expect(moves(await history('welcome-2', 'staging-2'))[0]).toEqual({ from: '1.1.0', to: null, by: `cli:${OPERATOR}`, reason: 'push' });
  });

  test('an approved change request: its move names the request, by the approver who applied it', async () => {
    expect((await api.send('PATCH', A, { as: owner, body: { approvals: { labels: ['release'] } } })).status).toBe(200);
    const asked = await put('welcome', 'release', { version: '1.2.0', note: 'Ready' });
    expect(asked.status).toBe(202);
    expect((await history('welcome', 'release')).entries).toEqual([]);
    const { requestId } = (asked.body as { request: { requestId: string } }).request;
    expect((await api.send('POST', `${A}/requests/${requestId}/approve`, { as: admin, body: {} })).status).toBe(200);
    expect(moves(await history('welcome', 'release'))).toEqual([{ from: null, to: '1.2.0', by: 'admin@acme.test', reason: `request ${requestId}` }]);
    await api.send('PATCH', A, { as: owner, body: { approvals: { labels: [] } } });
  });

  test("an import's moves are kept as `import`", async () => {
    expect(moves(await history('imported', 'production'))).toEqual([{ from: null, to: '1.0.0', by: 'import', reason: 'import' }]);
  });

  test("a move and its entry are one transaction: the move's plan carries the entry among its writes", async () => {
    const planned = await planSetLabel(api.table, 'acme', 'welcome', 'epsilon', '1.0.0', { by: 'cli:test', reason: 'why' });
    const puts = planned.writes.flatMap((write) => ('Put' in write ? [write.Put.Item] : []));
    expect(puts).toContainEqual(
      expect.objectContaining({ type: 'labelHistory', sk: expect.stringMatching(/^LABELHIST#welcome#epsilon#/), from: null, to: '1.0.0', reason: 'why' }),
    );
  });
});
