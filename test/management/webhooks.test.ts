import { EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { WebhookDestinationMode } from '../../lambda/config';
import { recordDelivery } from '../../lambda/table/deliveries';
import type { WebhookItem } from '../../lambda/table/item-types';
import { MAX_WEBHOOKS_PER_ACCOUNT } from '../../lambda/features/webhooks/webhooks';
import { boundedResolve, checkUrl, type Resolve } from '../../lambda/webhook-delivery/destination';
import { KmsSecretSealer } from '../../lambda/webhook-delivery/kms-secret-sealer';
import { LocalSecretSealer } from '../../lambda/webhook-delivery/secret-sealer';
import { capturedLogRecords } from '../support/log-capture';
import { ManagementHarness, type Person } from '../support/management-harness';
import type { WebhookTools } from '../../lambda/webhook-delivery/sealer-from-config';
import { findWebhook } from '../../lambda/table/webhooks';

/** docs/events.md "Webhooks": admins manage them; a secret is answered once and stored sealed only. */
const api = new ManagementHarness();
const sealer = new LocalSecretSealer(LocalSecretSealer.generateKey());
let owner: Person;
let admin: Person;
let editor: Person;
let viewer: Person;
const W = '/api/accounts/acme/webhooks';
const RECEIVER = 'http://127.0.0.1:9/hooks';

/** DNS as the tests see it: no name is looked up for real, and nothing is connected to. */
const NAMES: ReadonlyMap<string, string> = new Map([
  ['hooks.example.com', '93.184.216.34'],
  ['internal.example.com', '10.0.0.1'],
  ['localhost', '127.0.0.1'],
]);
const stubResolve: Resolve = async (host) => {
  const address = NAMES.get(host);
  if (address === undefined) throw Object.assign(new Error(`no such name ${host}`), { code: 'ENOTFOUND' });
  return [{ address, family: 4 }];
};

const tools = (mode: WebhookDestinationMode): WebhookTools => ({ sealer, checkDestination: (url) => checkUrl(url, mode, stubResolve) });

function inMode(mode: WebhookDestinationMode): void {
  api.useDependencies({ ...api.deps, webhooks: tools(mode) });
}

beforeAll(async () => {
  await api.start();
  inMode('local');
  await api.fixtures.account('acme', 'pro');
  await api.fixtures.account('quota', 'pro');
  owner = await api.person('owner@acme.test', 'acme', 'owner');
  admin = await api.person('admin@acme.test', 'acme', 'admin');
  editor = await api.person('editor@acme.test', 'acme', 'editor');
  viewer = await api.person('viewer@acme.test', 'acme', 'viewer');
  await api.person('admin@quota.test', 'quota', 'admin');
  await api.fixtures.account('race', 'pro');
  await api.person('admin@race.test', 'race', 'admin');
});
afterAll(() => api.stop());
afterEach(() => inMode('local'));

interface WebhookAnswer {
  webhookId: string;
  url: string;
  events: string[];
  enabled: boolean;
  description: string | null;
  secretRotatedAt: string | null;
  previousSecretExpiresAt: string | null;
}

async function create(body: Record<string, unknown> = { url: RECEIVER, events: ['prompt.label.moved'] }, as: Person = admin, path = W) {
  const response = await api.send('POST', path, { as, body });
  return { response, ...(response.body as { webhook: WebhookAnswer; secret: string }) };
}

async function scanItems(): Promise<Record<string, unknown>[]> {
  return (await api.local.client.send(new ScanCommand({ TableName: api.local.tableName }))).Items ?? [];
}

const webhooksOf = async (accountId: string) =>
  (await scanItems()).filter((item) => item.pk === `ACCOUNT#${accountId}` && String(item.sk).startsWith('WEBHOOK#'));

async function auditEntries(action: string): Promise<Record<string, unknown>[]> {
  const page = await api.send('GET', `/api/accounts/acme/audit?action=${action}`, { as: viewer });
  return (page.body as { entries: Record<string, unknown>[] }).entries;
}

async function stored(webhookId: string): Promise<WebhookItem> {
  const item = await findWebhook(api.table, 'acme', webhookId);
  if (!item) throw new Error(`webhook ${webhookId} is not stored`);
  return item;
}

test('an admin creates a webhook: 201 with the webhook and its secret, this once', async () => {
  const { response, webhook, secret } = await create({ url: RECEIVER, events: ['prompt.label.moved', 'rollout.completed'], description: 'Deploys' });
  expect(response.status).toBe(201);
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  expect(webhook).toMatchObject({
    webhookId: expect.stringMatching(/^wh_[0-9a-f]{16}$/),
    url: RECEIVER,
    events: ['prompt.label.moved', 'rollout.completed'],
    enabled: true,
    description: 'Deploys',
    createdBy: 'admin@acme.test',
    secretRotatedAt: null,
    previousSecretExpiresAt: null,
  });
  expect(JSON.stringify(webhook)).not.toContain(secret);
});

test('the secret is in no later answer, audit entry or stored item: the item holds it sealed, and it unseals to it', async () => {
  const { webhook, secret } = await create({ url: RECEIVER, events: ['*'] });
  const later = [
    await api.send('GET', W, { as: admin }),
    await api.send('GET', `${W}/${webhook.webhookId}`, { as: admin }),
    await api.send('PATCH', `${W}/${webhook.webhookId}`, { as: admin, body: { description: 'renamed' } }),
    await api.send('GET', '/api/accounts/acme/audit', { as: viewer }),
  ];
  for (const response of later) {
    expect(response.status).toBe(200);
    expect(response.rawBody).not.toContain(secret);
    expect(response.rawBody).not.toContain(secret.slice('whsec_'.length));
    expect(response.rawBody).not.toContain('sealed');
  }
  expect(JSON.stringify(await scanItems())).not.toContain(secret.slice('whsec_'.length));
  const item = await stored(webhook.webhookId);
  expect(item.secrets).toHaveLength(1);
  await expect(sealer.unseal(item.secrets[0]?.sealed ?? '')).resolves.toBe(secret);
});

test('the list and a webhook answer what was set, never a secret field', async () => {
  const { webhook } = await create({ url: RECEIVER, events: ['key.created'] });
  const list = await api.send('GET', W, { as: owner });
  expect(list.status).toBe(200);
  const listed = (list.body as { webhooks: WebhookAnswer[] }).webhooks.find((entry) => entry.webhookId === webhook.webhookId);
  expect(listed).toEqual(webhook);
  expect(Object.keys(listed ?? {})).not.toContain('secret');
  expect(Object.keys(listed ?? {})).not.toContain('secrets');
  const one = await api.send('GET', `${W}/${webhook.webhookId}`, { as: owner });
  expect(one.body).toEqual(webhook);
});

test("a change sets the URL, events, description and enabled flag, audited as webhook.update with the URL's origin", async () => {
  const { webhook } = await create();
  const url = 'http://localhost:8123/other';
  const changed = await api.send('PATCH', `${W}/${webhook.webhookId}`, {
    as: admin,
    body: { url, events: ['member.added'], description: 'Team channel', enabled: false },
  });
  expect(changed.status).toBe(200);
  expect(changed.body).toMatchObject({ url, events: ['member.added'], description: 'Team channel', enabled: false });
  expect(await stored(webhook.webhookId)).toMatchObject({ url, events: ['member.added'], enabled: false, revision: 2 });
  const [entry] = await auditEntries('webhook.update');
  expect(entry).toMatchObject({ action: 'webhook.update', outcome: 'succeeded', target: { webhookId: webhook.webhookId } });
  expect(JSON.stringify(entry)).toContain('http://localhost:8123');
});

test('a delete answers 204; the webhook is gone and its place in the limit free again', async () => {
  const { webhook } = await create();
  const deleted = await api.send('DELETE', `${W}/${webhook.webhookId}`, { as: admin });
  expect(deleted.status).toBe(204);
  expect(await findWebhook(api.table, 'acme', webhook.webhookId)).toBeUndefined();
  expect((await api.send('GET', `${W}/${webhook.webhookId}`, { as: admin })).status).toBe(404);
  const [entry] = await auditEntries('webhook.delete');
  expect(entry).toMatchObject({ outcome: 'succeeded', target: { webhookId: webhook.webhookId } });
});

test('a rotation answers a new secret once; the item holds the new one and the old one, which expires in 24 hours', async () => {
  const { webhook, secret: first } = await create();
  const before = Date.now();
  const rotated = await api.send('POST', `${W}/${webhook.webhookId}/rotate`, { as: admin });
  expect(rotated.status).toBe(200);
  const { webhook: after, secret: second } = rotated.body as { webhook: WebhookAnswer; secret: string };
  expect(second).toMatch(/^whsec_/);
  expect(second).not.toBe(first);
  const item = await stored(webhook.webhookId);
  const [current, previous] = item.secrets;
  await expect(sealer.unseal(current?.sealed ?? '')).resolves.toBe(second);
  await expect(sealer.unseal(previous?.sealed ?? '')).resolves.toBe(first);
  expect(current?.expiresAt).toBeUndefined();
  const expiresAt = Date.parse(previous?.expiresAt ?? '');
  expect(expiresAt - before).toBeGreaterThanOrEqual(24 * 3600 * 1000 - 1000);
  expect(expiresAt - Date.now()).toBeLessThanOrEqual(24 * 3600 * 1000);
  expect(after).toMatchObject({ secretRotatedAt: current?.createdAt, previousSecretExpiresAt: previous?.expiresAt });
  const [entry] = await auditEntries('webhook.rotate');
  expect(JSON.stringify(entry)).not.toContain(second.slice(6));
  expect(JSON.stringify(entry)).not.toContain(first.slice(6));
});

test('a second rotation keeps two secrets: the newest, and the one it replaced; the first is dropped', async () => {
  const { webhook } = await create();
  await api.send('POST', `${W}/${webhook.webhookId}/rotate`, { as: admin });
  const second = (await api.send('POST', `${W}/${webhook.webhookId}/rotate`, { as: admin })).body as { secret: string };
  const third = (await api.send('POST', `${W}/${webhook.webhookId}/rotate`, { as: admin })).body as { secret: string };
  const item = await stored(webhook.webhookId);
  expect(item.secrets).toHaveLength(2);
  await expect(Promise.all(item.secrets.map((secret) => sealer.unseal(secret.sealed)))).resolves.toEqual([third.secret, second.secret]);
});

test('a test answers 202 with the id of a webhook.test event for that webhook, stored with the change', async () => {
  const { webhook } = await create();
  const sent = await api.send('POST', `${W}/${webhook.webhookId}/test`, { as: admin });
  expect(sent.status).toBe(202);
  const { eventId } = sent.body as { eventId: string };
  expect(eventId).toMatch(/^evt_\d{17}_[0-9a-f]{8}$/);
  const event = (await scanItems()).find((item) => item.sk === `EVENT#${eventId}`);
  expect(event).toMatchObject({ eventType: 'webhook.test' });
  expect(JSON.parse(String(event?.body))).toMatchObject({ id: eventId, type: 'webhook.test', accountId: 'acme', data: { webhookId: webhook.webhookId } });
  const [entry] = await auditEntries('webhook.test');
  expect(entry).toMatchObject({ outcome: 'succeeded', target: { webhookId: webhook.webhookId } });
});

test('a disabled webhook may be tested: its receiver is tried before it is enabled', async () => {
  const { webhook } = await create();
  await api.send('PATCH', `${W}/${webhook.webhookId}`, { as: admin, body: { enabled: false } });
  const sent = await api.send('POST', `${W}/${webhook.webhookId}/test`, { as: admin });
  expect(sent.status).toBe(202);
  const { eventId } = sent.body as { eventId: string };
  expect((await scanItems()).find((item) => item.sk === `EVENT#${eventId}`)).toMatchObject({ eventType: 'webhook.test' });
});

test('the deliveries of a new webhook: an empty list; of an unknown one: 404', async () => {
  const { webhook } = await create();
  const deliveries = await api.send('GET', `${W}/${webhook.webhookId}/deliveries`, { as: admin });
  expect(deliveries.status).toBe(200);
  expect(deliveries.body).toEqual({ deliveries: [] });
  expect((await api.send('GET', `${W}/wh_0000000000000000/deliveries`, { as: admin })).status).toBe(404);
});

test("the deliveries: the webhook's attempts, newest first, with status, duration and error", async () => {
  const { webhook } = await create();
  const attempt = { accountId: 'acme', webhookId: webhook.webhookId, eventId: 'evt_20261127054200123_1a2b3c4d', eventType: 'prompt.label.moved' };
  await recordDelivery(api.table, { ...attempt, attempt: 1, at: '2026-11-27T05:42:01.000Z', status: null, durationMs: 10_000, error: 'timed out' });
  await recordDelivery(api.table, { ...attempt, attempt: 2, at: '2026-11-27T05:42:07.000Z', status: 204, durationMs: 35 });
  const answer = await api.send('GET', `${W}/${webhook.webhookId}/deliveries`, { as: admin });
  expect(answer.status).toBe(200);
  expect((answer.body as { deliveries: unknown[] }).deliveries).toEqual([
    {
      deliveryId: expect.stringMatching(/^dlv_/),
      eventId: attempt.eventId,
      type: 'prompt.label.moved',
      attempt: 2,
      at: '2026-11-27T05:42:07.000Z',
      status: 204,
      durationMs: 35,
    },
    {
      deliveryId: expect.stringMatching(/^dlv_/),
      eventId: attempt.eventId,
      type: 'prompt.label.moved',
      attempt: 1,
      at: '2026-11-27T05:42:01.000Z',
      status: null,
      durationMs: 10_000,
      error: 'timed out',
    },
  ]);
});

test('an unknown webhook is 404 for every route, and a malformed id 400 naming it', async () => {
  const missing = `${W}/wh_0123456789abcdef`;
  const answers = [
    await api.send('GET', missing, { as: admin }),
    await api.send('PATCH', missing, { as: admin, body: { enabled: false } }),
    await api.send('DELETE', missing, { as: admin }),
    await api.send('POST', `${missing}/rotate`, { as: admin }),
    await api.send('POST', `${missing}/test`, { as: admin }),
  ];
  expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404, 404, 404]);
  const malformed = await api.send('GET', `${W}/__proto__`, { as: admin });
  expect(malformed.status).toBe(400);
  expect(malformed.body).toMatchObject({ field: 'webhookId' });
});

