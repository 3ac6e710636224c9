import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fetchApi } from './support/api-fetch';
import { runNpm, runNpx, StackSet, type StackProcess, temporaryFolder } from './support/processes';
import { adminCli } from './support/admin-cli';

/**
 * An operator's day with the admin CLI, each step as they would type it (the CLI, npm and npx as child
 * processes) against a running local stack: no surprise from npm, errors that say what to fix, and the
 * commands one reaches for.
 */

jest.setTimeout(60_000);

const stacks = new StackSet();
let folder: { path: string; remove(): Promise<void> };
let stack: StackProcess;
let storeEnv: Record<string, string>;

const ACCOUNT = 'operator';
const API_KEY = 'prs_e2e_operator_day_key_0001';

const content = (userMessage: string) => ({
  systemMessage: 'You are terse.',
  userMessage,
  config: { model: 'gpt-4o-mini', temperature: 0.3, schema: [], inputData: null, inputDataRootName: null },
});

const version = (number: string, userMessage: string, published = true) => ({ version: number, published, ...content(userMessage) });

async function writeJson(name: string, value: unknown): Promise<string> {
  const path = join(folder.path, name);
  await writeFile(path, JSON.stringify(value, null, 2));
  return path;
}

const { admin, adminJson } = adminCli(() => storeEnv);

const getPrompt = (path: string) => fetchApi(`${stack.apiUrl}/prompts/${path}`, { headers: { Authorization: `Bearer ${API_KEY}` } });

beforeAll(async () => {
  folder = await temporaryFolder('admin-cli-operator-e2e');
  stack = await stacks.start({ DATA_DIR: join(folder.path, 'data'), SEED_FILE: '' });
  storeEnv = { DYNAMODB_ENDPOINT: stack.storeUrl, TABLE_NAME: 'prompts-local' };
  const seed = await writeJson('operator.json', {
    accounts: [
      {
        accountId: ACCOUNT,
        name: 'Operator Ltd',
        plan: 'free',
        keys: [{ apiKey: API_KEY }, { apiKey: 'prs_e2e_operator_day_key_0002', monthlyLimit: 7 }],
        prompts: [
          {
            promptId: 'greeting',
            promptName: 'Greeting',
            versions: [version('1.0.0', 'Hello ${name}'), version('1.1.0', 'Hi ${name}!'), version('1.1.1', 'Draft ${name}', false)],
          },
        ],
      },
    ],
  });
  const imported = await admin('prompts', 'import', seed);
  if (imported.code !== 0) throw new Error(`seeding failed: ${imported.stderr}`);
}, 60_000);

afterAll(async () => {
  await stacks.stopAll();
  await folder.remove();
});

describe('bad input gets a human answer', () => {
  it('refuses a negative --monthly-limit for its value, not as an "ambiguous" argument', async () => {
    const result = await admin('keys', 'create', '--account', ACCOUNT, '--monthly-limit', '-5');
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('admin: --monthly-limit must be a whole number of 0 or more\n');
  });

  it('answers a misspelt option with the nearest one', async () => {
    const result = await admin('keys', 'create', '--acount', ACCOUNT);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('admin: keys create: unknown option --acount: did you mean --account? (see --help)\n');
  });

  it('places a JSON syntax error at its file, line and column', async () => {
    const path = join(folder.path, 'broken.json');
    await writeFile(path, '{\n  "accounts": [\n    { "accountId": "x" "name": "X" }\n  ]\n}\n');

    const result = await admin('prompts', 'import', path);

    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `admin: ${path}: not valid JSON at line 3, column 24: unexpected """: expected "," or "}" after a property value (is a comma missing?)\n`,
    );
  });
});

describe('npm and npx', () => {
  it('refuses npm run admin without --, whose --dry-run npm kept, and writes nothing', async () => {
    const path = await writeJson('never-written.json', {
      accounts: [{ accountId: 'never-written', name: 'Never', plan: 'free' }],
    });

    const result = await runNpm(['run', 'admin', 'prompts', 'import', path, '--dry-run'], storeEnv);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'admin: npm kept --dry-run for itself, so nothing was done: run npm run admin -- prompts import ... ' +
        '(with the --), or prompts-admin prompts import ... where the CLI is installed\n',
    );
    expect((await admin('accounts', 'list')).stdout).not.toContain('never-written');
  });

  it('refuses npm run admin accounts list --json without --, rather than printing a table to a script', async () => {
    const result = await runNpm(['run', 'admin', 'accounts', 'list', '--json'], storeEnv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('admin: npm kept --json for itself, so nothing was done');
  });

  it("runs the clone's own prompts-admin through npx --no (which never fetches a package) with every option passed on", async () => {
    const result = await runNpx(['--no', '--', 'prompts-admin', 'accounts', 'list', '--json'], storeEnv);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ accountId: ACCOUNT })]));
  });

  it('takes --json anywhere on the line', async () => {
    const result = await admin('accounts', '--json', 'list');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ accountId: ACCOUNT })]));
  });
});

