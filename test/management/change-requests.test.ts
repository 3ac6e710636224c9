import { Operations } from '../../lambda/operations';
import { Table } from '../../lambda/table/table';
import { listAudit } from '../../lambda/table/audit-log';
import { listChangeRequests, requireChangeRequest } from '../../lambda/features/change-requests/change-requests';
import type { TransactionWrite } from '../../lambda/table/transaction';
import { prompt, version } from '../support/fixtures';
import { ManagementHarness, type Person } from '../support/management-harness';

/**
 * Issue 38, change requests: labels an account puts under approval are asked for, not moved (202 and an open
 * request), then approved (the `required`-th distinct approval moves the label in the same transaction, if it
 * still points where it did when asked: otherwise the request turns stale, 409), rejected or withdrawn. Every
 * refusal is read back: nothing moved, the request as it was.
 */
const api = new ManagementHarness();
let owner: Person;
let asker: Person;
let approver: Person;
let editor: Person;
let viewer: Person;

const A = '/api/accounts/acme';
const P = `${A}/prompts`;

interface Request {
  requestId: string;
  promptId: string;
  label: string;
  from: string | null;
  to: string | null;
  note: string | null;
  restore: boolean;
  requestedBy: string;
  requestedAt: string;
  required: number;
  approvals: { by: string; at: string; comment: string | null; counts: boolean; role: string | null; why: string | null }[];
  state: string;
  decision: { by: string; at: string; comment: string | null } | null;
}

/** Prompts for the tests, each with production and staging at 1.0.0; 1.1.0 adds a placeholder and drops one. */
const PROMPTS = [
  'ask',
  'listed',
  'remove',
  'roles',
  'same',
  'second',
  'refused',
  'direct',
  'own',
  'deny',
  'apply',
  'reject',
  'withdraw',
  'stale',
  'race',
  'restore',
  'body',
];

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme', 'pro');
  await api.fixtures.account('duo', 'pro');
  await api.fixtures.account('settings', 'pro');
  const versions = [
    version('1.0.0', { systemMessage: 'You greet ${name}.', userMessage: 'Hello ${name} from ${city}' }),
    version('1.1.0', {
      systemMessage: 'You greet ${name} warmly.',
      userMessage: 'Hello ${name}, it is ${day}',
      config: { model: 'gpt-4o', temperature: 0.2, schema: [], inputData: null, inputDataRootName: null },
    }),
    version('1.2.0'),
    version('1.3.0', { published: false }),
  ];
  await api.fixtures.prompts('acme', ...PROMPTS.map((id) => prompt(id, versions, { labels: { production: '1.0.0', release: '1.0.0', staging: '1.0.0' } })));
  await api.fixtures.prompts(
    'duo',
    prompt('pair', versions, { labels: { production: '1.0.0' } }),
    prompt('together', versions, { labels: { production: '1.0.0' } }),
  );
  owner = await api.person('owner@acme.test', 'acme', 'owner');
  asker = await api.person('asker@acme.test', 'acme', 'admin');
  approver = await api.person('approver@acme.test', 'acme', 'admin');
  editor = await api.person('editor@acme.test', 'acme', 'editor');
  viewer = await api.person('viewer@acme.test', 'acme', 'viewer');
  await api.person(owner.email, 'duo', 'owner');
  for (const person of [asker, approver]) await api.person(person.email, 'duo', 'admin');
  await api.person('owner@acme.test', 'settings', 'owner');
  await api.person('admin@settings.test', 'settings', 'admin');
  // Production is protected (admins), release is not (editors); both under approval. Staging moves at once.
  expect((await api.send('PATCH', A, { as: owner, body: { approvals: { labels: ['production', 'release'] } } })).status).toBe(200);
  expect((await api.send('PATCH', '/api/accounts/duo', { as: owner, body: { approvals: { labels: ['production'], required: 2 } } })).status).toBe(200);
  // Nineteen prompts of four versions each: seconds of fixtures on a machine the other suites share.
}, 30_000);
afterAll(() => api.stop());

const labelsOf = async (promptId: string, account = 'acme'): Promise<Record<string, string>> =>
  ((await api.send('GET', `/api/accounts/${account}/prompts/${promptId}`, { as: owner })).body as { labels: Record<string, string> }).labels;

const historyOf = async (promptId: string, label = 'production') =>
  ((await api.send('GET', `${P}/${promptId}/labels/${label}/history`, { as: viewer })).body as { entries: { reason: string | null; to: string | null }[] })
    .entries;

async function ask(promptId: string, body: Record<string, unknown>, options: { as?: Person; label?: string; account?: string } = {}): Promise<Request> {
  const path = `/api/accounts/${options.account ?? 'acme'}/prompts/${promptId}/labels/${options.label ?? 'production'}`;
  const response = await api.send('PUT', path, { as: options.as ?? asker, body });
  expect(response.status).toBe(202);
  return (response.body as { request: Request }).request;
}

