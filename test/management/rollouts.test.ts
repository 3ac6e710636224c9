import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { hashApiKey } from '../../lambda/domain/api-key';
import { ROLLOUT_ID_PATTERN } from '../../lambda/domain/rollout';
import { listAudit } from '../../lambda/table/audit-log';
import { commitUnaudited } from '../../lambda/operations/commit';
import { listActiveRollouts } from '../../lambda/features/rollouts/rollouts';
import { keys, servedAttribute } from '../../lambda/table/schema';
import { prompt, version } from '../support/fixtures';
import { ManagementHarness, type Person } from '../support/management-harness';
import { planStartRollout } from '../../lambda/features/rollouts/start';

/**
 * Issue 39, rollouts (docs/rollouts.md "Managing a rollout (management API)"): a label moved to a new version for a share of
 * subjects, then completed (the label moves) or aborted (it stays). Each change is one transaction with its audit
 * entry and an entry in the label's history; each refusal changes nothing (read back) and is one `refused` entry.
 */
const api = new ManagementHarness();
let owner: Person;
let admin: Person;
let editor: Person;
let viewer: Person;

const A = '/api/accounts/acme';
const P = `${A}/prompts`;

interface Rollout {
  rolloutId: string;
  promptId: string;
  label: string;
  from: string;
  to: string;
  percent: number;
  startedAt: string;
  startedBy: string;
  note: string | null;
  served: { from: number; to: number };
  steps: { percent: number; afterMinutes: number }[];
  guardAlarm: string | null;
  state: string;
  endedAt?: string;
  endedBy?: string;
}

interface HistoryEntry {
  at: string;
  by: string;
  from: string | null;
  to: string | null;
  reason: string | null;
  rollout?: { rolloutId: string; event: string; percent: number; to: string; served?: { from: number; to: number } };
}

/** Prompts for the tests, one or more each, every one with production and staging at 1.0.0; 1.3.0 is a draft. */
const PROMPTS = [
  'start',
  'read',
  'change',
  'complete',
  'abort',
  'refusals',
  'meant',
  'malformed',
  'twice',
  'requested',
  'direct',
  'pushed',
  'race',
  'served',
  'roles',
  'steps',
  'approved',
  'stale',
  'plain',
  'due',
];

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme', 'pro');
  await api.fixtures.account('gated', 'pro');
  const versions = [version('1.0.0'), version('1.1.0'), version('1.2.0'), version('1.3.0', { published: false })];
  const labels = { production: '1.0.0', staging: '1.0.0' };
  await api.fixtures.prompts('acme', ...PROMPTS.map((id) => prompt(id, versions, { labels })));
  await api.fixtures.prompts('gated', ...['approved', 'stale', 'plain', 'refused', 'unasked'].map((id) => prompt(id, versions, { labels })));
  owner = await api.person('owner@acme.test', 'acme', 'owner');
  admin = await api.person('admin@acme.test', 'acme', 'admin');
  editor = await api.person('editor@acme.test', 'acme', 'editor');
  viewer = await api.person('viewer@acme.test', 'acme', 'viewer');
  await api.person(owner.email, 'gated', 'owner');
  await api.person(admin.email, 'gated', 'admin');
  expect((await api.send('PATCH', '/api/accounts/gated', { as: owner, body: { approvals: { labels: ['production'] } } })).status).toBe(200);
}, 60_000);
afterAll(() => api.stop());

const rolloutPath = (promptId: string, label = 'production', account = 'acme') => `/api/accounts/${account}/prompts/${promptId}/labels/${label}/rollout`;

const start = (promptId: string, body: unknown, options: { as?: Person; label?: string; account?: string } = {}) =>
  api.send('PUT', rolloutPath(promptId, options.label, options.account), { as: options.as ?? admin, body });

async function started(promptId: string, body: Record<string, unknown> = { to: '1.1.0', percent: 10 }, label = 'production'): Promise<Rollout> {
  const response = await start(promptId, body, { label });
  expect(response.status).toBe(201);
  return (response.body as { rollout: Rollout }).rollout;
}

const read = (promptId: string, label = 'production') => api.send('GET', rolloutPath(promptId, label), { as: viewer });

const labelsOf = async (promptId: string, account = 'acme'): Promise<Record<string, string>> =>
  ((await api.send('GET', `/api/accounts/${account}/prompts/${promptId}`, { as: owner })).body as { labels: Record<string, string> }).labels;

const historyOf = async (promptId: string, label = 'production', account = 'acme'): Promise<HistoryEntry[]> =>
  ((await api.send('GET', `/api/accounts/${account}/prompts/${promptId}/labels/${label}/history`, { as: owner })).body as { entries: HistoryEntry[] }).entries;

