import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { adminCli } from './support/admin-cli';
import { fetchApi } from './support/api-fetch';
import { StackSet, type StackProcess, temporaryFolder } from './support/processes';

/**
 * docs/cli.md "Labels": promoting and rolling back with the admin CLI as a child process, against a running
 * local stack whose API serves `?label=` from the next request.
 */

jest.setTimeout(60_000);

const stacks = new StackSet();
let folder: { path: string; remove(): Promise<void> };
let stack: StackProcess;
let storeEnv: Record<string, string>;

const ACCOUNT = 'labels';
const API_KEY = 'prs_e2e_labels_day_key_00001';

const version = (number: string, published = true) => ({
  version: number,
  published,
  systemMessage: 'You are terse.',
  userMessage: `Hello \${name}, from ${number}`,
  config: { model: 'gpt-4o-mini', temperature: 0.3 },
});

const { admin, adminJson } = adminCli(() => storeEnv);

const atLabel = async (label: string) => {
  const response = await fetchApi(`${stack.apiUrl}/prompts/greeting?label=${label}`, { headers: { Authorization: `Bearer ${API_KEY}` } });
  const body = (await response.json()) as { version?: string; code?: string };
  return response.status === 200 ? body.version : body.code;
};

beforeAll(async () => {
  folder = await temporaryFolder('admin-cli-labels-e2e');
  stack = await stacks.start({ DATA_DIR: join(folder.path, 'data'), SEED_FILE: '' });
  storeEnv = { DYNAMODB_ENDPOINT: stack.storeUrl, TABLE_NAME: 'prompts-local' };
  const seed = join(folder.path, 'labels.json');
  await writeFile(
    seed,
    JSON.stringify({
      accounts: [
        {
          accountId: ACCOUNT,
          name: 'Labels Ltd',
          plan: 'free',
          keys: [{ apiKey: API_KEY }],
          prompts: [
            {
              promptId: 'greeting',
              promptName: 'Greeting',
              versions: [version('1.0.0'), version('1.1.0'), version('1.2.0'), version('1.3.0', false)],
              labels: { production: '1.0.0', staging: '1.1.0' },
            },
          ],
        },
      ],
    }),
  );
  const imported = await admin('prompts', 'import', seed);
  if (imported.code !== 0) throw new Error(`seeding failed: ${imported.stderr}`);
  expect(imported.stdout).toContain('labels 2 created, 0 updated, 0 unchanged');
}, 60_000);

afterAll(async () => {
  await stacks.stopAll();
  await folder.remove();
});

test('the seed set the labels, and importing it again changes nothing', async () => {
  expect(await atLabel('production')).toBe('1.0.0');
  expect(await atLabel('staging')).toBe('1.1.0');
  const again = await admin('prompts', 'import', join(folder.path, 'labels.json'));
  expect(again.stdout).toContain('labels 0 created, 0 updated, 2 unchanged');
});

test('promote: staging moves to a new version, then production follows it; each applies from the next request', async () => {
  const staged = await admin('prompts', 'label', '--account', ACCOUNT, '--prompt', 'greeting', '--label', 'staging', '--version', '1.2.0');
  expect(staged).toMatchObject({ code: 0, stdout: 'Moved label staging of prompt greeting (account labels) from 1.1.0 to 1.2.0\n' });
  expect(await atLabel('staging')).toBe('1.2.0');
  expect(await atLabel('production')).toBe('1.0.0');

  const promoted = await adminJson<Record<string, unknown>>(
    'prompts',
    'label',
    '--account',
    ACCOUNT,
    '--prompt',
    'greeting',
    '--label',
    'production',
    '--version',
    '1.2.0',
  );
  expect(promoted).toEqual({ accountId: ACCOUNT, promptId: 'greeting', label: 'production', previousVersion: '1.0.0', version: '1.2.0', changed: true });
  expect(await atLabel('production')).toBe('1.2.0');
});

test('roll back: production moves back to the version it pointed at before', async () => {
  const back = await admin('prompts', 'label', '--account', ACCOUNT, '--prompt', 'greeting', '--label', 'production', '--version', '1.0.0');
  expect(back.stdout).toBe('Moved label production of prompt greeting (account labels) from 1.2.0 to 1.0.0\n');
  expect(await atLabel('production')).toBe('1.0.0');
  const again = await admin('prompts', 'label', '--account', ACCOUNT, '--prompt', 'greeting', '--label', 'production', '--version', '1.0.0');
  expect(again.stdout).toBe('Label production of prompt greeting already points at 1.0.0: nothing changed\n');
});