const decide = (requestId: string, decision: 'approve' | 'reject' | 'withdraw', as: Person, body?: unknown, account = 'acme') =>
  api.send('POST', `/api/accounts/${account}/requests/${requestId}/${decision}`, { as, ...(body === undefined ? {} : { body }) });

const requestOf = async (requestId: string, account = 'acme'): Promise<Request> =>
  ((await api.send('GET', `/api/accounts/${account}/requests/${requestId}`, { as: account === 'acme' ? viewer : owner })).body as { request: Request }).request;

/** The entries of the audit log with these actions, oldest first, as action and outcome. */
async function audited(accountId: string, requestOrPrompt: string, ...actions: string[]): Promise<{ action: string; outcome: string }[]> {
  const { entries } = await listAudit(api.table, accountId);
  return entries
    .filter((entry) => actions.includes(entry.action) && Object.values(entry.target).includes(requestOrPrompt))
    .reverse()
    .map(({ action, outcome }) => ({ action, outcome }));
}

describe('the account setting', () => {
  const S = '/api/accounts/settings';
  const settings = async () => ((await api.send('GET', S, { as: owner })).body as { approvals: unknown }).approvals;

  test('a new account has none; owners set labels and required, shown by GET; `labels: []` turns them off', async () => {
    expect(await settings()).toEqual({ labels: [], required: 1 });
    const set = await api.send('PATCH', S, { as: owner, body: { approvals: { labels: ['production', 'canary'], required: 3 } } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ approvals: { labels: ['production', 'canary'], required: 3 } });
    expect(await settings()).toEqual({ labels: ['production', 'canary'], required: 3 });
    expect((await api.send('PATCH', S, { as: owner, body: { approvals: { labels: ['production'] } } })).body).toMatchObject({
      approvals: { labels: ['production'], required: 1 },
    });
    expect((await api.send('PATCH', S, { as: owner, body: { approvals: { labels: [] } } })).status).toBe(200);
    expect(await settings()).toEqual({ labels: [], required: 1 });
  });

  test('only owners: an admin is 403, and nothing changes', async () => {
    const admin = { userId: (await api.directory.findByEmail('admin@settings.test'))?.userId as string, email: 'admin@settings.test' };
    const refused = await api.send('PATCH', S, { as: admin, body: { approvals: { labels: ['production'] } } });
    expect(refused.status).toBe(403);
    expect(await settings()).toEqual({ labels: [], required: 1 });
  });

  test.each([
    [{ labels: ['production'], required: 0 }, 'approvals.required'],
    [{ labels: ['production'], required: 6 }, 'approvals.required'],
    [{ labels: ['production'], required: 1.5 }, 'approvals.required'],
    [{ labels: ['Prod!'] }, 'approvals.labels.0'],
    [{ labels: ['latest'] }, 'approvals.labels.0'],
    [{ required: 2 }, 'approvals.labels'],
    [{ labels: ['production'], extra: true }, 'approvals.extra'],
  ])('%j is 400 naming %s, and nothing changes', async (approvals, field) => {
    const refused = await api.send('PATCH', S, { as: owner, body: { approvals } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'BAD_REQUEST', field });
    expect(await settings()).toEqual({ labels: [], required: 1 });
  });
});