/** The label item as the read path finds it: its version and its rollout copy. */
async function labelItem(promptId: string, label = 'production', account = 'acme') {
  const read = await api.local.client.send(
    new GetCommand({ TableName: api.local.tableName, Key: keys.promptLabel(account, label, promptId), ConsistentRead: true }),
  );
  const item = read.Item as { labelled: { version: string }; rollout?: { rolloutId: string; percent: number; to: { version: string } } } | undefined;
  return {
    version: item?.labelled.version,
    rollout: item?.rollout ? { rolloutId: item.rollout.rolloutId, percent: item.rollout.percent, to: item.rollout.to.version } : undefined,
  };
}

/** What the account's audit log says of the prompt, oldest first, for these actions. */
async function audited(promptId: string, actions: string[], account = 'acme') {
  const { entries } = await listAudit(api.table, account, { limit: 200 });
  return entries
    .filter((entry) => actions.includes(entry.action) && entry.target.promptId === promptId)
    .reverse()
    .map(({ action, outcome, after, actor, reason }) => ({ action, outcome, after, actor, reason }));
}

describe('starting', () => {
  test('PUT answers 201 with the rollout: from where the label points, to, the share, who and when, nothing served yet', async () => {
    const response = await start('start', {
      to: '1.1.0',
      percent: 12.5,
      note: 'warmer greeting',
      steps: [{ percent: 50, afterMinutes: 60 }],
      guardAlarm: 'errors-high',
    });
    expect(response.status).toBe(201);
    expect((response.body as { rollout: Rollout }).rollout).toEqual({
      rolloutId: expect.stringMatching(ROLLOUT_ID_PATTERN),
      promptId: 'start',
      label: 'production',
      from: '1.0.0',
      to: '1.1.0',
      percent: 12.5,
      startedAt: expect.any(String),
      startedBy: 'admin@acme.test',
      note: 'warmer greeting',
      served: { from: 0, to: 0 },
      steps: [{ percent: 50, afterMinutes: 60 }],
      guardAlarm: 'errors-high',
      state: 'active',
    });
  });

  test('the label stays on from; its item carries the share and a copy of to; the history says started; audited as rollout.start', async () => {
    const rollout = await started('start', { to: '1.2.0', percent: 5 }, 'staging');
    expect(await labelsOf('start')).toMatchObject({ staging: '1.0.0' });
    expect(await labelItem('start', 'staging')).toEqual({ version: '1.0.0', rollout: { rolloutId: rollout.rolloutId, percent: 5, to: '1.2.0' } });
    const [entry] = await historyOf('start', 'staging');
    expect(entry).toMatchObject({
      by: 'admin@acme.test',
      from: '1.0.0',
      to: '1.0.0',
      reason: `rollout ${rollout.rolloutId}`,
      rollout: { rolloutId: rollout.rolloutId, event: 'started', percent: 5, to: '1.2.0' },
    });
    const entries = await audited('start', ['rollout.start']);
    expect(entries.at(-1)).toMatchObject({
      action: 'rollout.start',
      outcome: 'succeeded',
      after: { rolloutId: rollout.rolloutId, from: '1.0.0', to: '1.2.0', percent: 5 },
      actor: { type: 'user', email: 'admin@acme.test' },
    });
  });
});

describe('reading', () => {
  test('GET answers the active rollout; 404 on a label without one', async () => {
    const rollout = await started('read');
    const response = await read('read');
    expect(response.status).toBe(200);
    expect((response.body as { rollout: Rollout }).rollout).toEqual(rollout);
    const none = await read('read', 'staging');
    expect(none.status).toBe(404);
    expect(none.body).toMatchObject({ code: 'NOT_FOUND' });
  });

  test("served sums the counters the read path raised on each of the account's keys", async () => {
    const rollout = await started('served');
    const raise = async (apiKey: string, from: number, to: number) =>
      api.local.client.send(
        new UpdateCommand({
          TableName: api.local.tableName,
          Key: keys.apiKey(hashApiKey(apiKey)),
          UpdateExpression: 'ADD #f :f, #t :t',
          ExpressionAttributeNames: { '#f': servedAttribute(rollout.rolloutId, 'from'), '#t': servedAttribute(rollout.rolloutId, 'to') },
          ExpressionAttributeValues: { ':f': from, ':t': to },
        }),
      );
    const counting = [await api.fixtures.apiKey('acme'), await api.fixtures.apiKey('acme')];
    await raise(counting[0] as string, 90, 10);
    await raise(counting[1] as string, 9, 1);
    // Another account's key counts for its own rollouts only.
    await raise(await api.fixtures.apiKey('gated'), 1000, 1000);
    expect(((await read('served')).body as { rollout: Rollout }).rollout.served).toEqual({ from: 99, to: 11 });

    const aborted = await api.send('POST', `${rolloutPath('served')}/abort`, { as: admin });
    expect((aborted.body as { rollout: Rollout }).rollout.served).toEqual({ from: 99, to: 11 });
    const [entry] = await historyOf('served');
    expect(entry?.rollout).toEqual({ rolloutId: rollout.rolloutId, event: 'aborted', percent: 10, to: '1.1.0', served: { from: 99, to: 11 } });
    expect((await audited('served', ['rollout.abort'])).at(-1)?.after).toMatchObject({ served: { from: 99, to: 11 } });
    // Once it ended, the counters leave the keys' items, which every read request writes.
    for (const apiKey of counting) {
      const read = await api.local.client.send(new GetCommand({ TableName: api.local.tableName, Key: keys.apiKey(hashApiKey(apiKey)), ConsistentRead: true }));
      expect(Object.keys(read.Item ?? {}).filter((name) => name.startsWith('served#'))).toEqual([]);
    }
  });
});

