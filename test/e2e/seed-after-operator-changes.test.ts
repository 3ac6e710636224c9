import { join } from 'node:path';
import { adminCli } from './support/admin-cli';
import { fetchApi } from './support/api-fetch';
import { StackSet, type StackProcess, temporaryFolder } from './support/processes';

/**
 * docs/cli.md's own example, then a restart: the start-up seed creates what is missing and never fights
 * what an operator did since (a draft published, a key revoked, a prompt deleted), so `npm start` starts.
 */

const DEMO_KEY = 'prs_demo_local_development_only';
const stacks = new StackSet();
let folder: { path: string; remove(): Promise<void> };
let stack: StackProcess;
const { admin } = adminCli(() => ({ DYNAMODB_ENDPOINT: stack.storeUrl, TABLE_NAME: 'prompts-local' }));

beforeAll(async () => {
  folder = await temporaryFolder('seed-after-operator-changes');
}, 30_000);

afterAll(async () => {
  await stacks.stopAll();
  await folder.remove();
});

const env = () => ({ DATA_DIR: join(folder.path, 'data') });
const latestOf = async (promptId: string) => fetchApi(`${stack.apiUrl}/prompts/${promptId}`, { headers: { Authorization: `Bearer ${DEMO_KEY}` } });

it('starts again after a published draft and a deleted prompt, and keeps both as the operator left them', async () => {
  stack = await stacks.start(env());
  const published = await admin('prompts', 'publish', '--account', 'acct_demo', '--prompt', 'welcome-email', '--version', '1.2.0');
  expect(published.code).toBe(0);
  expect((await admin('prompts', 'delete', '--account', 'acct_demo', '--prompt', 'support-reply')).code).toBe(0);
  await stacks.stopAll();

  stack = await stacks.start(env());
  expect(stack.output()).not.toMatch(/refused/);
  expect(((await (await latestOf('welcome-email')).json()) as { version: string }).version).toBe('1.2.0');
  expect((await latestOf('support-reply')).status).toBe(404);
}, 90_000);