test('prompts list and prompts show show the labels', async () => {
  const list = await admin('prompts', 'list', '--account', ACCOUNT);
  expect(list.stdout.split('\n')[0]).toMatch(/^PROMPT\s+STATE\s+LATEST\s+LABELS\s+VERSIONS\s+NAME$/);
  expect(list.stdout).toContain('production=1.0.0, staging=1.2.0');
  const listed = await adminJson<{ promptId: string; labels: Record<string, string> }[]>('prompts', 'list', '--account', ACCOUNT);
  expect(listed[0]?.labels).toEqual({ production: '1.0.0', staging: '1.2.0' });

  const show = await admin('prompts', 'show', '--account', ACCOUNT, '--prompt', 'greeting', '--version', '1.2.0');
  expect(show.stdout).toContain('version 1.2.0 (published, latest, staging)');
  expect(show.stdout).toContain('Labels: production=1.0.0, staging=1.2.0');
  const atProduction = await adminJson<{ version: string; labelsHere: string[] }>(
    'prompts',
    'show',
    '--account',
    ACCOUNT,
    '--prompt',
    'greeting',
    '--label',
    'production',
  );
  expect(atProduction).toMatchObject({ version: '1.0.0', labelsHere: ['production'] });
});

test('prompts rollback publishes a new latest and leaves every label where it was', async () => {
  const rolled = await adminJson<{ published: string }>('prompts', 'rollback', '--account', ACCOUNT, '--prompt', 'greeting', '--to', '1.1.0');
  expect(rolled.published).toBe('1.2.1');
  expect(await atLabel('latest')).toBe('1.2.1');
  expect(await atLabel('production')).toBe('1.0.0');
  expect(await atLabel('staging')).toBe('1.2.0');
});

test('unlabel removes a label: 404 LABEL_NOT_FOUND from the next request; a second time changes nothing', async () => {
  const removed = await admin('prompts', 'unlabel', '--account', ACCOUNT, '--prompt', 'greeting', '--label', 'staging');
  expect(removed).toMatchObject({ code: 0, stdout: 'Removed label staging (was 1.2.0) from prompt greeting of account labels\n' });
  expect(await atLabel('staging')).toBe('LABEL_NOT_FOUND');
  const again = await admin('prompts', 'unlabel', '--account', ACCOUNT, '--prompt', 'greeting', '--label', 'staging');
  expect(again).toMatchObject({ code: 0, stdout: 'Prompt greeting has no label staging: nothing changed\n' });
});

describe('refusals say what to fix', () => {
  test('a label on a draft: exit 1, the version named as a draft', async () => {
    const result = await admin('prompts', 'label', '--account', ACCOUNT, '--prompt', 'greeting', '--label', 'production', '--version', '1.3.0');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('admin: version 1.3.0 of prompt greeting (account labels) is a draft: only a published version can be labelled\n');
    expect(await atLabel('production')).toBe('1.0.0');
  });

  test('a malformed or reserved name: exit 2, the rule named', async () => {
    for (const name of ['latest', 'Production']) {
      const result = await admin('prompts', 'label', '--account', ACCOUNT, '--prompt', 'greeting', '--label', name, '--version', '1.0.0');
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        'admin: --label must be 1 to 32 characters of a-z, 0-9, "-" or "_", starting with a letter; "latest" is reserved for the highest published version\n',
      );
    }
  });

  test('a prompt that does not exist: exit 1', async () => {
    const result = await admin('prompts', 'unlabel', '--account', ACCOUNT, '--prompt', 'nope', '--label', 'production');
    expect(result).toMatchObject({ code: 1, stderr: 'admin: account labels has no prompt nope\n' });
  });

  test('a seed label on a version the store has not published: exit 1, the file and the field named, nothing written', async () => {
    const file = join(folder.path, 'bad-label.json');
    await writeFile(file, JSON.stringify({ accounts: [{ accountId: ACCOUNT, prompts: [{ promptId: 'greeting', labels: { canary: '9.9.9' } }] }] }));
    const result = await admin('prompts', 'import', file);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `admin: ${file}: accounts[0].prompts[0].labels.canary: version 9.9.9 of prompt greeting is not a stored version: only a published version can be labelled\n`,
    );
    expect(await atLabel('canary')).toBe('LABEL_NOT_FOUND');
  });
});