describe('changing the share', () => {
  test('PATCH answers 200 with the new share; the label item and the history follow; audited as rollout.change', async () => {
    const rollout = await started('change', {
      to: '1.1.0',
      percent: 10,
      steps: [
        { percent: 25, afterMinutes: 30 },
        { percent: 80, afterMinutes: 90 },
      ],
    });
    const response = await api.send('PATCH', rolloutPath('change'), { as: admin, body: { percent: 50 } });
    expect(response.status).toBe(200);
    const changed = (response.body as { rollout: Rollout }).rollout;
    // Without steps, those still above the new share stay.
    expect(changed).toMatchObject({ rolloutId: rollout.rolloutId, percent: 50, steps: [{ percent: 80, afterMinutes: 90 }], state: 'active' });
    expect((await labelItem('change')).rollout).toEqual({ rolloutId: rollout.rolloutId, percent: 50, to: '1.1.0' });
    expect((await historyOf('change'))[0]).toMatchObject({ from: '1.0.0', to: '1.0.0', rollout: { event: 'changed', percent: 50 } });
    expect((await audited('change', ['rollout.change'])).at(-1)).toMatchObject({ outcome: 'succeeded', after: { percent: 50, was: 10 } });

    const rescheduled = await api.send('PATCH', rolloutPath('change'), { as: admin, body: { percent: 60, steps: [{ percent: 100, afterMinutes: 120 }] } });
    expect((rescheduled.body as { rollout: Rollout }).rollout).toMatchObject({ percent: 60, steps: [{ percent: 100, afterMinutes: 120 }] });
    expect(((await read('change')).body as { rollout: Rollout }).rollout).toMatchObject({ percent: 60, steps: [{ percent: 100, afterMinutes: 120 }] });
  });
});

describe('ending', () => {
  test('complete answers 200 (state completed) and moves the label to to, as a move does; the rollout is gone', async () => {
    const rollout = await started('complete', { to: '1.2.0', percent: 30 });
    const response = await api.send('POST', `${rolloutPath('complete')}/complete`, { as: admin });
    expect(response.status).toBe(200);
    expect((response.body as { rollout: Rollout }).rollout).toEqual({
      ...rollout,
      state: 'completed',
      endedAt: expect.any(String),
      endedBy: 'admin@acme.test',
    });
    expect(await labelsOf('complete')).toMatchObject({ production: '1.2.0' });
    expect(await labelItem('complete')).toEqual({ version: '1.2.0', rollout: undefined });
    expect((await read('complete')).status).toBe(404);
    expect((await historyOf('complete'))[0]).toMatchObject({
      from: '1.0.0',
      to: '1.2.0',
      reason: `rollout ${rollout.rolloutId}`,
      rollout: { rolloutId: rollout.rolloutId, event: 'completed', percent: 30, to: '1.2.0', served: { from: 0, to: 0 } },
    });
    expect((await audited('complete', ['rollout.complete'])).at(-1)).toMatchObject({
      outcome: 'succeeded',
      after: { rolloutId: rollout.rolloutId, from: '1.0.0', to: '1.2.0', served: { from: 0, to: 0 } },
    });
    // The label moves directly again once its rollout ended.
    expect((await api.send('PUT', `${P}/complete/labels/production`, { as: admin, body: { version: '1.1.0' } })).status).toBe(200);
  });

  test('abort answers 200 (state aborted); the label stays on from and its item loses the rollout; the reason is audited', async () => {
    const rollout = await started('abort');
    const response = await api.send('POST', `${rolloutPath('abort')}/abort`, { as: admin, body: { reason: 'error rate up' } });
    expect(response.status).toBe(200);
    expect((response.body as { rollout: Rollout }).rollout).toMatchObject({ rolloutId: rollout.rolloutId, state: 'aborted', endedBy: 'admin@acme.test' });
    expect(await labelsOf('abort')).toMatchObject({ production: '1.0.0' });
    expect(await labelItem('abort')).toEqual({ version: '1.0.0', rollout: undefined });
    expect((await read('abort')).status).toBe(404);
    expect((await historyOf('abort'))[0]).toMatchObject({ from: '1.0.0', to: '1.0.0', rollout: { event: 'aborted' } });
    expect((await audited('abort', ['rollout.abort'])).at(-1)).toMatchObject({ outcome: 'succeeded', after: { reason: 'error rate up' } });
  });
});

