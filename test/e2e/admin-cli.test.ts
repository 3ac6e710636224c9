import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runAdmin, StackSet, type StackProcess, temporaryFolder } from './support/processes';
import { fetchApi } from './support/api-fetch';
import { adminCli } from './support/admin-cli';

/** The admin CLI as an operator runs it, against a running local stack, checked through the API over HTTP. */

const stacks = new StackSet();
let folder: { path: string; remove(): Promise<void> };
let stack: StackProcess;
let storeEnv: Record<string, string>;

beforeAll(async () => {
  folder = await temporaryFolder('admin-cli-e2e');
  // No seed: everything this file needs, it creates through the CLI.
  stack = await stacks.start({ DATA_DIR: join(folder.path, 'data'), SEED_FILE: '' });
  storeEnv = { DYNAMODB_ENDPOINT: stack.storeUrl, TABLE_NAME: 'prompts-local' };
}, 60_000);

afterAll(async () => {
  await stacks.stopAll();
  await folder.remove();
});

const { admin, adminJson } = adminCli(() => storeEnv);

const content = (userMessage: string) => ({
  systemMessage: 'You are terse.',
  userMessage,
  config: { model: 'gpt-4o-mini', temperature: 0.3, schema: [], inputData: null, inputDataRootName: null },
});

async function seedFile(name: string, seed: unknown): Promise<string> {
  const path = join(folder.path, name);
  await writeFile(path, JSON.stringify(seed));
  return path;
}

const getPrompt = (apiKey: string, promptId: string) => fetchApi(`${stack.apiUrl}/prompts/${promptId}`, { headers: { Authorization: `Bearer ${apiKey}` } });

it('round trip: create account, create key, import, GET through HTTP, revoke, then 401', async () => {
  const account = await adminJson<{ accountId: string; plan: string }>('accounts', 'create', '--name', 'Round Trip Ltd', '--plan', 'pro');
  expect(account.accountId).toMatch(/^acct_[0-9a-f]{16}$/);

  const key = await adminJson<{ apiKey: string; keyId: string }>('keys', 'create', '--account', account.accountId);
  expect(key.apiKey).toMatch(/^prs_/);

  const file = await seedFile('round-trip.json', {
    accounts: [
      {
        accountId: account.accountId,
        prompts: [{ promptId: 'greeting', promptName: 'Greeting', versions: [{ version: '1.0.0', published: true, ...content('Hi ${name}') }] }],
      },
    ],
  });
  expect((await admin('prompts', 'import', file)).code).toBe(0);

  const served = await getPrompt(key.apiKey, 'greeting');
  expect(served.status).toBe(200);
  expect(await served.json()).toMatchObject({ promptId: 'greeting', version: '1.0.0', userMessage: 'Hi ${name}' });
  expect(served.headers.get('x-ratelimit-limit')).toBe('50000');

  const usage = await adminJson<{ used: number; limit: number }>('usage', '--account', account.accountId, '--key', key.keyId);
  expect(usage).toMatchObject({ used: 1, limit: 50000 });

  expect((await admin('keys', 'revoke', '--account', account.accountId, '--key', key.keyId)).code).toBe(0);
  const refused = await getPrompt(key.apiKey, 'greeting');
  expect(refused.status).toBe(401);
  expect(await refused.json()).toEqual({ error: 'Invalid API key', code: 'UNAUTHORIZED' });
}, 60_000);

it('lists keys by id and prefix, never the key itself', async () => {
  const { accountId } = await adminJson<{ accountId: string }>('accounts', 'create', '--name', 'Lister', '--plan', 'free');
  const key = await adminJson<{ apiKey: string; keyId: string }>('keys', 'create', '--account', accountId, '--monthly-limit', '7');

  const listed = await admin('keys', 'list', '--account', accountId, '--json');

  expect(listed.stdout).not.toContain(key.apiKey);
  expect(JSON.parse(listed.stdout)).toEqual([
    expect.objectContaining({ keyId: key.keyId, displayPrefix: key.apiKey.slice(0, 8), status: 'active', monthlyLimit: 7 }),
  ]);
}, 60_000);

