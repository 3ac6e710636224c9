import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { prompt, version } from '../support/fixtures';
import { registerApiKey } from '../support/log-capture';
import { ManagementHarness, type Person } from '../support/management-harness';

/** docs/management-api.md, "The management API": members, roles on every request, removals from the next request, the audit log. */
const api = new ManagementHarness();
let owner: Person;
let admin: Person;
let editor: Person;
let viewer: Person;
let otherOwner: Person;
const M = '/api/accounts/acme/members';

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme', 'pro');
  await api.fixtures.account('bigco', 'free');
  owner = await api.person('owner@acme.test', 'acme', 'owner');
  admin = await api.person('admin@acme.test', 'acme', 'admin');
  editor = await api.person('editor@acme.test', 'acme', 'editor');
  viewer = await api.person('viewer@acme.test', 'acme', 'viewer');
  otherOwner = await api.person('boss@bigco.test', 'bigco', 'owner');
});
afterAll(() => api.stop());

async function auditOf(accountId: string, as: Person) {
  const response = await api.send('GET', `/api/accounts/${accountId}/audit`, { as });
  expect(response.status).toBe(200);
  return (response.body as { entries: Record<string, unknown>[] }).entries;
}

describe('members', () => {
  test('an admin adds a person by email: a new user gets a temporary password, shown once', async () => {
    const added = await api.send('POST', M, { as: admin, body: { email: 'New.Person@acme.test', role: 'editor' } });
    expect(added.status).toBe(201);
    const body = added.body as { member: { userId: string; email: string; role: string }; temporaryPassword?: string };
    expect(body.member).toMatchObject({ email: 'new.person@acme.test', role: 'editor', addedBy: 'admin@acme.test' });
    expect(body.temporaryPassword).toEqual(expect.any(String));
    const list = await api.send('GET', M, { as: viewer });
    expect(list.rawBody).not.toContain(body.temporaryPassword);
    expect((list.body as { members: { email: string }[] }).members.map((m) => m.email)).toContain('new.person@acme.test');
    const entries = await auditOf('acme', viewer);
    expect(JSON.stringify(entries)).not.toContain(body.temporaryPassword);
    expect(entries[0]).toMatchObject({ action: 'member.add', outcome: 'succeeded', actor: { type: 'user', userId: admin.userId, email: 'admin@acme.test' } });
  });

  test('an existing user is added without a password; adding them twice is 409', async () => {
    api.directory.add('known@acme.test');
    const first = await api.send('POST', M, { as: admin, body: { email: 'known@acme.test', role: 'viewer' } });
    expect(first.status).toBe(201);
    expect(first.body).not.toHaveProperty('temporaryPassword');
    expect((await api.send('POST', M, { as: admin, body: { email: 'known@acme.test', role: 'viewer' } })).status).toBe(409);
  });

  test('admins manage people below owner only; owners manage owners', async () => {
    expect((await api.send('POST', M, { as: admin, body: { email: 'x@acme.test', role: 'owner' } })).status).toBe(403);
    expect((await api.send('PATCH', `${M}/${owner.userId}`, { as: admin, body: { role: 'viewer' } })).status).toBe(403);
    expect((await api.send('DELETE', `${M}/${owner.userId}`, { as: admin })).status).toBe(403);
    expect((await api.send('PATCH', `${M}/${viewer.userId}`, { as: editor, body: { role: 'admin' } })).status).toBe(403);
    const promoted = await api.send('PATCH', `${M}/${viewer.userId}`, { as: admin, body: { role: 'editor' } });
    expect(promoted).toMatchObject({ status: 200, body: { role: 'editor' } });
    expect((await api.send('PATCH', `${M}/${viewer.userId}`, { as: owner, body: { role: 'viewer' } })).status).toBe(200);
  });

  test('the last owner can be neither demoted nor removed (409); with a second owner, either can go', async () => {
    expect((await api.send('PATCH', `${M}/${owner.userId}`, { as: owner, body: { role: 'admin' } })).status).toBe(409);
    expect((await api.send('DELETE', `${M}/${owner.userId}`, { as: owner })).status).toBe(409);
    const second = await api.person('second@acme.test', 'acme', 'viewer');
    expect((await api.send('PATCH', `${M}/${second.userId}`, { as: owner, body: { role: 'owner' } })).status).toBe(200);
    // Each demotes the other at once: one of them stays owner.
    const results = await Promise.all([
      api.send('PATCH', `${M}/${owner.userId}`, { as: second, body: { role: 'viewer' } }),
      api.send('PATCH', `${M}/${second.userId}`, { as: owner, body: { role: 'viewer' } }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const members = (await api.send('GET', M, { as: viewer })).body as { members: { role: string }[] };
    expect(members.members.filter((m) => m.role === 'owner')).toHaveLength(1);
  });

  test('a removed member is refused from their very next request (404), a demoted one from theirs (403)', async () => {
    const leaving = await api.person('leaving@acme.test', 'acme', 'editor');
    expect((await api.send('GET', '/api/accounts/acme/prompts', { as: leaving })).status).toBe(200);
    expect((await api.send('DELETE', `${M}/${leaving.userId}`, { as: admin })).status).toBe(204);
    expect((await api.send('GET', '/api/accounts/acme/prompts', { as: leaving })).status).toBe(404);
    expect((await api.send('GET', '/api/me', { as: leaving })).body).toMatchObject({ accounts: [] });

    const demoted = await api.person('demoted@acme.test', 'acme', 'editor');
    expect((await api.send('POST', '/api/accounts/acme/prompts', { as: demoted, body: { promptId: 'ok', promptName: 'ok' } })).status).toBe(201);
    await api.send('PATCH', `${M}/${demoted.userId}`, { as: admin, body: { role: 'viewer' } });
    expect((await api.send('POST', '/api/accounts/acme/prompts', { as: demoted, body: { promptId: 'ok2', promptName: 'ok' } })).status).toBe(403);
  });
});

describe('tenant isolation', () => {
  test('a member of bigco reads or changes nothing of acme: 404 everywhere, nothing changed, nothing recorded there', async () => {
    const before = await auditOf('acme', owner);
    const attempts: [string, string, unknown?][] = [
      ['GET', '/api/accounts/acme'],
      ['PATCH', '/api/accounts/acme', { name: 'Mine' }],
      ['GET', '/api/accounts/acme/prompts'],
      ['POST', '/api/accounts/acme/prompts', { promptId: 'stolen', promptName: 'x' }],
      ['GET', '/api/accounts/acme/keys'],
      ['POST', '/api/accounts/acme/keys', { name: 'mine' }],
      ['GET', '/api/accounts/acme/members'],
      ['POST', '/api/accounts/acme/members', { email: 'boss@bigco.test', role: 'owner' }],
      ['GET', '/api/accounts/acme/usage'],
      ['GET', '/api/accounts/acme/audit'],
    ];
    for (const [method, path, body] of attempts) {
      const response = await api.send(method, path, { as: otherOwner, ...(body ? { body } : {}) });
      expect([method, path, response.status]).toEqual([method, path, 404]);
      expect(response.body).toEqual({ error: 'Not found', code: 'NOT_FOUND' });
    }
    expect((await api.send('GET', '/api/accounts/acme', { as: owner })).body).toMatchObject({ name: 'Account acme' });
    expect((await api.send('GET', '/api/accounts/acme/prompts/stolen', { as: owner })).status).toBe(404);
    expect(await auditOf('acme', owner)).toEqual(before);
  });
});

describe('the audit log', () => {
  test('each change and each refusal is recorded: who, what, the target, the outcome', async () => {
    await api.send('POST', '/api/accounts/acme/prompts', { as: editor, body: { promptId: 'audited', promptName: 'A' } });
    await api.send('POST', '/api/accounts/acme/prompts', { as: viewer, body: { promptId: 'refused', promptName: 'R' } });
    await api.send('POST', '/api/accounts/acme/prompts', { as: editor, body: { promptId: 'audited', promptName: 'A' } });
    await api.send('POST', '/api/accounts/acme/prompts', { as: editor, body: { promptId: 'bad id' } });
    const [invalid, conflict, refused, created] = await auditOf('acme', viewer);
    expect(created).toMatchObject({
      action: 'prompt.create',
      target: { promptId: 'audited' },
      outcome: 'succeeded',
      after: { promptName: 'A' },
      actor: { type: 'user', email: 'editor@acme.test' },
    });
    expect(refused).toMatchObject({ action: 'prompt.create', outcome: 'refused', reason: { code: 'FORBIDDEN' }, actor: { email: 'viewer@acme.test' } });
    expect(conflict).toMatchObject({ action: 'prompt.create', outcome: 'refused', reason: { code: 'CONFLICT' } });
    expect(invalid).toMatchObject({ action: 'prompt.create', outcome: 'refused', reason: { code: 'BAD_REQUEST' } });
    for (const entry of [invalid, conflict, refused, created]) expect(entry).toMatchObject({ at: expect.any(String), entryId: expect.any(String) });
  });

  test('newest first, 50 a page, with a cursor to the next; a bad cursor is 400', async () => {
    await api.fixtures.account('busy', 'free');
    const busyOwner = await api.person('owner@busy.test', 'busy', 'owner');
    const ops = api.operations({ type: 'cli', operator: 'seed' });
    for (let i = 0; i < 60; i += 1) await ops.prompts.create('busy', { promptId: `p${String(i).padStart(2, '0')}`, promptName: `P${i}` });
    const first = await api.send('GET', '/api/accounts/busy/audit', { as: busyOwner });
    const page1 = first.body as { entries: { target: { promptId: string } }[]; next: string };
    expect(page1.entries).toHaveLength(50);
    expect(page1.entries[0]?.target.promptId).toBe('p59');
    const second = await api.send('GET', `/api/accounts/busy/audit?before=${page1.next}`, { as: busyOwner });
    const page2 = second.body as { entries: { target: { promptId: string } }[]; next: string | null };
    expect(page2.entries.map((e) => e.target.promptId)).toEqual(['p09', 'p08', 'p07', 'p06', 'p05', 'p04', 'p03', 'p02', 'p01', 'p00']);
    expect(page2.next).toBeNull();
    expect((await api.send('GET', '/api/accounts/busy/audit?before=nonsense', { as: busyOwner })).body).toMatchObject({ field: 'before' });
  }, 30_000);

  test('the API has no way to change or delete an entry: every route that writes is a change of something else', async () => {
    const { MANAGEMENT_FUNCTIONS } = await import('../../lambda/management-api/routes');
    const auditRoutes = MANAGEMENT_FUNCTIONS.flatMap((fn) => fn.routes)
      .filter((route) => route.path.includes('/audit'))
      .map(({ method, path }) => ({ method, path }));
    expect(auditRoutes).toEqual([{ method: 'GET', path: '/api/accounts/{accountId}/audit' }]);
  });
});

describe('the CLI and the API: two doors, the same stored items', () => {
  const cli = (...argv: string[]) => api.cli('ci-bot', ...argv);

  const memberItem = async (accountId: string, userId: string) => {
    const { Item } = await api.local.client.send(
      new GetCommand({ TableName: api.local.tableName, Key: { pk: `ACCOUNT#${accountId}`, sk: `MEMBER#${userId}` } }),
    );
    const { addedAt: _at, addedBy: _by, ...rest } = Item as Record<string, unknown>;
    return rest;
  };

  test('members add through each door writes the same member item; the CLI is recorded as cli with the operator', async () => {
    await api.fixtures.account('cli-acct', 'free');
    await api.fixtures.account('api-acct', 'free');
    const apiOwner = await api.person('owner@api.test', 'api-acct', 'owner');
    api.directory.add('same@person.test');
    const viaCli = await cli('members', 'add', '--account', 'cli-acct', '--email', 'same@person.test', '--role', 'editor', '--json');
    expect(viaCli.code).toBe(0);
    expect((await api.send('POST', '/api/accounts/api-acct/members', { as: apiOwner, body: { email: 'same@person.test', role: 'editor' } })).status).toBe(201);
    const user = await api.directory.findByEmail('same@person.test');
    const [fromCli, fromApi] = [await memberItem('cli-acct', user?.userId ?? ''), await memberItem('api-acct', user?.userId ?? '')];
    expect({ ...fromCli, pk: 'x', gsi1sk: 'x', accountId: 'x' }).toEqual({ ...fromApi, pk: 'x', gsi1sk: 'x', accountId: 'x' });

    const { Items } = await api.local.client.send(
      new QueryCommand({
        TableName: api.local.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :audit)',
        ExpressionAttributeValues: { ':pk': 'ACCOUNT#cli-acct', ':audit': 'AUDIT#' },
      }),
    );
    expect(Items).toEqual([expect.objectContaining({ action: 'member.add', outcome: 'succeeded', actor: { type: 'cli', operator: 'ci-bot' } })]);
  });

  /** Every item of an account's partition a change may write (not the account, its members or its log), with the account's id taken out. */
  const promptItems = async (accountId: string) => {
    const { Items = [] } = await api.local.client.send(
      new QueryCommand({ TableName: api.local.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `ACCOUNT#${accountId}` } }),
    );
    // Events name who made the change, as audit entries do (test/management/change-events.test.ts).
    return Items.filter((item) => !['account', 'member', 'audit', 'labelHistory', 'event'].includes(String(item.type))).map((item) =>
      JSON.parse(JSON.stringify(item, (name, value) => (name.endsWith('At') ? undefined : value)).replaceAll(accountId, '<account>')),
    );
  };

  test('a label moved through each door writes the same items, and the same audit entries but for who made them', async () => {
    const byCli = 'cli-labels';
    const byApi = 'api-labels';
    for (const accountId of [byCli, byApi]) {
      await api.fixtures.account(accountId, 'free');
      await api.fixtures.prompts(accountId, prompt('greet', [version('1.0.0'), version('1.1.0')], { labels: { production: '1.0.0' } }));
    }
    const apiOwner = await api.person('owner@api-labels.test', byApi, 'owner');
    const label = (name: string) => `/api/accounts/${byApi}/prompts/greet/labels/${name}`;

    for (const [name, version] of [
      ['production', '1.1.0'],
      ['staging', '1.1.0'],
      ['staging', '1.0.0'],
    ] as const) {
      expect((await cli('prompts', 'label', '--account', byCli, '--prompt', 'greet', '--label', name, '--version', version)).code).toBe(0);
      expect((await api.send('PUT', label(name), { as: apiOwner, body: { version } })).status).toBe(200);
    }
    expect((await cli('prompts', 'unlabel', '--account', byCli, '--prompt', 'greet', '--label', 'production')).code).toBe(0);
    expect((await api.send('DELETE', label('production'), { as: apiOwner })).status).toBe(204);

    const items = await promptItems(byCli);
    expect(items.map((item) => item.type).sort()).toEqual(['prompt', 'promptLabel', 'promptVersion', 'promptVersion']);
    expect(items.find((item) => item.type === 'prompt')?.labels).toEqual({ staging: '1.0.0' });
    expect(items).toEqual(await promptItems(byApi));
    // Each move's history entry: the same moves, each door naming who made it.
    const historyOf = async (accountId: string) => {
      const { Items = [] } = await api.local.client.send(
        new QueryCommand({
          TableName: api.local.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :history)',
          ExpressionAttributeValues: { ':pk': `ACCOUNT#${accountId}`, ':history': 'LABELHIST#' },
        }),
      );
      return Items.filter((item) => item.reason !== 'import')
        .sort((a, b) => String(a.at).localeCompare(String(b.at)))
        .map(({ label, from, to, reason, by }) => ({ label, from, to, reason, by }));
    };
    const history = await historyOf(byCli);
    expect(history).toEqual([
      { label: 'production', from: '1.0.0', to: '1.1.0', reason: null, by: 'cli:ci-bot' },
      { label: 'staging', from: null, to: '1.1.0', reason: null, by: 'cli:ci-bot' },
      { label: 'staging', from: '1.1.0', to: '1.0.0', reason: null, by: 'cli:ci-bot' },
      { label: 'production', from: '1.1.0', to: null, reason: null, by: 'cli:ci-bot' },
    ]);
    expect(await historyOf(byApi)).toEqual(history.map((entry) => ({ ...entry, by: 'owner@api-labels.test' })));
    const revisionOf = async (accountId: string) =>
      (await api.local.client.send(new GetCommand({ TableName: api.local.tableName, Key: { pk: `ACCOUNT#${accountId}`, sk: 'ACCOUNT' } }))).Item
        ?.promptsRevision;
    expect(await revisionOf(byCli)).toBe(await revisionOf(byApi));

    const logOf = async (accountId: string) => {
      const { Items = [] } = await api.local.client.send(
        new QueryCommand({
          TableName: api.local.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :audit)',
          ExpressionAttributeValues: { ':pk': `ACCOUNT#${accountId}`, ':audit': 'AUDIT#' },
        }),
      );
      return Items.map(({ action, target, requested, before, after, outcome, reason, actor }) => ({
        action,
        target,
        requested,
        before,
        after,
        outcome,
        reason,
        actor,
      }));
    };
    const [fromCli, fromApi] = [await logOf(byCli), await logOf(byApi)];
    expect(fromCli.map(({ actor: _actor, ...entry }) => entry)).toEqual(fromApi.map(({ actor: _actor, ...entry }) => entry));
    expect(fromCli.map((entry) => entry.action)).toEqual(['label.set', 'label.set', 'label.set', 'label.remove']);
    expect(new Set(fromCli.map((entry) => JSON.stringify(entry.actor)))).toEqual(new Set([JSON.stringify({ type: 'cli', operator: 'ci-bot' })]));
    expect(new Set(fromApi.map((entry) => JSON.stringify(entry.actor)))).toEqual(
      new Set([JSON.stringify({ type: 'user', userId: apiOwner.userId, email: 'owner@api-labels.test' })]),
    );
  });

  test("the CLI's other changes are recorded too, as cli, and a key it prints never reaches the log", async () => {
    await api.fixtures.account('cli-keys', 'free');
    const keysOwner = await api.person('owner@cli-keys.test', 'cli-keys', 'owner');
    const created = await cli('keys', 'create', '--account', 'cli-keys', '--json');
    expect(created.code).toBe(0);
    const { apiKey, keyId } = JSON.parse(created.stdout) as { apiKey: string; keyId: string };
    registerApiKey(apiKey);
    expect((await cli('keys', 'revoke', '--account', 'cli-keys', '--key', keyId)).code).toBe(0);
    expect((await cli('keys', 'revoke', '--account', 'cli-keys', '--key', 'key_0000000000000000')).code).toBe(1);
    const audit = await api.send('GET', '/api/accounts/cli-keys/audit', { as: keysOwner });
    expect(audit.rawBody).not.toContain(apiKey);
    expect((audit.body as { entries: unknown[] }).entries).toEqual([
      expect.objectContaining({
        action: 'key.revoke',
        target: { keyId: 'key_0000000000000000' },
        outcome: 'refused',
        reason: expect.objectContaining({ code: 'NOT_FOUND' }),
      }),
      expect.objectContaining({ action: 'key.revoke', target: { keyId }, outcome: 'succeeded', actor: { type: 'cli', operator: 'ci-bot' } }),
      expect.objectContaining({
        action: 'key.create',
        target: { name: 'CLI key' },
        outcome: 'succeeded',
        after: expect.objectContaining({ keyId, status: 'active' }),
      }),
    ]);
  });

  test('members list, set-role and remove from the CLI, the last owner kept', async () => {
    const person = await api.person('cli-managed@acme.test', 'acme', 'viewer');
    const listed = await cli('members', 'list', '--account', 'acme', '--json');
    expect(JSON.parse(listed.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ userId: person.userId, role: 'viewer' })]));
    expect((await cli('members', 'set-role', '--account', 'acme', '--user', person.userId, '--role', 'admin')).code).toBe(0);
    expect((await api.send('GET', '/api/accounts/acme', { as: person })).body).toMatchObject({ role: 'admin' });
    expect((await cli('members', 'remove', '--account', 'acme', '--user', person.userId)).code).toBe(0);
    expect((await api.send('GET', '/api/accounts/acme', { as: person })).status).toBe(404);
    const owners = ((await api.send('GET', M, { as: owner })).body as { members: { userId: string; role: string }[] }).members.filter(
      (m) => m.role === 'owner',
    );
    const lastOwner = owners[0]?.userId ?? '';
    const refused = await cli('members', 'remove', '--account', 'acme', '--user', lastOwner);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/must keep at least one owner/);
    expect((await cli('members', 'add', '--account', 'acme', '--email', 'nope', '--role', 'viewer')).stderr).toBe('admin: --email must be an email address\n');
  });
});