describe('refusals: each changes nothing and is one refused entry', () => {
  /** The prompt's labels, its label item, its history and rollout, as read back before and after a refusal. */
  const state = async (promptId: string) => ({
    labels: await labelsOf(promptId),
    item: await labelItem(promptId),
    history: await historyOf(promptId),
    rollout: (await read(promptId)).body,
  });

  test.each([
    ['a share above 100', { to: '1.1.0', percent: 101 }, 400, 'percent'],
    ['a share below 0', { to: '1.1.0', percent: -1 }, 400, 'percent'],
    ['a share with three decimals', { to: '1.1.0', percent: 33.333 }, 400, 'percent'],
    ['a share that is no number', { to: '1.1.0', percent: '10' }, 400, 'percent'],
    ['a to that is no version', { to: 'v2', percent: 10 }, 400, 'to'],
    [
      'steps that do not rise',
      {
        to: '1.1.0',
        percent: 10,
        steps: [
          { percent: 50, afterMinutes: 60 },
          { percent: 40, afterMinutes: 90 },
        ],
      },
      400,
      'steps.1.percent',
    ],
    ['a step at or below the starting share', { to: '1.1.0', percent: 10, steps: [{ percent: 10, afterMinutes: 60 }] }, 400, 'steps.0.percent'],
    [
      'steps out of time order',
      {
        to: '1.1.0',
        percent: 10,
        steps: [
          { percent: 20, afterMinutes: 60 },
          { percent: 30, afterMinutes: 60 },
        ],
      },
      400,
      'steps.1.afterMinutes',
    ],
    ['a step after more than a week', { to: '1.1.0', percent: 10, steps: [{ percent: 20, afterMinutes: 10081 }] }, 400, 'steps.0.afterMinutes'],
    ['a step of a fraction of a minute', { to: '1.1.0', percent: 10, steps: [{ percent: 20, afterMinutes: 1.5 }] }, 400, 'steps.0.afterMinutes'],
    [
      'eleven steps',
      { to: '1.1.0', percent: 0, steps: Array.from({ length: 11 }, (_, index) => ({ percent: index + 1, afterMinutes: index + 1 })) },
      400,
      'steps',
    ],
    ['an unknown field', { to: '1.1.0', percent: 10, share: 10 }, 400, 'share'],
    ['a to that does not exist', { to: '9.9.9', percent: 10 }, 404, undefined],
    ['a to that is a draft', { to: '1.3.0', percent: 10 }, 404, undefined],
    ['a to where the label points already', { to: '1.0.0', percent: 10 }, 409, undefined],
  ])('%s: %#', async (_name, body, status, field) => {
    const before = await state('refusals');
    const response = await start('refusals', body);
    expect(response.status).toBe(status);
    if (field !== undefined) expect(response.body).toMatchObject({ code: 'BAD_REQUEST', field });
    expect(await state('refusals')).toEqual(before);
    const [last] = (await audited('refusals', ['rollout.start'])).reverse();
    expect(last).toMatchObject({ action: 'rollout.start', outcome: 'refused' });
  });

  test('the label latest is 400, a label that points nowhere and a prompt that does not exist are 404', async () => {
    expect((await start('refusals', { to: '1.1.0', percent: 10 }, { label: 'latest' })).status).toBe(400);
    const nowhere = await start('refusals', { to: '1.1.0', percent: 10 }, { label: 'canary' });
    expect(nowhere.status).toBe(404);
    expect(await labelsOf('refusals')).toEqual({ production: '1.0.0', staging: '1.0.0' });
    expect((await start('missing', { to: '1.1.0', percent: 10 })).status).toBe(404);
    expect((await audited('refusals', ['rollout.start'])).slice(-2).map((entry) => entry.outcome)).toEqual(['refused', 'refused']);
  });

  test('a label that has a rollout takes no second one (409 naming it), and the first stays as it was', async () => {
    const first = await started('twice');
    const second = await start('twice', { to: '1.2.0', percent: 50 });
    expect(second.status).toBe(409);
    expect((second.body as { error: string }).error).toContain(first.rolloutId);
    expect(((await read('twice')).body as { rollout: Rollout }).rollout).toEqual(first);
    expect((await audited('twice', ['rollout.start'])).map((entry) => entry.outcome)).toEqual(['succeeded', 'refused']);
  });

  test('a label with an open change request takes no rollout (409)', async () => {
    const asked = await api.send('PUT', `/api/accounts/gated/prompts/refused/labels/production`, { as: admin, body: { version: '1.1.0' } });
    expect(asked.status).toBe(202);
    const refused = await start('refused', { to: '1.2.0', percent: 10 }, { account: 'gated', label: 'production' });
    expect(refused.status).toBe(409);
    expect((refused.body as { error: string }).error).toContain((asked.body as { request: { requestId: string } }).request.requestId);
    expect(await labelItem('refused', 'production', 'gated')).toEqual({ version: '1.0.0', rollout: undefined });
  });

  test('PATCH, complete and abort of a label without a rollout are 404; a bad share is 400; each is refused and changes nothing', async () => {
    const before = await state('refusals');
    expect((await api.send('PATCH', rolloutPath('refusals'), { as: admin, body: { percent: 20 } })).status).toBe(404);
    expect((await api.send('POST', `${rolloutPath('refusals')}/complete`, { as: admin })).status).toBe(404);
    expect((await api.send('POST', `${rolloutPath('refusals')}/abort`, { as: admin })).status).toBe(404);
    expect((await api.send('PATCH', rolloutPath('refusals'), { as: admin, body: { percent: 100.001 } })).status).toBe(400);
    expect(await state('refusals')).toEqual(before);
    const entries = await audited('refusals', ['rollout.change', 'rollout.complete', 'rollout.abort']);
    expect(entries.map(({ action, outcome }) => ({ action, outcome }))).toEqual([
      { action: 'rollout.change', outcome: 'refused' },
      { action: 'rollout.complete', outcome: 'refused' },
      { action: 'rollout.abort', outcome: 'refused' },
      { action: 'rollout.change', outcome: 'refused' },
    ]);
  });

  test('PATCH, complete and abort naming a rollout that ended are 409 naming both, once another began: the new one stays as it was', async () => {
    const first = await started('meant');
    expect((await api.send('POST', `${rolloutPath('meant')}/abort`, { as: admin, body: { rolloutId: first.rolloutId } })).status).toBe(200);
    const second = await started('meant', { to: '1.2.0', percent: 20 });
    const before = await state('meant');
    const meantFirst = [
      await api.send('PATCH', rolloutPath('meant'), { as: admin, body: { percent: 90, rolloutId: first.rolloutId } }),
      await api.send('POST', `${rolloutPath('meant')}/complete`, { as: admin, body: { rolloutId: first.rolloutId } }),
      await api.send('POST', `${rolloutPath('meant')}/abort`, { as: admin, body: { reason: 'a stale tab', rolloutId: first.rolloutId } }),
    ];
    for (const refused of meantFirst) {
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({
        code: 'CONFLICT',
        error: `label production of prompt meant has rollout ${second.rolloutId}, not ${first.rolloutId}: ${first.rolloutId} has ended`,
      });
    }
    expect(await state('meant')).toEqual(before);
    expect(((await read('meant')).body as { rollout: Rollout }).rollout).toEqual(second);
    const entries = await audited('meant', ['rollout.change', 'rollout.complete', 'rollout.abort']);
    expect(entries.filter(({ outcome }) => outcome === 'refused').map(({ action, reason }) => ({ action, code: reason?.code }))).toEqual([
      { action: 'rollout.change', code: 'CONFLICT' },
      { action: 'rollout.complete', code: 'CONFLICT' },
      { action: 'rollout.abort', code: 'CONFLICT' },
    ]);
    // Naming the rollout the label has, each goes through.
    const changed = await api.send('PATCH', rolloutPath('meant'), { as: admin, body: { percent: 40, rolloutId: second.rolloutId } });
    expect(changed.status).toBe(200);
    expect((changed.body as { rollout: Rollout }).rollout).toMatchObject({ rolloutId: second.rolloutId, percent: 40 });
    const completed = await api.send('POST', `${rolloutPath('meant')}/complete`, { as: admin, body: { rolloutId: second.rolloutId } });
    expect(completed.status).toBe(200);
    expect(await labelsOf('meant')).toMatchObject({ production: '1.2.0' });
  });

  test('a rolloutId that is not a rollout id is 400 naming it, and changes nothing', async () => {
    const rollout = await started('malformed');
    const before = await state('malformed');
    for (const [method, path, body] of [
      ['PATCH', rolloutPath('malformed'), { percent: 50, rolloutId: 'latest' }],
      ['POST', `${rolloutPath('malformed')}/complete`, { rolloutId: 42 }],
      ['POST', `${rolloutPath('malformed')}/abort`, { rolloutId: `${rollout.rolloutId}x` }],
    ] as const) {
      const refused = await api.send(method, path, { as: admin, body });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: 'BAD_REQUEST', field: 'rolloutId' });
    }
    expect(await state('malformed')).toEqual(before);
  });

  test('PATCH with steps at or below the new share is 400, and the rollout stays as it was', async () => {
    const rollout = await started('steps', { to: '1.1.0', percent: 10, steps: [{ percent: 50, afterMinutes: 60 }] });
    const refused = await api.send('PATCH', rolloutPath('steps'), { as: admin, body: { percent: 40, steps: [{ percent: 30, afterMinutes: 60 }] } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ field: 'steps.0.percent' });
    expect(((await read('steps')).body as { rollout: Rollout }).rollout).toEqual(rollout);
  });
});

