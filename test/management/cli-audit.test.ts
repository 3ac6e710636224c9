import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AuditEntry, listAudit } from '../../lambda/table/audit-log';
import { registerApiKey } from '../support/log-capture';
import { ManagementHarness, type Person } from '../support/management-harness';

/**
 * Every command of the admin CLI that changes something, in the account's audit log as the management API's
 * same change is (the same actions, targets and outcomes), with the actor `cli` and the operator's name
 * (PROMPTS_ADMIN_ACTOR); read back through the table module and through the API's audit route.
 */

const api = new ManagementHarness();
const OPERATOR = 'release-bot';
const ACTOR = { type: 'cli', operator: OPERATOR };
const ACCOUNT = 'audited';
let folder: string;
let owner: Person;

const cli = async (...argv: string[]) => {
  const result = await api.cli(OPERATOR, ...argv);
  if (result.code !== 0) throw new Error(`admin ${argv.join(' ')} exited ${result.code}: ${result.stderr}`);
  return result;
};
const cliJson = async <T>(...argv: string[]): Promise<T> => JSON.parse((await cli(...argv, '--json')).stdout) as T;
const on = ['--account', ACCOUNT];
const greet = [...on, '--prompt', 'greet'];
const contentOptions = ['--system-message', 'You are kind.', '--user-message', 'Hi ${name}', '--model', 'gpt-4o-mini', '--temperature', '0.2'];

/** Entries since `from` (an index into the log, oldest first), each as what it says was done. */
async function logSince(from: number): Promise<Partial<AuditEntry>[]> {
  const { entries } = await listAudit(api.table, ACCOUNT, { limit: 200 });
  return entries
    .reverse()
    .slice(from)
    .map(({ action, target, outcome, actor, requested, reason, after }) => ({
      action,
      target,
      outcome,
      actor,
      ...(requested === undefined ? {} : { requested }),
      ...(reason === undefined ? {} : { reason }),
      ...(after === undefined ? {} : { after }),
    }));
}
const logLength = async () => (await listAudit(api.table, ACCOUNT, { limit: 200 })).entries.length;

/**
 * Runs a command and returns what it added to the log, oldest first. Entries written in the same millisecond
 * sort by their random tails, so the steps of one command are compared as a set.
 */
async function recorded(run: () => Promise<unknown>): Promise<Partial<AuditEntry>[]> {
  const from = await logLength();
  await run();
  return logSince(from);
}

/** A command of several steps: each recorded once, in whatever order the same millisecond gave them. */
async function expectSteps(run: () => Promise<unknown>, expected: unknown[]): Promise<void> {
  const actual = await recorded(run);
  expect(actual).toHaveLength(expected.length);
  expect(actual).toEqual(expect.arrayContaining(expected));
}

const entry = (action: string, target: Record<string, string>, extra: Partial<AuditEntry> = {}) =>
  expect.objectContaining({ action, target, outcome: 'succeeded', actor: ACTOR, ...extra });