test('editors and viewers may not list, read, create, change, rotate, test or delete webhooks: 403, nothing changed', async () => {
  const { webhook } = await create();
  const one = `${W}/${webhook.webhookId}`;
  const countBefore = (await webhooksOf('acme')).length;
  for (const as of [editor, viewer]) {
    const answers = [
      await api.send('GET', W, { as }),
      await api.send('GET', one, { as }),
      await api.send('GET', `${one}/deliveries`, { as }),
      await api.send('POST', W, { as, body: { url: RECEIVER, events: ['*'] } }),
      await api.send('PATCH', one, { as, body: { enabled: false } }),
      await api.send('POST', `${one}/rotate`, { as }),
      await api.send('POST', `${one}/test`, { as }),
      await api.send('DELETE', one, { as }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([403, 403, 403, 403, 403, 403, 403, 403]);
  }
  expect(await webhooksOf('acme')).toHaveLength(countBefore);
  expect(await stored(webhook.webhookId)).toMatchObject({ enabled: true, revision: 1 });
});

describe('where a webhook may point, deployed (the stub resolver stands in for DNS)', () => {
  test.each([
    ['http://hooks.example.com/in', 'http'],
    ['https://internal.example.com/in', '10.0.0.1'],
    ['https://169.254.169.254/latest/meta-data', 'metadata'],
    ['https://localhost/in', 'localhost'],
    ['http://127.0.0.1:8080/in', 'http'],
  ])('%s is refused: 400 naming url, nothing stored', async (url) => {
    inMode('deployed');
    const countBefore = (await webhooksOf('acme')).length;
    const { response } = await create({ url, events: ['*'] });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'BAD_REQUEST', field: 'url' });
    expect(await webhooksOf('acme')).toHaveLength(countBefore);
  });

  test('https to a name resolving to a public address is taken', async () => {
    inMode('deployed');
    const { response } = await create({ url: 'https://hooks.example.com/in', events: ['*'] });
    expect(response.status).toBe(201);
  });

  test('a change to a refused URL is refused too: 400, the webhook as it was', async () => {
    const { webhook } = await create();
    inMode('deployed');
    const changed = await api.send('PATCH', `${W}/${webhook.webhookId}`, { as: admin, body: { url: 'https://internal.example.com/in' } });
    expect(changed.status).toBe(400);
    expect(changed.body).toMatchObject({ field: 'url' });
    expect(await stored(webhook.webhookId)).toMatchObject({ url: RECEIVER, revision: 1 });
    const [entry] = await auditEntries('webhook.update');
    expect(entry).toMatchObject({ outcome: 'refused', target: { webhookId: webhook.webhookId } });
  });
});