describe('who may run a rollout: whoever may move the label', () => {
  test("production is protected: an editor is 403 to start, change, complete or abort, a viewer may read; staging is an editor's", async () => {
    expect((await start('roles', { to: '1.1.0', percent: 10 }, { as: editor })).status).toBe(403);
    expect((await read('roles')).status).toBe(404);
    const rollout = await started('roles');
    expect((await api.send('PATCH', rolloutPath('roles'), { as: editor, body: { percent: 20 } })).status).toBe(403);
    expect((await api.send('POST', `${rolloutPath('roles')}/complete`, { as: editor })).status).toBe(403);
    expect((await api.send('POST', `${rolloutPath('roles')}/abort`, { as: editor })).status).toBe(403);
    expect((await start('roles', { to: '1.1.0', percent: 10 }, { as: viewer, label: 'staging' })).status).toBe(403);
    expect(((await read('roles')).body as { rollout: Rollout }).rollout).toEqual(rollout);
    expect((await start('roles', { to: '1.1.0', percent: 10 }, { as: editor, label: 'staging' })).status).toBe(201);
    const refusals = await audited('roles', ['rollout.start', 'rollout.change', 'rollout.complete', 'rollout.abort']);
    expect(refusals.filter((entry) => entry.outcome === 'refused')).toHaveLength(5);
  });
});