it('lists a folder import: the files it read, and what it skipped and why', async () => {
  const prompts = join(folder.path, 'prompts');
  await mkdir(join(prompts, 'old'), { recursive: true });
  await writeFile(join(prompts, 'a.json'), JSON.stringify({ accounts: [{ accountId: ACCOUNT, prompts: [] }] }));
  await writeFile(join(prompts, 'notes.txt'), 'not a seed');

  const result = await admin('prompts', 'import', prompts, '--dry-run');

  expect(result.code).toBe(0);
  expect(result.stdout).toContain(
    [
      'Read 1 file(s):',
      `  ${join(prompts, 'a.json')}`,
      'Skipped 2:',
      `  ${join(prompts, 'notes.txt')}: not a .json file`,
      `  ${join(prompts, 'old')}: a folder: folders inside are not read`,
    ].join('\n'),
  );
});

it('shows the limit in force in the LIMIT column of keys list, not "plan"', async () => {
  const result = await admin('keys', 'list', '--account', ACCOUNT);
  const limits = result.stdout
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => /\s(\d+ \([^)]*\))\s/.exec(line)?.[1])
    .sort();
  expect(limits).toEqual(['5000 (free plan)', '7 (own)']);
});

describe('prompts show', () => {
  it("prints the latest published version's content by default", async () => {
    const shown = await adminJson<Record<string, unknown>>('prompts', 'show', '--account', ACCOUNT, '--prompt', 'greeting');
    expect(shown).toMatchObject({ version: '1.1.0', published: true, latest: true, userMessage: 'Hi ${name}!' });
  });

  it('prints a draft when asked for it by version, marked as a draft', async () => {
    const result = await admin('prompts', 'show', '--account', ACCOUNT, '--prompt', 'greeting', '--version', '1.1.1');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('version 1.1.1 (draft)');
    expect(result.stdout).toContain('  Draft ${name}');
  });
});

describe('prompts rollback', () => {
  it('publishes the earlier content as the next free patch version, which the API serves as latest', async () => {
    const result = await adminJson<{ published: string }>('prompts', 'rollback', '--account', ACCOUNT, '--prompt', 'greeting', '--to', '1.0.0');

    // 1.1.1 is a stored draft: the rollback takes the next patch version that is free.
    expect(result.published).toBe('1.1.2');
    expect(await (await getPrompt('greeting')).json()).toMatchObject({ version: '1.1.2', userMessage: 'Hello ${name}' });
  });

  it('leaves the version rolled back from as it was for callers pinned to it', async () => {
    expect(await (await getPrompt('greeting?version=1.1.0')).json()).toMatchObject({ version: '1.1.0', userMessage: 'Hi ${name}!' });
  });

  it('changes nothing when run again', async () => {
    const again = await adminJson<{ outcome: string }>('prompts', 'rollback', '--account', ACCOUNT, '--prompt', 'greeting', '--to', '1.0.0');
    expect(again.outcome).toBe('unchanged');
    expect(await (await getPrompt('greeting')).json()).toMatchObject({ version: '1.1.2' });
  });

  it('refuses to roll back to a draft', async () => {
    const result = await admin('prompts', 'rollback', '--account', ACCOUNT, '--prompt', 'greeting', '--to', '1.1.1');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('admin: version 1.1.1 of prompt greeting is a draft, never served: roll back to a published version\n');
  });
});

it('usage --account gives every key of the account its count and limit', async () => {
  const keys = await adminJson<{ keyId: string; monthlyLimit?: number }[]>('keys', 'list', '--account', ACCOUNT);
  const used = await adminJson<{ keys: { keyId: string; used: number; limit: number }[] }>('usage', '--account', ACCOUNT);

  expect(used.keys.map((key) => key.keyId).sort()).toEqual(keys.map((key) => key.keyId).sort());
  expect(used.keys.map((key) => key.limit).sort((a, b) => a - b)).toEqual([7, 5000]);
  expect(used.keys.every((key) => Number.isInteger(key.used))).toBe(true);
});