describe('settings refused: 400 naming the field, nothing stored', () => {
  test.each([
    ['a URL over 2048 characters', { url: `http://127.0.0.1:9/${'a'.repeat(2048)}`, events: ['*'] }, 'url'],
    ['no URL at all', { url: 'not a url', events: ['*'] }, 'url'],
    ['no events', { url: RECEIVER, events: [] }, 'events'],
    ['an unknown event type', { url: RECEIVER, events: ['prompt.eaten'] }, 'events.0'],
    ['__proto__ as an event type', { url: RECEIVER, events: ['__proto__'] }, 'events.0'],
    ['constructor as an event type', { url: RECEIVER, events: ['constructor'] }, 'events.0'],
    ['a type listed twice', { url: RECEIVER, events: ['key.created', 'key.created'] }, 'events'],
    ['"*" beside a type', { url: RECEIVER, events: ['*', 'key.created'] }, 'events'],
    ['webhook.test, sent to the webhook tested whatever it lists', { url: RECEIVER, events: ['webhook.test'] }, 'events.0'],
    ['a description over 500 characters', { url: RECEIVER, events: ['*'], description: 'd'.repeat(501) }, 'description'],
    ['an unknown field', { url: RECEIVER, events: ['*'], secret: 'whsec_mine' }, 'secret'],
  ])('%s', async (_name, body, field) => {
    const countBefore = (await webhooksOf('acme')).length;
    const { response } = await create(body);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'BAD_REQUEST', field });
    expect(await webhooksOf('acme')).toHaveLength(countBefore);
  });
});

