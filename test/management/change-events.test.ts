import { pushPrompt } from '../../admin/prompt-files/push';
import { planFolder } from '../../admin/prompt-files/folder-plan';
import { formatPromptFile, parsePromptFile } from '../../admin/prompt-files/prompt-file';
import { readServedPrompts } from '../../admin/prompt-files/prompt-folder';
import { EVENT_ID_PATTERN, type EventBody } from '../../lambda/domain/events';
import { listAudit } from '../../lambda/table/audit-log';
import { EVENT_KEPT_SECONDS, eventsAfter, readEventBody } from '../../lambda/table/outbox';
import { keys } from '../../lambda/table/schema';
import { config, prompt, version } from '../support/fixtures';
import { ManagementHarness, type Person } from '../support/management-harness';

/**
 * docs/events.md: every change announces itself with an event item written in its own transaction, whichever
 * door it came through (the management API, the CLI, `prompts push`, the rollout automation); a change that
 * changed nothing, or did not happen, announces nothing; an event never holds a key.
 */
const api = new ManagementHarness();
const OPERATOR = 'events-bot';
let accounts = 0;

beforeAll(async () => {
  await api.start();
});
afterAll(() => api.stop());

/** An account of its own for each test, with an owner and `welcome` labelled production at 1.0.0 (imported: no events). */
async function account(): Promise<{ accountId: string; owner: Person }> {
  accounts += 1;
  const accountId = `events-${accounts}`;
  await api.fixtures.account(accountId, 'pro');
  const owner = await api.person(`owner@${accountId}.test`, accountId, 'owner');
  await api.fixtures.prompts(accountId, prompt('welcome', [version('1.0.0'), version('1.1.0')], { labels: { production: '1.0.0' } }));
  return { accountId, owner };
}

async function eventsOf(accountId: string): Promise<EventBody[]> {
  return (await eventsAfter(api.table, accountId, undefined, 100)).map(readEventBody);
}

const shapes = (events: readonly EventBody[]) => events.map(({ type, actor, data }) => ({ type, actor, data }));

test('an account set up by import and fixtures has no events: a bulk import is no change people make', async () => {
  const { accountId } = await account();
  expect(await eventsOf(accountId)).toEqual([]);
});

test('API: a prompt created is one prompt.created event, by the person, at its audit entry time, kept 30 days', async () => {
  const { accountId, owner } = await account();
  const response = await api.send('POST', `/api/accounts/${accountId}/prompts`, { as: owner, body: { promptId: 'fresh', promptName: 'Fresh' } });
  expect(response.status).toBe(201);
  const items = await eventsAfter(api.table, accountId, undefined, 100);
  expect(items).toHaveLength(1);
  const [item] = items;
  const body = readEventBody(item ?? {});
  expect(body).toEqual({
    id: item?.eventId,
    type: 'prompt.created',
    time: item?.time,
    accountId,
    actor: { type: 'user', email: owner.email },
    data: { promptId: 'fresh', promptName: 'Fresh' },
  });
  expect(body.id).toMatch(EVENT_ID_PATTERN);
  expect(body.id.slice(4, 21)).toBe(body.time.replace(/\D/g, ''));
  expect(item?.ttl).toBe(Date.parse(body.time) / 1000 - (Date.parse(body.time) % 1000) / 1000 + EVENT_KEPT_SECONDS);
  const { entries } = await listAudit(api.table, accountId, { filter: { action: 'prompt.create' } });
  expect(entries.map((entry) => entry.at)).toEqual([body.time]);
  const stored = await api.table.get<Record<string, unknown>>('test', keys.event(accountId, body.id));
  expect(stored).toMatchObject({ type: 'event', eventType: 'prompt.created' });
});

test('CLI: a label moved is prompt.label.moved by the operator, with from, to and the note as its reason', async () => {
  const { accountId } = await account();
  const moved = await api.cli(
    OPERATOR,
    'prompts',
    'label',
    '--account',
    accountId,
    '--prompt',
    'welcome',
    '--label',
    'production',
    '--version',
    '1.1.0',
    '--note',
    'ship',
  );
  expect(moved.code).toBe(0);
  expect(shapes(await eventsOf(accountId))).toEqual([
    {
      type: 'prompt.label.moved',
      actor: { type: 'cli', operator: OPERATOR },
      data: { promptId: 'welcome', label: 'production', from: '1.0.0', to: '1.1.0', reason: 'ship' },
    },
  ]);
});

test('a label set where it points already changed nothing and announces nothing', async () => {
  const { accountId, owner } = await account();
  const response = await api.send('PUT', `/api/accounts/${accountId}/prompts/welcome/labels/production`, { as: owner, body: { version: '1.0.0' } });
  expect(response.status).toBe(200);
  expect(await eventsOf(accountId)).toEqual([]);
});

