import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { runAdmin } from '../../admin/cli';
import { createPromptClient, type PromptSnapshot } from '../../client/src/index';
import { bucketOf } from '../../lambda/domain/rollout-bucket';
import { createDocumentClient } from '../../lambda/table/client';
import { temporaryFolder } from '../e2e/support/processes';
import { prompt, version } from '../support/fixtures';
import { labelRollout } from '../support/rollouts';
import { ClientStack } from './support/client-stack';

/** `prompts export` in the admin CLI: the client's snapshot format, written from the store at build time. */
const stack = new ClientStack();
let folder: Awaited<ReturnType<typeof temporaryFolder>>;

beforeAll(async () => {
  await stack.start();
  folder = await temporaryFolder('prompts-export');
  await stack.fixtures.account('acme');
  await stack.fixtures.prompts(
    'acme',
    prompt('welcome-email', [version('1.0.0'), version('1.1.0'), version('1.2.0', { published: false })], {
      labels: { production: '1.0.0', staging: '1.1.0' },
    }),
    prompt('gone', [version('1.0.0')], { labels: { production: '1.0.0' } }),
    prompt('summary', [version('2.0.0', { userMessage: 'Summarize ${ticket}' })]),
  );
  await stack.fixtures.admin.deletePrompt('acme', 'gone');
  await stack.fixtures.account('other');
  await stack.fixtures.prompts('other', prompt('not-ours', [version('1.0.0')]));
}, 60_000);
afterAll(async () => {
  await stack.remove();
  await folder.remove();
});

async function admin(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const env = { DYNAMODB_ENDPOINT: stack.storeEndpoint, TABLE_NAME: stack.tableName, AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' };
  const code = await runAdmin(argv, env, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) }, () => new Date('2026-11-22T12:00:00Z'));
  return { code, stdout, stderr };
}

/** A URL where nothing listens: the API as an app sees it during an outage. */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

test("prompts export writes every prompt the API serves at its latest version and every other published version, in the client's snapshot format", async () => {
  const out = join(folder.path, 'nested', 'prompts.snapshot.json');

  const result = await admin('prompts', 'export', '--account', 'acme', '--out', out);

  expect(result).toEqual({
    code: 0,
    stdout: `Wrote ${out}: 2 prompt(s) of account acme at their latest version, and 1 other published version(s); 2 label(s)\n`,
    stderr: '',
  });
  const snapshot = JSON.parse(await readFile(out, 'utf8')) as PromptSnapshot;
  expect(snapshot).toMatchObject({ format: 'prompt-retrieval-snapshot', formatVersion: 1, createdAt: '2026-11-22T12:00:00.000Z' });
  expect(snapshot.prompts.map((p) => `${p.promptId} ${p.version}`)).toEqual(['summary 2.0.0', 'welcome-email 1.1.0']);
  expect(snapshot.versions.map((p) => `${p.promptId} ${p.version}`)).toEqual(['welcome-email 1.0.0']);
  // The deleted prompt's label is left out with the prompt.
  expect(snapshot.labels).toEqual({ production: { 'welcome-email': '1.0.0' }, staging: { 'welcome-email': '1.1.0' } });
});

test('a client given the exported snapshot resolves labels when the API cannot be reached', async () => {
  const out = join(folder.path, 'labelled.json');
  await admin('prompts', 'export', '--account', 'acme', '--out', out);
  const prompts = createPromptClient({ baseUrl: await deadUrl(), apiKey: 'prs_any_key_the_app_holds_0000', snapshot: await readFile(out, 'utf8') });

  expect(await prompts.get('welcome-email', { label: 'production' })).toMatchObject({ version: '1.0.0', source: 'snapshot' });
  expect(await prompts.get('welcome-email', { label: 'staging' })).toMatchObject({ version: '1.1.0', source: 'snapshot' });
  expect((await prompts.list({ label: 'production' })).map((p) => `${p.promptId} ${p.version}`)).toEqual(['welcome-email 1.0.0']);
  await expect(prompts.get('welcome-email', { label: 'canary' })).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
});

test('a client given the exported snapshot serves it, latest and pinned, when the API cannot be reached', async () => {
  const out = join(folder.path, 'bundled.json');
  await admin('prompts', 'export', '--account', 'acme', '--out', out);
  const prompts = createPromptClient({ baseUrl: await deadUrl(), apiKey: 'prs_any_key_the_app_holds_0000', snapshot: await readFile(out, 'utf8') });

  const summary = await prompts.get('summary');
  const pinned = await prompts.get('welcome-email', { version: '1.0.0' });

  expect(summary).toMatchObject({ version: '2.0.0', source: 'snapshot', variables: ['ticket'] });
  expect(summary.compile({ ticket: 'T-1' }).userMessage).toBe('Summarize T-1');
  expect(pinned).toMatchObject({ version: '1.0.0', source: 'snapshot' });
});

test('prompts export keeps a rolling-out label at from, with the rollout, so an offline client keeps each subject on its side', async () => {
  await stack.fixtures.account('rolling');
  await stack.fixtures.prompts('rolling', prompt('welcome-email', [version('1.0.0'), version('2.0.0')], { labels: { production: '1.0.0' } }));
  const store = createDocumentClient({ region: 'us-east-1', endpoint: stack.storeEndpoint });
  let rolloutId: string;
  try {
    ({ rolloutId } = await labelRollout(
      { client: store, tableName: stack.tableName },
      { accountId: 'rolling', promptId: 'welcome-email', label: 'production' },
    ).start({ to: '2.0.0', percent: 40 }));
  } finally {
    store.destroy();
  }
  const out = join(folder.path, 'rolling.json');

  await admin('prompts', 'export', '--account', 'rolling', '--out', out);

  const snapshot = JSON.parse(await readFile(out, 'utf8')) as PromptSnapshot;
  expect(snapshot.labels).toEqual({ production: { 'welcome-email': '1.0.0' } });
  expect(snapshot.rollouts).toEqual({ production: { 'welcome-email': { rolloutId, percent: 40, from: '1.0.0', to: '2.0.0' } } });
  const prompts = createPromptClient({ baseUrl: await deadUrl(), apiKey: 'prs_any_key_the_app_holds_0000', snapshot });
  const subjects = Array.from({ length: 100 }, (_, n) => `user-${n}`);
  const got = [];
  for (const subject of subjects) got.push((await prompts.get('welcome-email', { label: 'production', subject })).version);
  expect(got).toEqual(subjects.map((subject) => (bucketOf(rolloutId, subject) < 40 ? '2.0.0' : '1.0.0')));
});

test('prompts export of an account that does not exist exits 1 with one line and writes nothing', async () => {
  const out = join(folder.path, 'never.json');

  const result = await admin('prompts', 'export', '--account', 'nobody', '--out', out);

  expect(result).toEqual({ code: 1, stdout: '', stderr: 'admin: account nobody does not exist\n' });
  await expect(readFile(out)).rejects.toMatchObject({ code: 'ENOENT' });
});

test('prompts export without --out exits 2 before touching the store', async () => {
  expect(await admin('prompts', 'export', '--account', 'acme')).toEqual({ code: 2, stdout: '', stderr: 'admin: --out is required\n' });
});