describe('while a label rolls out, it moves only through its rollout', () => {
  test('moving or removing it through the API is 409 naming the rollout; the label, its item and its history stay', async () => {
    const rollout = await started('direct');
    const before = { labels: await labelsOf('direct'), item: await labelItem('direct'), history: await historyOf('direct') };
    const moved = await api.send('PUT', `${P}/direct/labels/production`, { as: admin, body: { version: '1.2.0' } });
    expect(moved.status).toBe(409);
    expect((moved.body as { error: string }).error).toContain(rollout.rolloutId);
    const removed = await api.send('DELETE', `${P}/direct/labels/production`, { as: admin });
    expect(removed.status).toBe(409);
    expect({ labels: await labelsOf('direct'), item: await labelItem('direct'), history: await historyOf('direct') }).toEqual(before);
    expect((await audited('direct', ['label.set', 'label.remove'])).map(({ action, outcome }) => ({ action, outcome }))).toEqual([
      { action: 'label.set', outcome: 'refused' },
      { action: 'label.remove', outcome: 'refused' },
    ]);
    // Another label of the prompt moves as ever.
    expect((await api.send('PUT', `${P}/direct/labels/staging`, { as: admin, body: { version: '1.2.0' } })).status).toBe(200);
  });

  test('a push that moves it is refused (409), and nothing of the push is made', async () => {
    const rollout = await started('pushed');
    const push = api.operations({ type: 'cli', operator: 'ci' });
    await expect(
      push.prompts.release('acme', { promptId: 'pushed', labels: [{ label: 'production', to: '1.2.0' }], details: { description: 'pushed' } }),
    ).rejects.toThrow(rollout.rolloutId);
    expect(await labelsOf('pushed')).toEqual({ production: '1.0.0', staging: '1.0.0' });
    expect(await labelItem('pushed')).toEqual({ version: '1.0.0', rollout: { rolloutId: rollout.rolloutId, percent: 10, to: '1.1.0' } });
  });
});