test(`an account has at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks: the next is 409, nothing stored; a delete frees a place`, async () => {
  const quotaAdmin = await api.person('admin@quota.test');
  const Q = '/api/accounts/quota/webhooks';
  const made = [];
  for (let count = 0; count < MAX_WEBHOOKS_PER_ACCOUNT; count += 1) made.push(await create({ url: RECEIVER, events: ['*'] }, quotaAdmin, Q));
  expect(made.map(({ response }) => response.status)).toEqual(Array(MAX_WEBHOOKS_PER_ACCOUNT).fill(201));
  const over = await create({ url: RECEIVER, events: ['*'] }, quotaAdmin, Q);
  expect(over.response.status).toBe(409);
  expect(await webhooksOf('quota')).toHaveLength(MAX_WEBHOOKS_PER_ACCOUNT);
  await api.send('DELETE', `${Q}/${made[0]?.webhook.webhookId}`, { as: quotaAdmin });
  expect((await create({ url: RECEIVER, events: ['*'] }, quotaAdmin, Q)).response.status).toBe(201);
});

test('creations racing for the last place: one lands, the account never holds more than the limit', async () => {
  const raceAdmin = await api.person('admin@race.test');
  const R = '/api/accounts/race/webhooks';
  for (let count = 1; count < MAX_WEBHOOKS_PER_ACCOUNT; count += 1) await create({ url: RECEIVER, events: ['*'] }, raceAdmin, R);
  const racing = await Promise.all([1, 2, 3].map(() => create({ url: RECEIVER, events: ['*'] }, raceAdmin, R)));
  expect(racing.filter(({ response }) => response.status === 201)).toHaveLength(1);
  expect(racing.filter(({ response }) => response.status === 409)).toHaveLength(2);
  expect(await webhooksOf('race')).toHaveLength(MAX_WEBHOOKS_PER_ACCOUNT);
});