describe('an import that changes a published version', () => {
  let apiKey: string;

  beforeAll(async () => {
    apiKey = 'prs_e2e_immutable_check_key';
    const first = await seedFile('immutable-1.json', {
      accounts: [
        {
          accountId: 'immutable',
          name: 'Immutable',
          plan: 'free',
          keys: [{ apiKey }],
          prompts: [{ promptId: 'fixed', promptName: 'Fixed', versions: [{ version: '1.0.0', published: true, ...content('original') }] }],
        },
      ],
    });
    expect((await admin('prompts', 'import', first)).code).toBe(0);
  }, 60_000);

  it('is refused with a one-line reason, exit 1, and writes nothing of the file', async () => {
    const second = await seedFile('immutable-2.json', {
      accounts: [
        {
          accountId: 'immutable',
          prompts: [
            { promptId: 'added', promptName: 'Added', versions: [{ version: '1.0.0', published: true, ...content('new') }] },
            { promptId: 'fixed', promptName: 'Fixed', versions: [{ version: '1.0.0', published: true, ...content('changed') }] },
          ],
        },
      ],
    });

    const result = await admin('prompts', 'import', second);

    expect(result.code).toBe(1);
    expect(result.stderr).toBe('admin: version 1.0.0 of prompt fixed of account immutable is published and cannot change: publish a new version instead\n');
    expect(await (await getPrompt(apiKey, 'fixed')).json()).toMatchObject({ userMessage: 'original' });
    expect((await getPrompt(apiKey, 'added')).status).toBe(404);
  }, 60_000);

  it('is refused by prompts publish too, while a new version publishes and becomes the latest', async () => {
    const changed = await admin(
      'prompts',
      'publish',
      '--account',
      'immutable',
      '--prompt',
      'fixed',
      '--version',
      '1.0.0',
      '--system-message',
      'x',
      '--user-message',
      'changed',
      '--model',
      'gpt-4o-mini',
      '--temperature',
      '0.3',
    );
    expect(changed.code).toBe(1);

    const contentFile = await seedFile('fixed-1.1.0.json', content('newer'));
    const published = await admin('prompts', 'publish', '--account', 'immutable', '--prompt', 'fixed', '--version', '1.1.0', '--file', contentFile);
    expect(published.code).toBe(0);
    expect(await (await getPrompt(apiKey, 'fixed')).json()).toMatchObject({ version: '1.1.0', userMessage: 'newer' });
  }, 60_000);

  it('then deleting the prompt makes the API answer 404', async () => {
    expect((await admin('prompts', 'delete', '--account', 'immutable', '--prompt', 'fixed')).code).toBe(0);
    expect((await getPrompt(apiKey, 'fixed')).status).toBe(404);
  }, 60_000);
});

it('refuses a malformed seed file with exit 2 and the path of the bad field', async () => {
  const file = await seedFile('bad-version.json', {
    accounts: [
      {
        accountId: 'bad',
        name: 'Bad',
        plan: 'free',
        prompts: [{ promptId: 'p', promptName: 'P', versions: [{ version: '1.0', published: true, ...content('x') }] }],
      },
    ],
  });

  const result = await admin('prompts', 'import', file);

  expect(result.code).toBe(2);
  expect(result.stderr).toBe(`admin: ${file}: accounts[0].prompts[0].versions[0].version: must be MAJOR.MINOR.PATCH (digits, no leading zeros, e.g. 1.2.0)\n`);
  expect((await admin('accounts', 'list', '--json')).stdout).not.toContain('"bad"');
}, 60_000);

it('answers --help on a command with its usage and exit 0, without a store', async () => {
  const result = await runAdmin(['keys', 'create', '--help'], {});
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(
    /^Usage: prompts-admin keys create --account <accountId> \[--name <name>\] \[--monthly-limit <n>\] \[--scope <ids>\] \[--expires <when>\] \[--json\]/,
  );
}, 60_000);