test('a refused change announces nothing', async () => {
  const { accountId, owner } = await account();
  const response = await api.send('PUT', `/api/accounts/${accountId}/prompts/welcome/labels/production`, { as: owner, body: { version: '9.9.9' } });
  expect(response.status).toBe(404);
  expect(await eventsOf(accountId)).toEqual([]);
});

test('push: one prompt created, published and labelled is three events in that order, the move with reason push', async () => {
  const { accountId } = await account();
  const news = { promptId: 'news', promptName: 'News', description: null, tags: [], version: '1.0.0', labels: { production: '1.0.0' } };
  const file = parsePromptFile('news.prompt.yaml', formatPromptFile({ ...news, systemMessage: 'Be brief.', userMessage: 'Hello', config: config() }));
  const [plan] = planFolder([file], await readServedPrompts(api.table, accountId)).changes;
  if (!plan) throw new Error('nothing to push');
  const ops = api.operations({ type: 'cli', operator: OPERATOR });
  expect(await pushPrompt(ops, accountId, plan, file, 'first')).toMatchObject({ outcome: 'changed' });
  const actor = { type: 'cli', operator: OPERATOR };
  expect(shapes(await eventsOf(accountId))).toEqual([
    { type: 'prompt.created', actor, data: { promptId: 'news', promptName: 'News' } },
    { type: 'prompt.version.published', actor, data: { promptId: 'news', version: '1.0.0', note: 'first' } },
    { type: 'prompt.label.moved', actor, data: { promptId: 'news', label: 'production', from: null, to: '1.0.0', reason: 'push' } },
  ]);
});

test('rollout automation: a due step applied by the system actor is rollout.changed with the share before and after', async () => {
  const { accountId } = await account();
  const operator = api.operations({ type: 'cli', operator: OPERATOR });
  const started = await operator.rollouts.start(accountId, 'welcome', 'production', { to: '1.1.0', percent: 10, steps: [{ percent: 50, afterMinutes: 1 }] });
  if (!('rollout' in started)) throw new Error('no rollout');
  const system = api.operations({ type: 'system', name: 'rollout-steps' });
  const { rolloutId } = started.rollout;
  const applied = await system.rollouts.applyDueStep(accountId, { promptId: 'welcome', label: 'production', rolloutId }, new Date(Date.now() + 120_000));
  expect(applied.applied).toBe(true);
  const events = shapes(await eventsOf(accountId));
  expect(events).toEqual([
    {
      type: 'rollout.started',
      actor: { type: 'cli', operator: OPERATOR },
      data: { rolloutId, promptId: 'welcome', label: 'production', from: '1.0.0', to: '1.1.0', percent: 10 },
    },
    {
      type: 'rollout.changed',
      actor: { type: 'system', name: 'rollout-steps' },
      data: { rolloutId, promptId: 'welcome', label: 'production', from: '1.0.0', to: '1.1.0', percent: 50, previousPercent: 10 },
    },
  ]);
});

test("a rollout's completion announces rollout.completed and the label's move, its reason the rollout", async () => {
  const { accountId } = await account();
  const operator = api.operations({ type: 'cli', operator: OPERATOR });
  const started = await operator.rollouts.start(accountId, 'welcome', 'production', { to: '1.1.0', percent: 10 });
  if (!('rollout' in started)) throw new Error('no rollout');
  const { rolloutId } = started.rollout;
  await operator.rollouts.complete(accountId, 'welcome', 'production');
  const events = shapes(await eventsOf(accountId)).slice(1);
  expect(events).toEqual([
    {
      type: 'rollout.completed',
      actor: { type: 'cli', operator: OPERATOR },
      data: { rolloutId, promptId: 'welcome', label: 'production', from: '1.0.0', to: '1.1.0', percent: 10, served: { from: 0, to: 0 } },
    },
    {
      type: 'prompt.label.moved',
      actor: { type: 'cli', operator: OPERATOR },
      data: { promptId: 'welcome', label: 'production', from: '1.0.0', to: '1.1.0', reason: `rollout ${rolloutId}` },
    },
  ]);
});