describe('a dependency that does not answer in time: 503 to retry, nothing stored, the entry refused with SERVICE_UNAVAILABLE', () => {
  test("DNS that never answers a URL's host", async () => {
    const silentDns = boundedResolve(() => new Promise(() => {}), 20);
    api.useDependencies({ ...api.deps, webhooks: { sealer, checkDestination: (url) => checkUrl(url, 'deployed', silentDns) } });
    const before = await webhooksOf('acme');
    const { response } = await create({ url: 'https://slow-dns.example.com/in', events: ['*'] });
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(await webhooksOf('acme')).toEqual(before);
    const [entry] = await auditEntries('webhook.create');
    expect(entry).toMatchObject({ outcome: 'refused', target: { url: 'https://slow-dns.example.com' }, reason: { code: 'SERVICE_UNAVAILABLE' } });
  });

  test('KMS that times out sealing the new secret', async () => {
    const client = new KMSClient({ region: 'us-east-1' });
    mockClient(client)
      .on(EncryptCommand)
      .rejects(Object.assign(new Error('socket timed out'), { name: 'TimeoutError' }));
    api.useDependencies({ ...api.deps, webhooks: { ...tools('local'), sealer: new KmsSecretSealer('alias/test', client) } });
    const before = await webhooksOf('acme');
    const { response } = await create({ url: 'http://127.0.0.1:9/slow-kms', events: ['*'] });
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(await webhooksOf('acme')).toEqual(before);
    const [entry] = await auditEntries('webhook.create');
    expect(entry).toMatchObject({ outcome: 'refused', reason: { code: 'SERVICE_UNAVAILABLE' } });
  });
});