describe('asking', () => {
  test('a move of a label under approval answers 202 with the open request; the label stays, its history too; audited as request.open', async () => {
    const request = await ask('ask', { version: '1.1.0', note: 'Warmer greeting' });
    expect(request).toEqual({
      requestId: expect.stringMatching(/^req_\d{17}_[0-9a-f]{8}$/),
      promptId: 'ask',
      label: 'production',
      from: '1.0.0',
      to: '1.1.0',
      note: 'Warmer greeting',
      restore: false,
      requestedBy: 'asker@acme.test',
      requestedAt: expect.any(String),
      required: 1,
      approvals: [],
      state: 'open',
      decision: null,
    });
    expect(await labelsOf('ask')).toMatchObject({ production: '1.0.0' });
    expect((await historyOf('ask')).map((entry) => entry.reason)).toEqual(['import']);
    expect(await audited('acme', 'ask', 'request.open', 'label.set')).toEqual([{ action: 'request.open', outcome: 'succeeded' }]);
  });

  test('the 202 request is in the open list and the full list, newest first, and GET by id has what a reviewer compares', async () => {
    const first = await ask('listed', { version: '1.1.0' }, { label: 'release', as: editor });
    const second = await ask('listed', { version: '1.2.0' });
    const open = await api.send('GET', `${A}/requests?state=open`, { as: viewer });
    expect(open.status).toBe(200);
    const openIds = (open.body as { requests: Request[] }).requests.map((request) => request.requestId);
    expect(openIds.indexOf(second.requestId)).toBeLessThan(openIds.indexOf(first.requestId));
    expect(openIds.indexOf(first.requestId)).toBeGreaterThanOrEqual(0);
    const all = (await api.send('GET', `${A}/requests`, { as: viewer })).body as { requests: Request[] };
    expect(all.requests.map((request) => request.requestId)).toEqual(expect.arrayContaining([first.requestId, second.requestId]));

    const detail = await api.send('GET', `${A}/requests/${first.requestId}`, { as: viewer });
    expect(detail.status).toBe(200);
    expect(detail.body).toEqual({
      request: first,
      fromVersion: {
        version: '1.0.0',
        systemMessage: 'You greet ${name}.',
        userMessage: 'Hello ${name} from ${city}',
        config: { model: 'gpt-4o-mini', temperature: 0.7, schema: [], inputData: null, inputDataRootName: null },
      },
      toVersion: {
        version: '1.1.0',
        systemMessage: 'You greet ${name} warmly.',
        userMessage: 'Hello ${name}, it is ${day}',
        config: { model: 'gpt-4o', temperature: 0.2, schema: [], inputData: null, inputDataRootName: null },
      },
      placeholders: { added: ['day'], removed: ['city'] },
    });
  });

  test('a removal of a label under approval answers 202 (to null); approved, the label is removed, and its history says so', async () => {
    const response = await api.send('DELETE', `${P}/remove/labels/production`, { as: asker });
    expect(response.status).toBe(202);
    const { request } = response.body as { request: Request };
    expect(request).toMatchObject({ from: '1.0.0', to: null, state: 'open' });
    expect(await labelsOf('remove')).toMatchObject({ production: '1.0.0' });
    expect((await api.send('GET', `${A}/requests/${request.requestId}`, { as: viewer })).body).toMatchObject({
      toVersion: null,
      placeholders: { added: [], removed: ['name', 'city'] },
    });
    expect((await decide(request.requestId, 'approve', approver)).status).toBe(200);
    expect(await labelsOf('remove')).not.toHaveProperty('production');
    expect((await historyOf('remove'))[0]).toMatchObject({ to: null, reason: `request ${request.requestId}` });
    expect(await audited('acme', 'remove', 'label.remove')).toEqual([{ action: 'label.remove', outcome: 'succeeded' }]);
  });

  test('who may ask is who may move it: an editor not for a protected label, a viewer not at all (403); nothing is opened', async () => {
    expect((await api.send('PUT', `${P}/roles/labels/production`, { as: editor, body: { version: '1.1.0' } })).status).toBe(403);
    expect((await api.send('PUT', `${P}/roles/labels/release`, { as: viewer, body: { version: '1.1.0' } })).status).toBe(403);
    expect((await api.send('DELETE', `${P}/roles/labels/production`, { as: editor })).status).toBe(403);
    const { requests } = await listChangeRequests(api.table, 'acme');
    expect(requests.filter((request) => request.promptId === 'roles')).toEqual([]);
    expect(await labelsOf('roles')).toMatchObject({ production: '1.0.0', release: '1.0.0' });
  });

  test('a move to where the label points already answers 200 as any move would, and opens nothing', async () => {
    const response = await api.send('PUT', `${P}/same/labels/production`, { as: asker, body: { version: '1.0.0' } });
    expect(response).toMatchObject({ status: 200, body: { label: 'production', version: '1.0.0', previous: '1.0.0' } });
    expect((await listChangeRequests(api.table, 'acme')).requests.filter((request) => request.promptId === 'same')).toEqual([]);
  });

  test('a second request of the same label is 409 naming the open one, and changes nothing; another label of the prompt may be asked', async () => {
    const first = await ask('second', { version: '1.1.0' });
    const again = await api.send('PUT', `${P}/second/labels/production`, { as: approver, body: { version: '1.2.0' } });
    expect(again.status).toBe(409);
    expect((again.body as { error: string }).error).toContain(first.requestId);
    expect(await requestOf(first.requestId)).toEqual(first);
    expect((await listChangeRequests(api.table, 'acme', { state: 'open' })).requests.filter((request) => request.promptId === 'second')).toHaveLength(1);
    await ask('second', { version: '1.1.0' }, { label: 'release' });
    expect(await audited('acme', 'second', 'request.open')).toEqual([
      { action: 'request.open', outcome: 'succeeded' },
      { action: 'request.open', outcome: 'refused' },
      { action: 'request.open', outcome: 'succeeded' },
    ]);
  });

  test('asking for a draft (409), a version that does not exist or an unknown prompt (404) opens nothing', async () => {
    expect((await api.send('PUT', `${P}/refused/labels/production`, { as: asker, body: { version: '1.3.0' } })).status).toBe(409);
    expect((await api.send('PUT', `${P}/refused/labels/production`, { as: asker, body: { version: '9.9.9' } })).status).toBe(404);
    expect((await api.send('PUT', `${P}/nope/labels/production`, { as: asker, body: { version: '1.0.0' } })).status).toBe(404);
    expect((await api.send('DELETE', `${P}/nope/labels/production`, { as: asker })).status).toBe(404);
    expect((await listChangeRequests(api.table, 'acme')).requests.filter((request) => request.promptId === 'refused' || request.promptId === 'nope')).toEqual(
      [],
    );
  });

  test("a label not under approval moves at once (200); the operator's --break-glass moves one under approval at once too (label.set, its history saying break-glass)", async () => {
    expect((await api.send('PUT', `${P}/direct/labels/staging`, { as: editor, body: { version: '1.1.0' } })).status).toBe(200);
    expect(await labelsOf('direct')).toMatchObject({ staging: '1.1.0' });
    const cli = await api.cli(
      'ops',
      'prompts',
      'label',
      '--account',
      'acme',
      '--prompt',
      'direct',
      '--label',
      'production',
      '--version',
      '1.2.0',
      '--note',
      'incident 42',
      '--break-glass',
    );
    expect(cli.code).toBe(0);
    expect(await labelsOf('direct')).toMatchObject({ production: '1.2.0' });
    expect((await historyOf('direct'))[0]).toMatchObject({ to: '1.2.0', reason: 'break-glass: incident 42' });
  });
});

