import { join } from 'node:path';
import { fetchApi } from './support/api-fetch';
import { StackSet, type StackProcess, temporaryFolder } from './support/processes';
import { adminCli } from './support/admin-cli';

/**
 * The admin CLI's key settings (scope, expiry, disable/enable, rotation) and its way back for deleted
 * prompts, as an operator runs them against a running local stack, checked through the API over HTTP.
 */

// Several CLI child processes per test: seconds each on a loaded machine.
jest.setTimeout(60_000);

const stacks = new StackSet();
let folder: { path: string; remove(): Promise<void> };
let stack: StackProcess;
let storeEnv: Record<string, string>;

beforeAll(async () => {
  folder = await temporaryFolder('admin-cli-keys-e2e');
  stack = await stacks.start({ DATA_DIR: join(folder.path, 'data'), SEED_FILE: '' });
  storeEnv = { DYNAMODB_ENDPOINT: stack.storeUrl, TABLE_NAME: 'prompts-local' };
  await adminJson('accounts', 'create', '--name', 'Keys Ltd', '--plan', 'free', '--id', 'keys');
  for (const promptId of ['welcome-email', 'web.banner', 'notes']) {
    await adminJson(
      'prompts',
      'publish',
      '--account',
      'keys',
      '--prompt',
      promptId,
      '--name',
      promptId,
      '--version',
      '1.0.0',
      '--system-message',
      'You are kind.',
      '--user-message',
      'Hi ${name}',
      '--model',
      'gpt-4o-mini',
      '--temperature',
      '0.2',
    );
  }
}, 90_000);

afterAll(async () => {
  await stacks.stopAll();
  await folder.remove();
});

const { admin, adminJson } = adminCli(() => storeEnv);

const status = async (apiKey: string, path: string) => (await fetchApi(`${stack.apiUrl}${path}`, { headers: { Authorization: `Bearer ${apiKey}` } })).status;

interface CreatedKey {
  apiKey: string;
  keyId: string;
}

it('keys create --scope limits a key to some prompts; keys set --scope none gives it the account back', async () => {
  const key = await adminJson<CreatedKey>('keys', 'create', '--account', 'keys', '--scope', 'welcome-email,web.*');
  expect(await status(key.apiKey, '/prompts/web.banner')).toBe(200);
  expect(await status(key.apiKey, '/prompts/notes')).toBe(404);
  await adminJson('keys', 'set', '--account', 'keys', '--key', key.keyId, '--scope', 'none');
  expect(await status(key.apiKey, '/prompts/notes')).toBe(200);
});

it('keys set --disable answers 401 from the next request, --enable brings the key back', async () => {
  const key = await adminJson<CreatedKey>('keys', 'create', '--account', 'keys');
  await adminJson('keys', 'set', '--account', 'keys', '--key', key.keyId, '--disable');
  expect(await status(key.apiKey, '/prompts/notes')).toBe(401);
  await adminJson('keys', 'set', '--account', 'keys', '--key', key.keyId, '--enable');
  expect(await status(key.apiKey, '/prompts/notes')).toBe(200);
});

it('keys create --expires in the past is refused by the API at once; keys list shows it expired', async () => {
  const key = await adminJson<CreatedKey>('keys', 'create', '--account', 'keys', '--expires', '2020-01-01T00:00:00Z');
  expect(await status(key.apiKey, '/prompts/notes')).toBe(401);
  const listed = await admin('keys', 'list', '--account', 'keys');
  expect(listed.stdout).toMatch(new RegExp(`${key.keyId}\\s+prs_\\S+\\s+expired\\s+5000 \\(free plan\\)\\s+all prompts\\s+2020-01-01T00:00:00.000Z`));
  expect(listed.stdout).toContain('SCOPE');
  expect(listed.stdout).not.toContain(key.apiKey);
});

it('keys rotate prints the new key once; both work in the grace period; --grace 0 revokes at once', async () => {
  const old = await adminJson<CreatedKey>('keys', 'create', '--account', 'keys', '--scope', 'web.*', '--monthly-limit', '9');
  const rotated = await admin('keys', 'rotate', '--account', 'keys', '--key', old.keyId);
  expect(rotated.code).toBe(0);
  const fresh = /^\s+(prs_\S+)$/m.exec(rotated.stdout)?.[1] ?? '';
  expect(rotated.stdout).toMatch(/replacing key_[0-9a-f]{16} \(works until \d{4}-/);
  expect(await status(old.apiKey, '/prompts/web.banner')).toBe(200);
  expect(await status(fresh, '/prompts/web.banner')).toBe(200);
  expect(await status(fresh, '/prompts/notes')).toBe(404);

  const next = await adminJson<CreatedKey & { retired: { state: string } }>('keys', 'rotate', '--account', 'keys', '--key', old.keyId, '--grace', '0');
  expect(next.retired.state).toBe('revoked');
  expect(await status(old.apiKey, '/prompts/web.banner')).toBe(401);
  expect(await status(next.apiKey, '/prompts/web.banner')).toBe(200);
});

it('bad key settings get a one-line reason and exit 2, before the store is touched', async () => {
  const cases: [string[], RegExp][] = [
    [['keys', 'create', '--account', 'keys', '--scope', 'bad id!'], /--scope entry "bad id!" must be a prompt id/],
    [['keys', 'create', '--account', 'keys', '--expires', 'tomorrow'], /--expires must be an instant/],
    [['keys', 'rotate', '--account', 'keys', '--key', 'key_0123456789abcdef', '--grace', 'soon'], /--grace must be a time/],
    [['keys', 'set', '--account', 'keys', '--key', 'key_0123456789abcdef'], /nothing to change/],
  ];
  for (const [args, reason] of cases) {
    const result = await admin(...args);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(reason);
  }
});

it('publishing to a deleted prompt is refused with the way back; prompts restore brings it back', async () => {
  const key = await adminJson<CreatedKey>('keys', 'create', '--account', 'keys');
  await adminJson('prompts', 'delete', '--account', 'keys', '--prompt', 'notes');
  expect(await status(key.apiKey, '/prompts/notes?version=1.0.0')).toBe(404);

  const refused = await admin(
    'prompts',
    'publish',
    '--account',
    'keys',
    '--prompt',
    'notes',
    '--version',
    '2.0.0',
    '--system-message',
    's',
    '--user-message',
    'u',
    '--model',
    'm',
    '--temperature',
    '0',
  );
  expect(refused.code).toBe(1);
  expect(refused.stderr.trim()).toBe('admin: prompt notes of account keys is deleted: restore it first (prompts restore --account keys --prompt notes)');

  const restored = await admin('prompts', 'restore', '--account', 'keys', '--prompt', 'notes');
  expect(restored.stdout.trim()).toBe('Restored prompt notes of account keys');
  expect(await status(key.apiKey, '/prompts/notes?version=1.0.0')).toBe(200);
});