test("a refused creation is audited as webhook.create with its URL's origin and outcome refused", async () => {
  inMode('deployed');
  await create({ url: 'https://internal.example.com/refused', events: ['*'] });
  const [entry] = await auditEntries('webhook.create');
  expect(entry).toMatchObject({ action: 'webhook.create', outcome: 'refused', target: { url: 'https://internal.example.com' } });
});

test("the audit log, which viewers read, holds a webhook URL's origin alone: no path or query, where receivers keep tokens", async () => {
  const made = 'http://127.0.0.1:9/services/T0SECRETPATH/B0SECRET?token=QUERYSECRET1';
  const changed = 'http://localhost:9/hooks/SECONDSECRETPATH?sig=QUERYSECRET2';
  const { response, webhook } = await create({ url: made, events: ['*'] });
  expect(webhook.url).toBe(made);
  const patched = await api.send('PATCH', `${W}/${webhook.webhookId}`, { as: admin, body: { url: changed } });
  expect(patched.body).toMatchObject({ url: changed });
  await api.send('DELETE', `${W}/${webhook.webhookId}`, { as: admin });
  const entries = [...(await auditEntries('webhook.create')), ...(await auditEntries('webhook.update')), ...(await auditEntries('webhook.delete'))].filter(
    (entry) => JSON.stringify(entry).includes(webhook.webhookId),
  );
  expect(response.status).toBe(201);
  expect(entries.map((entry) => entry.action)).toEqual(['webhook.create', 'webhook.update', 'webhook.delete']);
  const logged = JSON.stringify(entries);
  for (const secret of ['SECRETPATH', 'QUERYSECRET', '/services', '/hooks']) expect(logged).not.toContain(secret);
  expect(logged).toContain('http://127.0.0.1:9');
  expect(logged).toContain('http://localhost:9');
});