describe('deciding', () => {
  test('the requester can neither approve nor reject it (403); the request is unchanged', async () => {
    const request = await ask('own', { version: '1.1.0' });
    for (const decision of ['approve', 'reject'] as const) {
      const refused = await decide(request.requestId, decision, asker, {});
      expect(refused.status).toBe(403);
    }
    expect(await requestOf(request.requestId)).toEqual(request);
    expect(await labelsOf('own')).toMatchObject({ production: '1.0.0' });
    expect(await audited('acme', request.requestId, 'request.approve', 'request.reject')).toEqual([
      { action: 'request.approve', outcome: 'refused' },
      { action: 'request.reject', outcome: 'refused' },
    ]);
  });

  test("a viewer cannot approve (403), nor an editor a protected label's request (403); the request is unchanged", async () => {
    const request = await ask('deny', { version: '1.1.0' });
    expect((await decide(request.requestId, 'approve', viewer, {})).status).toBe(403);
    expect((await decide(request.requestId, 'approve', editor, {})).status).toBe(403);
    expect((await decide(request.requestId, 'reject', editor, {})).status).toBe(403);
    expect(await requestOf(request.requestId)).toEqual(request);
    expect(await labelsOf('deny')).toMatchObject({ production: '1.0.0' });
  });

  test('an approval by another member applies it: 200 applied, the label moved, its history names the request, every step audited', async () => {
    const request = await ask('apply', { version: '1.1.0', note: 'Ship' });
    const approved = await decide(request.requestId, 'approve', approver, { comment: 'Looks right' });
    expect(approved.status).toBe(200);
    const { request: now } = approved.body as { request: Request };
    expect(now).toEqual({
      ...request,
      approvals: [{ by: 'approver@acme.test', at: expect.any(String), comment: 'Looks right', counts: true, role: 'admin', why: null }],
      state: 'applied',
      decision: { by: 'approver@acme.test', at: expect.any(String), comment: 'Looks right' },
    });
    expect(await requestOf(request.requestId)).toEqual(now);
    expect(await labelsOf('apply')).toMatchObject({ production: '1.1.0' });
    expect((await historyOf('apply'))[0]).toMatchObject({ to: '1.1.0', reason: `request ${request.requestId}` });
    // One transaction's entries: the approval, the request applied, the label moved (in no order of their own).
    const steps = await audited('acme', request.requestId, 'request.open', 'request.approve', 'request.apply', 'label.set');
    expect(steps.sort((a, b) => a.action.localeCompare(b.action))).toEqual([
      { action: 'request.apply', outcome: 'succeeded' },
      { action: 'request.approve', outcome: 'succeeded' },
    ]);
    expect(await audited('acme', 'apply', 'request.open', 'label.set')).toEqual([
      { action: 'request.open', outcome: 'succeeded' },
      { action: 'label.set', outcome: 'succeeded' },
    ]);
    // Applied: no longer open, and decided once only.
    expect((await api.send('GET', `${A}/requests?state=open`, { as: viewer })).body).not.toMatchObject({
      requests: [expect.objectContaining({ requestId: request.requestId })],
    });
    const again = await decide(request.requestId, 'approve', owner, {});
    expect(again.status).toBe(409);
    expect(await requestOf(request.requestId)).toEqual(now);
  });

  test('required: 2 needs two distinct approvers: the first leaves it open, the same person again is 409, the second applies', async () => {
    const request = await ask('pair', { version: '1.1.0' }, { account: 'duo' });
    expect(request.required).toBe(2);
    const first = await decide(request.requestId, 'approve', approver, {}, 'duo');
    expect(first.status).toBe(200);
    expect((first.body as { request: Request }).request).toMatchObject({ state: 'open', approvals: [{ by: 'approver@acme.test' }], decision: null });
    expect(await labelsOf('pair', 'duo')).toMatchObject({ production: '1.0.0' });
    const twice = await decide(request.requestId, 'approve', approver, {}, 'duo');
    expect(twice.status).toBe(409);
    expect(await requestOf(request.requestId, 'duo')).toEqual((first.body as { request: Request }).request);
    const second = await decide(request.requestId, 'approve', owner, { comment: 'second pair of eyes' }, 'duo');
    expect(second.status).toBe(200);
    expect((second.body as { request: Request }).request).toMatchObject({
      state: 'applied',
      approvals: [{ by: 'approver@acme.test' }, { by: 'owner@acme.test' }],
    });
    expect(await labelsOf('pair', 'duo')).toMatchObject({ production: '1.1.0' });
  });

  test('two approvals at once of a request that needs two: both count, and the label moves once', async () => {
    const request = await ask('together', { version: '1.2.0' }, { account: 'duo' });
    const answers = await Promise.all([decide(request.requestId, 'approve', approver, {}, 'duo'), decide(request.requestId, 'approve', owner, {}, 'duo')]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const now = await requestOf(request.requestId, 'duo');
    expect(now.state).toBe('applied');
    expect(now.approvals.map((approval) => approval.by).sort()).toEqual(['approver@acme.test', 'owner@acme.test']);
    expect(await labelsOf('together', 'duo')).toMatchObject({ production: '1.2.0' });
    const history = ((await api.send('GET', '/api/accounts/duo/prompts/together/labels/production/history', { as: owner })).body as { entries: unknown[] })
      .entries;
    expect(history).toHaveLength(2);
  });

  test('a rejection closes it with the comment, nothing moves; it cannot be decided again (409)', async () => {
    const request = await ask('reject', { version: '1.1.0' });
    const rejected = await decide(request.requestId, 'reject', approver, { comment: 'Not before the launch' });
    expect(rejected.status).toBe(200);
    expect((rejected.body as { request: Request }).request).toMatchObject({
      state: 'rejected',
      approvals: [],
      decision: { by: 'approver@acme.test', comment: 'Not before the launch' },
    });
    expect(await labelsOf('reject')).toMatchObject({ production: '1.0.0' });
    const late = await decide(request.requestId, 'approve', owner, {});
    expect(late.status).toBe(409);
    expect((await decide(request.requestId, 'withdraw', asker)).status).toBe(409);
    expect((await requestOf(request.requestId)).state).toBe('rejected');
    // The label takes a new request once this one is closed.
    await ask('reject', { version: '1.2.0' });
  });

  test('only the requester withdraws (anyone else 403, the request unchanged); withdrawn, it cannot be decided (409)', async () => {
    const request = await ask('withdraw', { version: '1.1.0' });
    for (const someone of [approver, owner, viewer]) expect((await decide(request.requestId, 'withdraw', someone)).status).toBe(403);
    expect(await requestOf(request.requestId)).toEqual(request);
    const withdrawn = await decide(request.requestId, 'withdraw', asker);
    expect(withdrawn.status).toBe(200);
    expect((withdrawn.body as { request: Request }).request).toMatchObject({ state: 'withdrawn', decision: { by: 'asker@acme.test', comment: null } });
    expect((await decide(request.requestId, 'approve', approver, {})).status).toBe(409);
    expect(await labelsOf('withdraw')).toMatchObject({ production: '1.0.0' });
    expect(await audited('acme', request.requestId, 'request.withdraw')).toEqual([
      { action: 'request.withdraw', outcome: 'refused' },
      { action: 'request.withdraw', outcome: 'refused' },
      { action: 'request.withdraw', outcome: 'refused' },
      { action: 'request.withdraw', outcome: 'succeeded' },
    ]);
  });

  test("the label moved since it was asked (the operator's break-glass): the approval answers 409, the request is written stale, nothing moves", async () => {
    const request = await ask('stale', { version: '1.1.0' });
    const glass = await api.cli(
      'ops',
      'prompts',
      'label',
      '--account',
      'acme',
      '--prompt',
      'stale',
      '--label',
      'production',
      '--version',
      '1.2.0',
      '--break-glass',
    );
    expect(glass.code).toBe(0);
    const approved = await decide(request.requestId, 'approve', approver, { comment: 'ok' });
    expect(approved.status).toBe(409);
    expect(approved.body).toMatchObject({ code: 'CONFLICT' });
    expect(await requestOf(request.requestId)).toEqual({
      ...request,
      state: 'stale',
      decision: { by: 'approver@acme.test', at: expect.any(String), comment: 'ok' },
    });
    expect(await labelsOf('stale')).toMatchObject({ production: '1.2.0' });
    expect((await historyOf('stale')).map((entry) => entry.reason)).not.toContain(`request ${request.requestId}`);
    expect(await audited('acme', request.requestId, 'request.approve', 'request.stale', 'request.apply')).toEqual([
      { action: 'request.stale', outcome: 'succeeded' },
    ]);
    expect((await decide(request.requestId, 'approve', owner, {})).status).toBe(409);
  });

  test("under a race (the label moves between the approval's read and its write): the approval is planned again, finds it stale, and nothing of it moves", async () => {
    const request = await ask('race', { version: '1.1.0' });
    let raced = false;
    const racing = new (class extends Table {
      override async transact(operation: string, writes: readonly TransactionWrite[], options?: { proof?: Record<string, string> }): Promise<void> {
        if (operation === 'request.approve' && !raced) {
          raced = true;
          await api.operations({ type: 'cli', operator: 'racer' }).labels.set('acme', 'race', 'production', '1.2.0', { breakGlass: true });
        }
        return super.transact(operation, writes, options);
      }
    })(api.local.client, api.local.tableName, () => new Date());
    const ops = new Operations({ table: racing, actor: { type: 'user', userId: approver.userId, email: approver.email } });
    const decided = await ops.changeRequests.approve('acme', await requireChangeRequest(api.table, 'acme', request.requestId));
    expect(raced).toBe(true);
    expect(decided.stale).toBe(true);
    expect(await requestOf(request.requestId)).toMatchObject({ state: 'stale', approvals: [] });
    expect(await labelsOf('race')).toMatchObject({ production: '1.2.0' });
    expect((await historyOf('race')).map((entry) => entry.reason)).toEqual(['break-glass', 'import']);
  });

  test('a restore asked for under approval: the request says so, and its history names the request', async () => {
    const request = await ask('restore', { version: '1.2.0', restore: true, note: 'back to 1.2.0' });
    expect(request).toMatchObject({ restore: true, note: 'back to 1.2.0' });
    expect((await decide(request.requestId, 'approve', approver)).status).toBe(200);
    expect((await historyOf('restore'))[0]).toMatchObject({ to: '1.2.0', reason: `request ${request.requestId}` });
  });

  test('a decision takes no body at all or {comment} of 1 to 500 characters; anything else is 400 and decides nothing', async () => {
    const request = await ask('body', { version: '1.1.0' });
    for (const body of [{ comment: '' }, { comment: 'x'.repeat(501) }, { verdict: 'yes' }]) {
      const refused = await decide(request.requestId, 'approve', approver, body);
      expect(refused.status).toBe(400);
    }
    expect(await requestOf(request.requestId)).toEqual(request);
    expect((await decide(request.requestId, 'reject', approver)).status).toBe(200);
  });

  test('an unknown request is 404 (a decision on it recorded as refused); a malformed id 400', async () => {
    const unknown = 'req_20260101000000000_00000000';
    expect((await api.send('GET', `${A}/requests/${unknown}`, { as: viewer })).status).toBe(404);
    expect((await decide(unknown, 'approve', approver, {})).status).toBe(404);
    expect((await decide(unknown, 'withdraw', approver)).status).toBe(404);
    expect((await api.send('GET', `${A}/requests/not-a-request`, { as: viewer })).status).toBe(400);
    expect(await audited('acme', unknown, 'request.approve', 'request.withdraw')).toEqual([
      { action: 'request.approve', outcome: 'refused' },
      { action: 'request.withdraw', outcome: 'refused' },
    ]);
  });
});

describe('approvals count while their givers may still give them', () => {
  /** An account of its own: production (protected) needs 2 approvals; four admins may give them. */
  const C = '/api/accounts/counted';
  let chief: Person;
  let demoted: Person;
  let removed: Person;
  let second: Person;
  let third: Person;

  beforeAll(async () => {
    await api.fixtures.account('counted', 'pro');
    const versions = [version('1.0.0'), version('1.1.0')];
    await api.fixtures.prompts(
      'counted',
      ...['demotion', 'removal', 'raced', 'regained', 'answers'].map((id) => prompt(id, versions, { labels: { production: '1.0.0' } })),
    );
    chief = await api.person('owner@acme.test', 'counted', 'owner');
    await api.person(asker.email, 'counted', 'admin');
    demoted = await api.person('demoted@counted.test', 'counted', 'admin');
    removed = await api.person('removed@counted.test', 'counted', 'admin');
    second = await api.person('second@counted.test', 'counted', 'admin');
    third = await api.person('third@counted.test', 'counted', 'admin');
    expect((await api.send('PATCH', C, { as: chief, body: { approvals: { labels: ['production'], required: 2 } } })).status).toBe(200);
  }, 60_000);

  const askIn = (promptId: string) => ask(promptId, { version: '1.1.0' }, { account: 'counted' });
  const approveIn = (requestId: string, as: Person) => decide(requestId, 'approve', as, {}, 'counted');
  const requestIn = (requestId: string) => requestOf(requestId, 'counted');
  const setRole = async (person: Person, role: string) =>
    expect((await api.send('PATCH', `${C}/members/${person.userId}`, { as: chief, body: { role } })).status).toBe(200);
  /** Read back: the label where it was, its history as imported, and no move or application audited. */
  async function unmoved(promptId: string, requestId: string): Promise<void> {
    expect(await labelsOf(promptId, 'counted')).toEqual({ production: '1.0.0' });
    const history = ((await api.send('GET', `${C}/prompts/${promptId}/labels/production/history`, { as: chief })).body as { entries: unknown[] }).entries;
    expect(history).toEqual([expect.objectContaining({ from: null, to: '1.0.0', reason: 'import' })]);
    expect(await audited('counted', requestId, 'request.apply', 'request.stale')).toEqual([]);
    expect(await audited('counted', promptId, 'label.set')).toEqual([]);
  }

  test('an approval from a member demoted since does not count: the next approval is recorded and leaves it open, nothing moves; a third that counts applies it', async () => {
    const request = await askIn('demotion');
    expect((await approveIn(request.requestId, demoted)).status).toBe(200);
    await setRole(demoted, 'viewer');
    const next = await approveIn(request.requestId, second);
    expect(next.status).toBe(200);
    expect((next.body as { request: Request }).request).toMatchObject({
      state: 'open',
      approvals: [
        { by: demoted.email, counts: false, role: 'viewer', why: 'a viewer, and approving a change of production needs the admin role' },
        { by: second.email, counts: true, role: 'admin', why: null },
      ],
      decision: null,
    });
    expect(await requestIn(request.requestId)).toEqual((next.body as { request: Request }).request);
    await unmoved('demotion', request.requestId);
    expect(await audited('counted', request.requestId, 'request.approve')).toEqual([
      { action: 'request.approve', outcome: 'succeeded' },
      { action: 'request.approve', outcome: 'succeeded' },
    ]);

    const last = await approveIn(request.requestId, third);
    expect(last.status).toBe(200);
    expect((last.body as { request: Request }).request).toMatchObject({
      state: 'applied',
      approvals: [
        { by: demoted.email, counts: false, role: 'viewer' },
        { by: second.email, counts: true },
        { by: third.email, counts: true },
      ],
    });
    expect(await labelsOf('demotion', 'counted')).toEqual({ production: '1.1.0' });
    // Closed, the request keeps how each approval stood: a later promotion changes nothing of it.
    await setRole(demoted, 'admin');
    expect((await requestIn(request.requestId)).approvals.map((approval) => approval.counts)).toEqual([false, true, true]);
  });

  test('an approval from a member removed since does not count either: not a member of the account', async () => {
    const request = await askIn('removal');
    expect((await approveIn(request.requestId, removed)).status).toBe(200);
    expect((await api.send('DELETE', `${C}/members/${removed.userId}`, { as: chief })).status).toBe(204);
    const next = await approveIn(request.requestId, second);
    expect(next.status).toBe(200);
    expect((next.body as { request: Request }).request).toMatchObject({
      state: 'open',
      approvals: [
        { by: removed.email, counts: false, role: null, why: 'not a member of the account' },
        { by: second.email, counts: true },
      ],
    });
    await unmoved('removal', request.requestId);
  });

  test('a demotion landing between the final approval reading the approvers and its write: planned again, the approval is recorded, and nothing moves', async () => {
    await setRole(demoted, 'admin');
    const request = await askIn('raced');
    expect((await approveIn(request.requestId, demoted)).status).toBe(200);
    let raced = false;
    const racing = new (class extends Table {
      override async transact(operation: string, writes: readonly TransactionWrite[], options?: { proof?: Record<string, string> }): Promise<void> {
        if (operation === 'request.approve' && !raced) {
          raced = true;
          await api.operations({ type: 'user', userId: chief.userId, email: chief.email }).members.setRole('counted', demoted.userId, 'viewer');
        }
        return super.transact(operation, writes, options);
      }
    })(api.local.client, api.local.tableName, () => new Date());
    const ops = new Operations({ table: racing, actor: { type: 'user', userId: second.userId, email: second.email } });
    const decided = await ops.changeRequests.approve('counted', await requireChangeRequest(api.table, 'counted', request.requestId));
    expect(raced).toBe(true);
    expect(decided).toMatchObject({
      stale: false,
      changeRequest: {
        state: 'open',
        approvals: [
          { by: demoted.email, counts: false },
          { by: second.email, counts: true },
        ],
      },
    });
    expect(await requestIn(request.requestId)).toMatchObject({ state: 'open', approvals: [{ counts: false, role: 'viewer' }, { counts: true }] });
    await unmoved('raced', request.requestId);
  });

  test('an approval counts again once its giver has the role back, while the request is open; their approving again then applies it', async () => {
    await setRole(demoted, 'admin');
    const request = await askIn('regained');
    expect((await approveIn(request.requestId, demoted)).status).toBe(200);
    await setRole(demoted, 'editor');
    expect((await approveIn(request.requestId, second)).status).toBe(200);
    expect((await requestIn(request.requestId)).approvals.map((approval) => approval.counts)).toEqual([false, true]);
    // Approving again while theirs does not make enough is refused, and changes nothing.
    const before = await requestIn(request.requestId);
    expect((await approveIn(request.requestId, second)).status).toBe(409);
    expect(await requestIn(request.requestId)).toEqual(before);
    await setRole(demoted, 'admin');
    expect((await requestIn(request.requestId)).approvals.map((approval) => approval.counts)).toEqual([true, true]);
    await unmoved('regained', request.requestId);
    const renewed = await approveIn(request.requestId, demoted);
    expect(renewed.status).toBe(200);
    expect((renewed.body as { request: Request }).request).toMatchObject({
      state: 'applied',
      approvals: [{ by: demoted.email, counts: true }, { by: second.email }],
    });
    expect(await labelsOf('regained', 'counted')).toEqual({ production: '1.1.0' });
  });

  test('the list and the request say of each approval whether it counts now, and why not', async () => {
    await setRole(demoted, 'admin');
    const request = await askIn('answers');
    expect((await approveIn(request.requestId, demoted)).status).toBe(200);
    await setRole(demoted, 'editor');
    const standing = { by: demoted.email, counts: false, role: 'editor', why: 'an editor, and approving a change of production needs the admin role' };
    const detail = await api.send('GET', `${C}/requests/${request.requestId}`, { as: chief });
    expect((detail.body as { request: Request }).request.approvals).toEqual([{ ...standing, at: expect.any(String), comment: null }]);
    const open = (await api.send('GET', `${C}/requests?state=open`, { as: chief })).body as { requests: Request[] };
    expect(open.requests.find((listed) => listed.requestId === request.requestId)?.approvals).toEqual([{ ...standing, at: expect.any(String), comment: null }]);
    const all = (await api.send('GET', `${C}/requests`, { as: chief })).body as { requests: Request[] };
    expect(all.requests.find((listed) => listed.requestId === request.requestId)?.approvals).toMatchObject([standing]);
  });
});

describe('the list', () => {
  test('by state, newest first; all states when asked for none; a bad state or cursor is 400', async () => {
    const states = async (query: string) => ((await api.send('GET', `${A}/requests${query}`, { as: viewer })).body as { requests: Request[] }).requests;
    for (const state of ['open', 'applied', 'rejected', 'withdrawn', 'stale']) {
      const listed = await states(`?state=${state}`);
      expect(listed.length).toBeGreaterThan(0);
      expect(listed.every((request) => request.state === state)).toBe(true);
    }
    const all = await states('');
    expect(new Set(all.map((request) => request.state))).toEqual(new Set(['open', 'applied', 'rejected', 'withdrawn', 'stale']));
    const ids = all.map((request) => request.requestId);
    expect(ids).toEqual([...ids].sort().reverse());
    expect((await api.send('GET', `${A}/requests?state=closed`, { as: viewer })).body).toMatchObject({ code: 'BAD_REQUEST', field: 'state' });
    expect((await api.send('GET', `${A}/requests?before=x`, { as: viewer })).body).toMatchObject({ code: 'BAD_REQUEST', field: 'before' });
  });

  test('paged: `next` goes on below the last request of the page', async () => {
    const first = await listChangeRequests(api.table, 'acme', { limit: 3 });
    expect(first.requests).toHaveLength(3);
    const second = await listChangeRequests(api.table, 'acme', { limit: 3, before: first.next as string });
    const all = await listChangeRequests(api.table, 'acme');
    expect([...first.requests, ...second.requests].map((request) => request.requestId)).toEqual(
      all.requests.slice(0, first.requests.length + second.requests.length).map((request) => request.requestId),
    );
    const rejected = await listChangeRequests(api.table, 'acme', { state: 'rejected', limit: 1 });
    expect(rejected.requests).toHaveLength(1);
    expect(rejected.next).toEqual(expect.any(String));
  });
});