describe('a race', () => {
  test('two starts at once: one is 201, the other 409 naming it; one rollout, one history entry', async () => {
    const [a, b] = await Promise.all([start('race', { to: '1.1.0', percent: 10 }), start('race', { to: '1.2.0', percent: 20 })]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    const winner = ((a.status === 201 ? a : b).body as { rollout: Rollout }).rollout;
    expect(((await read('race')).body as { rollout: Rollout }).rollout).toEqual(winner);
    expect(await labelItem('race')).toEqual({ version: '1.0.0', rollout: { rolloutId: winner.rolloutId, percent: winner.percent, to: winner.to } });
    expect((await historyOf('race')).filter((entry) => entry.rollout)).toHaveLength(1);
  });
});

describe('a label under approval', () => {
  const G = '/api/accounts/gated';
  interface Request {
    requestId: string;
    from: string | null;
    to: string | null;
    state: string;
    rollout?: { percent: number; steps: unknown[]; guardAlarm: string | null };
  }

  test('starting opens a change request that carries the rollout (202); its approval starts it, the label staying on from', async () => {
    const asked = await start('approved', { to: '1.1.0', percent: 20, note: 'careful', steps: [{ percent: 40, afterMinutes: 30 }] }, { account: 'gated' });
    expect(asked.status).toBe(202);
    const request = (asked.body as { request: Request }).request;
    expect(request).toMatchObject({
      from: '1.0.0',
      to: '1.1.0',
      state: 'open',
      rollout: { percent: 20, steps: [{ percent: 40, afterMinutes: 30 }], guardAlarm: null },
    });
    expect((await api.send('GET', rolloutPath('approved', 'production', 'gated'), { as: owner })).status).toBe(404);
    expect(await labelItem('approved', 'production', 'gated')).toEqual({ version: '1.0.0', rollout: undefined });

    const approved = await api.send('POST', `${G}/requests/${request.requestId}/approve`, { as: owner });
    expect(approved.status).toBe(200);
    expect((approved.body as { request: Request }).request).toMatchObject({ state: 'applied', rollout: { percent: 20 } });
    const rollout = ((await api.send('GET', rolloutPath('approved', 'production', 'gated'), { as: owner })).body as { rollout: Rollout }).rollout;
    expect(rollout).toMatchObject({
      from: '1.0.0',
      to: '1.1.0',
      percent: 20,
      note: 'careful',
      startedBy: 'owner@acme.test',
      steps: [{ percent: 40, afterMinutes: 30 }],
    });
    expect(await labelsOf('approved', 'gated')).toMatchObject({ production: '1.0.0' });
    expect(await labelItem('approved', 'production', 'gated')).toEqual({
      version: '1.0.0',
      rollout: { rolloutId: rollout.rolloutId, percent: 20, to: '1.1.0' },
    });
    expect((await historyOf('approved', 'production', 'gated'))[0]).toMatchObject({ reason: `rollout ${rollout.rolloutId}`, rollout: { event: 'started' } });
    // The approval's three entries are written in one transaction, at one instant.
    const actions = (await audited('approved', ['request.open', 'request.approve', 'request.apply', 'rollout.start'], 'gated')).map(({ action }) => action);
    expect(actions[0]).toBe('request.open');
    expect(actions.slice(1).sort()).toEqual(['request.apply', 'request.approve', 'rollout.start']);
    // Asking to move it while it rolls out is refused too: such a request could never be applied.
    const asking = await api.send('PUT', `${G}/prompts/approved/labels/production`, { as: admin, body: { version: '1.2.0' } });
    expect(asking.status).toBe(409);
    expect((asking.body as { error: string }).error).toContain(rollout.rolloutId);
    // Changing the share and ending need no second approval.
    expect((await api.send('PATCH', rolloutPath('approved', 'production', 'gated'), { as: admin, body: { percent: 60 } })).status).toBe(200);
    expect((await api.send('POST', `${rolloutPath('approved', 'production', 'gated')}/complete`, { as: admin })).status).toBe(200);
    expect(await labelsOf('approved', 'gated')).toMatchObject({ production: '1.1.0' });
  });

  test('the label moved before the approval: the request is stale (409) and no rollout starts', async () => {
    const asked = await start('stale', { to: '1.1.0', percent: 20 }, { account: 'gated' });
    const request = (asked.body as { request: Request }).request;
    await api.operations().labels.set('gated', 'stale', 'production', '1.2.0', { breakGlass: true });
    const approved = await api.send('POST', `${G}/requests/${request.requestId}/approve`, { as: owner });
    expect(approved.status).toBe(409);
    expect((await api.send('GET', rolloutPath('stale', 'production', 'gated'), { as: owner })).status).toBe(404);
    expect(await labelItem('stale', 'production', 'gated')).toEqual({ version: '1.2.0', rollout: undefined });
  });

  test('a plain change request of a label that rolls out is refused at its approval (409), and nothing moves', async () => {
    const asked = await api.send('PUT', `${G}/prompts/plain/labels/production`, { as: admin, body: { version: '1.1.0' } });
    const request = (asked.body as { request: Request }).request;
    // A rollout that started in the instant between the request's open and its approval (the API refuses one while it is open).
    const rollout = await commitUnaudited(api.table, 'test', () =>
      planStartRollout(
        api.table,
        'gated',
        { promptId: 'plain', label: 'production', to: '1.2.0', percent: 5 },
        { by: 'cli:test' },
        { applying: request.requestId },
      ),
    );
    const approved = await api.send('POST', `${G}/requests/${request.requestId}/approve`, { as: owner });
    expect(approved.status).toBe(409);
    expect((approved.body as { error: string }).error).toContain(rollout.rolloutId);
    expect(await labelsOf('plain', 'gated')).toMatchObject({ production: '1.0.0' });
    expect(await labelItem('plain', 'production', 'gated')).toEqual({ version: '1.0.0', rollout: { rolloutId: rollout.rolloutId, percent: 5, to: '1.2.0' } });
    expect((await api.send('GET', `${G}/requests/${request.requestId}`, { as: owner })).body).toMatchObject({ request: { state: 'open' } });
  });
  test('completing a rollout no change request started, on a label put under approval since, is refused (409: abort it, start again) and moves nothing', async () => {
    const response = await start('unasked', { to: '1.1.0', percent: 10 }, { label: 'staging', account: 'gated' });
    expect(response.status).toBe(201);
    const rollout = (response.body as { rollout: Rollout }).rollout;
    const approvals = (labels: string[]) => api.send('PATCH', G, { as: owner, body: { approvals: { labels } } });
    expect((await approvals(['production', 'staging'])).status).toBe(200);
    try {
      const state = async () => ({
        labels: await labelsOf('unasked', 'gated'),
        item: await labelItem('unasked', 'staging', 'gated'),
        history: await historyOf('unasked', 'staging', 'gated'),
        rollout: (await api.send('GET', rolloutPath('unasked', 'staging', 'gated'), { as: owner })).body,
      });
      const before = await state();
      const completed = await api.send('POST', `${rolloutPath('unasked', 'staging', 'gated')}/complete`, { as: admin });
      expect(completed.status).toBe(409);
      expect((completed.body as { error: string }).error).toBe(
        `label staging of prompt unasked is under approval, and rollout ${rollout.rolloutId} was not started through a change request: abort it, then start it again (which asks for one)`,
      );
      expect(await state()).toEqual(before);
      expect(before.labels).toMatchObject({ staging: '1.0.0' });
      expect((await audited('unasked', ['rollout.complete'], 'gated')).at(-1)).toMatchObject({ outcome: 'refused', reason: { code: 'CONFLICT' } });
      // The way out needs no approval; starting again asks, as every start of the label does.
      expect((await api.send('POST', `${rolloutPath('unasked', 'staging', 'gated')}/abort`, { as: admin })).status).toBe(200);
      expect((await start('unasked', { to: '1.1.0', percent: 10 }, { label: 'staging', account: 'gated' })).status).toBe(202);
    } finally {
      expect((await approvals(['production'])).status).toBe(200);
    }
  });
});

describe('steps due', () => {
  test('applyDueStep applies the latest due step, takes it and those before off, audited as the system; nothing due is a no-op', async () => {
    const rollout = await started('due', {
      to: '1.1.0',
      percent: 5,
      steps: [
        { percent: 10, afterMinutes: 5 },
        { percent: 25, afterMinutes: 10 },
        { percent: 50, afterMinutes: 60 },
      ],
    });
    const steps = api.operations({ type: 'system', name: 'rollout-steps' });
    const startedAt = Date.parse(rollout.startedAt);
    const due = { promptId: 'due', label: 'production', rolloutId: rollout.rolloutId };
    expect(await steps.rollouts.applyDueStep('acme', due, new Date(startedAt + 4 * 60_000))).toMatchObject({ applied: false });
    const applied = await steps.rollouts.applyDueStep('acme', due, new Date(startedAt + 11 * 60_000));
    expect(applied).toMatchObject({ applied: true, rollout: { percent: 25, steps: [{ percent: 50, afterMinutes: 60 }] } });
    expect((await labelItem('due')).rollout?.percent).toBe(25);
    expect((await historyOf('due'))[0]).toMatchObject({ by: 'system:rollout-steps', rollout: { event: 'changed', percent: 25 } });
    expect((await audited('due', ['rollout.change'])).at(-1)).toMatchObject({ outcome: 'succeeded', actor: { type: 'system', name: 'rollout-steps' } });
    const byAutomation = await listAudit(api.table, 'acme', { filter: { actor: 'rollout-steps' } });
    expect(byAutomation.entries.map(({ action, target }) => ({ action, promptId: target.promptId }))).toEqual([{ action: 'rollout.change', promptId: 'due' }]);
    expect(await steps.rollouts.applyDueStep('acme', due, new Date(startedAt + 12 * 60_000))).toMatchObject({ applied: false });
    expect(await steps.rollouts.applyDueStep('acme', { promptId: 'start', label: 'canary', rolloutId: rollout.rolloutId }, new Date())).toMatchObject({
      applied: false,
    });
  });
});

describe('every active rollout (for the deployed step and alarm functions)', () => {
  test('listActiveRollouts finds the active rollouts of every account, each as its item now stands, and none that ended', async () => {
    const active = await listActiveRollouts(api.table);
    const keyOf = (item: { accountId: string; promptId: string; label: string }) => `${item.accountId}/${item.promptId}/${item.label}`;
    const found = new Map(active.map((item) => [keyOf(item), item]));
    // Started above and still active: read as they stand (the share a PATCH set, not the one the index saw first).
    expect(found.get('acme/change/production')).toMatchObject({ percent: 60, steps: [{ percent: 100, afterMinutes: 120 }] });
    expect(found.get('gated/plain/production')).toMatchObject({ percent: 5, to: '1.2.0' });
    // Completed or aborted: gone.
    for (const ended of ['acme/complete/production', 'acme/abort/production', 'acme/served/production', 'gated/approved/production']) {
      expect(found.has(ended)).toBe(false);
    }
    for (const item of active.filter((each) => each.accountId === 'acme')) {
      expect(((await read(item.promptId, item.label)).body as { rollout: Rollout }).rollout.rolloutId).toBe(item.rolloutId);
    }
  });
});