describe("a receiver URL's user info, path and query reach no record, whatever refuses the request", () => {
  /** A Slack-like receiver URL: a user name and password, a token in the path and one in the query, each its own. */
  const secretUrl = (n: number) => `https://alice:pw${n}secret@hooks.example.com/services/T000/B000/PATH${n}SECRET?token=QUERY${n}SECRET`;
  const secretsOf = (n: number) => [`pw${n}secret`, `PATH${n}SECRET`, `QUERY${n}SECRET`, '/services/T000', 'alice'];

  /** Everything a viewer, an operator or a receiver could read that the request may have reached. */
  async function everythingRecorded(since: number): Promise<string> {
    const audit = await api.send('GET', '/api/accounts/acme/audit', { as: viewer });
    expect(audit.status).toBe(200);
    const logLines = capturedLogRecords().slice(since);
    const storedRecords = (await scanItems()).filter((item) => /^(AUDIT|EVENT|DELIVERY)/.test(String(item.sk)));
    return JSON.stringify([audit.body, logLines, storedRecords]);
  }

  test.each([
    [
      'a 400 body (events that are not event types) creating a webhook',
      1,
      'POST',
      () => admin,
      undefined,
      (url: string) => ({ url, events: ['prompt.eaten'] }),
      400,
    ],
    ['a 403: an editor creating a webhook', 2, 'POST', () => editor, undefined, (url: string) => ({ url, events: ['*'] }), 403],
    ['a 400 PATCH (enabled that is no boolean) changing the URL', 3, 'PATCH', () => admin, 'mine', (url: string) => ({ url, enabled: 'yes' }), 400],
    ['a 403 PATCH: a viewer changing the URL', 4, 'PATCH', () => viewer, 'mine', (url: string) => ({ url }), 403],
  ] as const)(
    '%s: the entry names the origin, and no user info, path or query is in the audit log, a log line or an event',
    async (_name, n, method, as, which, body, status) => {
      const path = which === 'mine' ? `${W}/${(await create()).webhook.webhookId}` : W;
      const since = capturedLogRecords().length;
      const response = await api.send(method, path, { as: as(), body: body(secretUrl(n)) });
      expect(response.status).toBe(status);
      const [entry] = await auditEntries(method === 'POST' ? 'webhook.create' : 'webhook.update');
      expect(entry).toMatchObject({ outcome: 'refused', requested: { url: 'https://hooks.example.com' } });
      if (method === 'POST') expect(entry?.target).toEqual({ url: 'https://hooks.example.com' });
      const recorded = await everythingRecorded(since);
      for (const secret of secretsOf(n)) expect([secret, recorded.includes(secret)]).toEqual([secret, false]);
    },
  );

  test('a URL field that is no string (an array of URLs) is recorded as not a URL, never as what it held', async () => {
    const since = capturedLogRecords().length;
    const response = await api.send('POST', W, { as: admin, body: { url: [secretUrl(5)], events: ['*'] } });
    expect(response.status).toBe(400);
    const [entry] = await auditEntries('webhook.create');
    expect(entry).toMatchObject({ outcome: 'refused', requested: { url: 'not a URL', events: ['*'] } });
    const recorded = await everythingRecorded(since);
    for (const secret of secretsOf(5)) expect([secret, recorded.includes(secret)]).toEqual([secret, false]);
  });

  test("a 500 whose error quotes the URL: the request's log line and the entry give its origin alone", async () => {
    const quoting: WebhookTools = {
      sealer,
      checkDestination: async (url) => {
        throw new Error(`the resolver choked on ${url}`);
      },
    };
    api.useDependencies({ ...api.deps, webhooks: quoting });
    const since = capturedLogRecords().length;
    const response = await api.send('POST', W, { as: admin, body: { url: secretUrl(9), events: ['*'] } });
    expect(response.status).toBe(500);
    const line = capturedLogRecords()
      .slice(since)
      .find((record) => record.message === 'request');
    expect(line).toMatchObject({ status: 500, error: { message: 'the resolver choked on https://hooks.example.com' } });
    const recorded = await everythingRecorded(since);
    for (const secret of secretsOf(9)) expect([secret, recorded.includes(secret)]).toEqual([secret, false]);
  });

  test('accepted, changed, tested and refused by the operations: the same, the answers to the admin alone holding the whole URL', async () => {
    const since = capturedLogRecords().length;
    const { response, webhook } = await create({ url: `http://127.0.0.1:9/services/PATH6SECRET?token=QUERY6SECRET`, events: ['*'] });
    expect(response.status).toBe(201);
    expect(webhook.url).toContain('PATH6SECRET');
    const one = `${W}/${webhook.webhookId}`;
    expect((await api.send('PATCH', one, { as: admin, body: { url: 'http://localhost:9/hooks/PATH7SECRET?sig=QUERY7SECRET' } })).status).toBe(200);
    expect((await api.send('POST', `${one}/test`, { as: admin })).status).toBe(202);
    // The destination policy refuses user info: a refusal of the operations' own.
    const refused = await api.send('PATCH', one, { as: admin, body: { url: 'http://alice:pw8secret@127.0.0.1:9/PATH8SECRET?token=QUERY8SECRET' } });
    expect(refused.status).toBe(400);
    const recorded = await everythingRecorded(since);
    for (const secret of ['PATH6SECRET', 'QUERY6SECRET', 'PATH7SECRET', 'QUERY7SECRET', 'pw8secret', 'PATH8SECRET', 'QUERY8SECRET']) {
      expect([secret, recorded.includes(secret)]).toEqual([secret, false]);
    }
    expect(recorded).toContain('http://127.0.0.1:9');
    expect(recorded).toContain('http://localhost:9');
  });
});