beforeAll(async () => {
  await api.start();
  folder = await mkdtemp(join(tmpdir(), 'cli-audit-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
  await api.stop();
});

test('accounts create and set-plan', async () => {
  expect(await recorded(() => cli('accounts', 'create', '--name', 'Audited Ltd', '--plan', 'free', '--id', ACCOUNT))).toEqual([
    entry('account.create', { accountId: ACCOUNT }, { requested: { name: 'Audited Ltd', plan: 'free' } }),
  ]);
  expect(await recorded(() => cli('accounts', 'set-plan', ...on, '--plan', 'pro'))).toEqual([
    entry('account.set-plan', { accountId: ACCOUNT }, { requested: { plan: 'pro' } }),
  ]);
  owner = await api.person('owner@audited.test', ACCOUNT, 'owner');
});

test('keys create, set, rotate and revoke, never with the key', async () => {
  let created: { keyId: string; apiKey: string } | undefined;
  expect(
    await recorded(async () => {
      created = await cliJson('keys', 'create', ...on, '--name', 'Billing', '--monthly-limit', '100');
    }),
  ).toEqual([entry('key.create', { name: 'Billing' }, { requested: { name: 'Billing', monthlyLimit: 100 } })]);
  const { keyId, apiKey } = created ?? { keyId: '', apiKey: '' };
  registerApiKey(apiKey);
  expect(await recorded(() => cli('keys', 'set', ...on, '--key', keyId, '--disable'))).toEqual([
    entry('key.update', { keyId }, { requested: { disabled: true } }),
  ]);
  expect(await recorded(() => cli('keys', 'set', ...on, '--key', keyId, '--enable'))).toEqual([entry('key.update', { keyId })]);
  let rotated: { keyId: string; apiKey: string } | undefined;
  expect(
    await recorded(async () => {
      rotated = await cliJson('keys', 'rotate', ...on, '--key', keyId, '--grace', '0');
    }),
  ).toEqual([entry('key.rotate', { keyId }, { requested: { graceSeconds: 0 } })]);
  registerApiKey(rotated?.apiKey ?? '');
  expect(await recorded(() => cli('keys', 'revoke', ...on, '--key', rotated?.keyId ?? ''))).toEqual([entry('key.revoke', { keyId: rotated?.keyId ?? '' })]);
  const log = JSON.stringify(await logSince(0));
  expect(log).not.toContain(apiKey);
  expect(log).not.toContain(rotated?.apiKey);
});

test('prompts publish: a new prompt, its draft and the publish, each step as the API makes it', async () => {
  await expectSteps(
    () => cli('prompts', 'publish', ...greet, '--name', 'Greet', '--version', '1.0.0', ...contentOptions),
    [
      entry('prompt.create', { promptId: 'greet' }, { requested: { promptId: 'greet', promptName: 'Greet' } }),
      entry('draft.create', { promptId: 'greet', version: '1.0.0' }),
      entry('version.publish', { promptId: 'greet', version: '1.0.0' }, { requested: { note: 'Published with the admin CLI' } }),
    ],
  );
  const warmer = [...contentOptions.slice(0, 2), '--user-message', 'Hello ${name}', ...contentOptions.slice(4)];
  await expectSteps(
    () => cli('prompts', 'publish', ...greet, '--version', '1.1.0', '--note', 'Warmer', ...warmer),
    [
      entry('draft.create', { promptId: 'greet', version: '1.1.0' }),
      entry('version.publish', { promptId: 'greet', version: '1.1.0' }, { requested: { note: 'Warmer' } }),
    ],
  );
  // Published already with this content: nothing to do, nothing recorded.
  expect(await recorded(() => cli('prompts', 'publish', ...greet, '--version', '1.0.0', ...contentOptions))).toEqual([]);
});

test('prompts label and unlabel, an unlabel of a label the prompt does not carry recorded as the API records it', async () => {
  expect(await recorded(() => cli('prompts', 'label', ...greet, '--label', 'production', '--version', '1.0.0'))).toEqual([
    entry('label.set', { promptId: 'greet', label: 'production' }, { requested: { version: '1.0.0' } }),
  ]);
  expect(await recorded(() => cli('prompts', 'unlabel', ...greet, '--label', 'production'))).toEqual([
    entry('label.remove', { promptId: 'greet', label: 'production' }),
  ]);
  let again: { stdout: string } | undefined;
  expect(
    await recorded(async () => {
      again = await cli('prompts', 'unlabel', ...greet, '--label', 'production');
    }),
  ).toEqual([expect.objectContaining({ action: 'label.remove', actor: ACTOR, outcome: 'refused', reason: expect.objectContaining({ code: 'NOT_FOUND' }) })]);
  expect(again?.stdout).toBe('Prompt greet has no label production: nothing changed\n');
});

test('prompts rollback, delete and restore', async () => {
  await expectSteps(
    () => cli('prompts', 'rollback', ...greet, '--to', '1.0.0'),
    [
      entry('draft.create', { promptId: 'greet', version: '1.1.1' }),
      entry('version.publish', { promptId: 'greet', version: '1.1.1' }, { requested: { note: 'Rollback: the content of 1.0.0, published again' } }),
    ],
  );
  expect(await recorded(() => cli('prompts', 'delete', ...greet))).toEqual([entry('prompt.delete', { promptId: 'greet' })]);
  expect(await recorded(() => cli('prompts', 'restore', ...greet))).toEqual([entry('prompt.restore', { promptId: 'greet' })]);
});

test('prompts import: one entry for the account, settled with what it changed', async () => {
  const file = join(folder, 'seed.json');
  const version = {
    version: '1.0.0',
    published: true,
    systemMessage: 's',
    userMessage: 'u',
    config: { model: 'gpt-4o-mini', temperature: 0, schema: [], inputData: null, inputDataRootName: null },
  };
  await writeFile(
    file,
    JSON.stringify({ accounts: [{ accountId: ACCOUNT, prompts: [{ promptId: 'imported', promptName: 'Imported', versions: [version] }] }] }),
  );
  const entries = await recorded(() => cli('prompts', 'import', file));
  expect(entries).toEqual([entry('import', { accountId: ACCOUNT }, { after: expect.objectContaining({ prompts: { created: 1, updated: 0, unchanged: 0 } }) })]);
});

test('members add, set-role and remove', async () => {
  api.directory.add('someone@audited.test');
  let userId = '';
  expect(
    await recorded(async () => {
      ({ userId } = await cliJson<{ userId: string }>('members', 'add', ...on, '--email', 'someone@audited.test', '--role', 'viewer'));
    }),
  ).toEqual([entry('member.add', { email: 'someone@audited.test' })]);
  expect(await recorded(() => cli('members', 'set-role', ...on, '--user', userId, '--role', 'editor'))).toEqual([entry('member.set-role', { userId })]);
  expect(await recorded(() => cli('members', 'remove', ...on, '--user', userId))).toEqual([entry('member.remove', { userId })]);
});

test("the API shows the same log, nothing left pending, every entry the operator's", async () => {
  const response = await api.send('GET', `/api/accounts/${ACCOUNT}/audit?actor=${OPERATOR}`, { as: owner });
  const entries = (response.body as { entries: AuditEntry[] }).entries;
  expect(entries.length).toBe(await logLength());
  expect(entries.filter((each) => String(each.outcome) === 'pending')).toEqual([]);
  expect(entries.every((each) => JSON.stringify(each.actor) === JSON.stringify(ACTOR))).toBe(true);
});

test('a change to an account that does not exist is refused at the door, and nothing is recorded anywhere', async () => {
  for (const argv of [
    ['keys', 'create', '--account', 'nobody'],
    ['prompts', 'label', '--account', 'nobody', '--prompt', 'p', '--label', 'production', '--version', '1.0.0'],
    ['prompts', 'publish', '--account', 'nobody', '--prompt', 'p', '--name', 'P', '--version', '1.0.0', ...contentOptions],
    ['accounts', 'set-plan', '--account', 'nobody', '--plan', 'pro'],
  ]) {
    const result = await api.cli(OPERATOR, ...argv);
    expect(result).toEqual({ code: 1, stdout: '', stderr: 'admin: account nobody does not exist\n' });
  }
  expect((await listAudit(api.table, 'nobody')).entries).toEqual([]);
});