test('key.created names the key by id and name and never holds it; a rotation announces the new key with the one it replaces', async () => {
  const { accountId, owner } = await account();
  const created = await api.send('POST', `/api/accounts/${accountId}/keys`, { as: owner, body: { name: 'ci' } });
  expect(created.status).toBe(201);
  const { apiKey, key } = created.body as { apiKey: string; key: { keyId: string } };
  const rotated = await api.send('POST', `/api/accounts/${accountId}/keys/${key.keyId}/rotate`, { as: owner, body: { graceSeconds: 60 } });
  expect(rotated.status).toBe(201);
  const newKey = (rotated.body as { apiKey: string; key: { keyId: string } }).apiKey;
  const revoked = await api.send('POST', `/api/accounts/${accountId}/keys/${key.keyId}/revoke`, { as: owner });
  expect(revoked.status).toBe(200);
  const items = await eventsAfter(api.table, accountId, undefined, 100);
  const events = items.map(readEventBody);
  const newKeyId = events[1]?.data.keyId;
  expect(shapes(events)).toEqual([
    { type: 'key.created', actor: { type: 'user', email: owner.email }, data: { keyId: key.keyId, name: 'ci' } },
    { type: 'key.created', actor: { type: 'user', email: owner.email }, data: { keyId: newKeyId, name: 'ci', rotatedFrom: key.keyId } },
    { type: 'key.revoked', actor: { type: 'user', email: owner.email }, data: { keyId: key.keyId, name: 'ci' } },
  ]);
  expect(newKeyId).not.toBe(key.keyId);
  for (const item of items) {
    expect(item.body).not.toContain('prs_');
    expect(item.body).not.toContain(apiKey);
    expect(item.body).not.toContain(newKey);
  }
});

test('a change request applied announces the approval, the application and the move, the move naming the request', async () => {
  const { accountId, owner } = await account();
  const reviewer = await api.person(`reviewer@${accountId}.test`, accountId, 'admin');
  await api.operations().accounts.updateSettings(accountId, { approvals: { labels: ['production'] } });
  const opened = await api.send('PUT', `/api/accounts/${accountId}/prompts/welcome/labels/production`, { as: owner, body: { version: '1.1.0' } });
  expect(opened.status).toBe(202);
  const { requestId } = (opened.body as { request: { requestId: string } }).request;
  const approved = await api.send('POST', `/api/accounts/${accountId}/requests/${requestId}/approve`, { as: reviewer, body: {} });
  expect(approved.status).toBe(200);
  const move = { requestId, promptId: 'welcome', label: 'production', from: '1.0.0', to: '1.1.0' };
  expect(shapes(await eventsOf(accountId))).toEqual([
    { type: 'request.opened', actor: { type: 'user', email: owner.email }, data: { ...move, state: 'open' } },
    { type: 'request.approved', actor: { type: 'user', email: reviewer.email }, data: { ...move, state: 'applied' } },
    { type: 'request.applied', actor: { type: 'user', email: reviewer.email }, data: { ...move, state: 'applied' } },
    {
      type: 'prompt.label.moved',
      actor: { type: 'user', email: reviewer.email },
      data: { promptId: 'welcome', label: 'production', from: '1.0.0', to: '1.1.0', reason: `request ${requestId}` },
    },
  ]);
});

test('a member removed names who left and the role they had; a role change and account settings announce nothing', async () => {
  const { accountId, owner } = await account();
  const editor = await api.person(`editor@${accountId}.test`, accountId, 'editor');
  expect((await api.send('PATCH', `/api/accounts/${accountId}/members/${editor.userId}`, { as: owner, body: { role: 'viewer' } })).status).toBe(200);
  expect((await api.send('PATCH', `/api/accounts/${accountId}`, { as: owner, body: { name: 'Renamed' } })).status).toBe(200);
  expect((await api.send('DELETE', `/api/accounts/${accountId}/members/${editor.userId}`, { as: owner })).status).toBe(204);
  expect(shapes(await eventsOf(accountId))).toEqual([
    { type: 'member.removed', actor: { type: 'user', email: owner.email }, data: { userId: editor.userId, email: editor.email, role: 'viewer' } },
  ]);
});

test('a prompt renamed is prompt.updated with its details before and after', async () => {
  const { accountId, owner } = await account();
  const response = await api.send('PATCH', `/api/accounts/${accountId}/prompts/welcome`, { as: owner, body: { promptName: 'Hello', tags: ['a'] } });
  expect(response.status).toBe(200);
  const [event] = await eventsOf(accountId);
  expect(event?.type).toBe('prompt.updated');
  expect(event?.data).toEqual({
    promptId: 'welcome',
    before: { promptName: expect.any(String), description: null, tags: [] },
    after: { promptName: 'Hello', description: null, tags: ['a'] },
  });
  expect(event?.data.before).not.toEqual(event?.data.after);
});

test('eventsAfter reads on from an event, oldest first, at most the limit', async () => {
  const { accountId, owner } = await account();
  for (const promptId of ['a', 'b', 'c']) {
    expect((await api.send('POST', `/api/accounts/${accountId}/prompts`, { as: owner, body: { promptId, promptName: promptId } })).status).toBe(201);
  }
  const all = await eventsAfter(api.table, accountId, undefined, 100);
  expect(all.map((item) => readEventBody(item).data.promptId)).toEqual(['a', 'b', 'c']);
  const rest = await eventsAfter(api.table, accountId, all[0]?.eventId, 1);
  expect(rest.map((item) => item.eventId)).toEqual([all[1]?.eventId]);
  expect(await eventsAfter(api.table, accountId, all[2]?.eventId, 10)).toEqual([]);
});