test('the CLI creates, lists, tests and deletes a webhook as cli:<operator>; the secret printed once, listed never', async () => {
  const created = await api.cli(
    'ops@acme.test',
    'webhooks',
    'create',
    '--account',
    'acme',
    '--url',
    RECEIVER,
    '--events',
    'prompt.label.moved,key.created',
    '--json',
  );
  expect(created.code).toBe(0);
  const { webhook, secret } = JSON.parse(created.stdout) as { webhook: WebhookAnswer & { createdBy: string }; secret: string };
  expect(secret).toMatch(/^whsec_/);
  expect(webhook).toMatchObject({ url: RECEIVER, events: ['prompt.label.moved', 'key.created'], createdBy: 'cli:ops@acme.test' });
  const listed = await api.cli('ops@acme.test', 'webhooks', 'list', '--account', 'acme');
  expect(listed.stdout).toContain(webhook.webhookId);
  expect(listed.stdout).not.toContain(secret.slice(6));
  const tested = await api.cli('ops@acme.test', 'webhooks', 'test', '--account', 'acme', '--webhook', webhook.webhookId, '--json');
  expect(JSON.parse(tested.stdout)).toEqual({ eventId: expect.stringMatching(/^evt_/) });
  expect((await api.cli('ops@acme.test', 'webhooks', 'delete', '--account', 'acme', '--webhook', webhook.webhookId)).code).toBe(0);
  expect(await findWebhook(api.table, 'acme', webhook.webhookId)).toBeUndefined();
});

test('the CLI refuses a URL the policy refuses: exit 2 naming url, nothing stored', async () => {
  const countBefore = (await webhooksOf('acme')).length;
  const refused = await api.cli('ops@acme.test', 'webhooks', 'create', '--account', 'acme', '--url', 'https://10.0.0.1/in', '--events', '*');
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/url: .*10\.0\.0\.1/);
  expect(await webhooksOf('acme')).toHaveLength(countBefore);
});
