import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listAudit } from '../../lambda/table/audit-log';
import { keys } from '../../lambda/table/schema';
import { listChangeRequests } from '../../lambda/features/change-requests/change-requests';
import { prompt, version } from '../support/fixtures';
import { ManagementHarness, type Person } from '../support/management-harness';

/**
 * Issue 38, prompts as code under approvals (docs/prompts-as-code.md): `prompts push` opens a change request for
 * each label the account puts under approval instead of moving it (in the prompt's one transaction) and says so;
 * `prompts diff` counts a label awaiting exactly the file's move as pending, not drift; a second push leaves it be.
 */
const api = new ManagementHarness();
const OPERATOR = 'ci-bot';
const ACCOUNT = 'folders';
let owner: Person;
let approver: Person;
let dir: string;

beforeAll(async () => {
  await api.start();
  await api.fixtures.account(ACCOUNT, 'pro');
  await api.fixtures.prompts(
    ACCOUNT,
    prompt('welcome', [version('1.0.0')], { labels: { production: '1.0.0', staging: '1.0.0' } }),
    prompt('notice', [version('1.0.0'), version('1.1.0')], { labels: { production: '1.0.0' } }),
    prompt('renamed', [version('1.0.0'), version('1.1.0')], { labels: { production: '1.0.0' } }),
  );
  owner = await api.person('owner@folders.test', ACCOUNT, 'owner');
  approver = await api.person('approver@folders.test', ACCOUNT, 'admin');
  expect((await api.send('PATCH', `/api/accounts/${ACCOUNT}`, { as: owner, body: { approvals: { labels: ['production'] } } })).status).toBe(200);
  dir = await mkdtemp(join(tmpdir(), 'push-approvals-'));
  expect((await api.cli(OPERATOR, 'prompts', 'pull', '--account', ACCOUNT, '--dir', dir)).code).toBe(0);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await api.stop();
});

const cli = (...argv: string[]) => api.cli(OPERATOR, 'prompts', ...argv, '--account', ACCOUNT, '--dir', dir);
const labelsOf = async (promptId: string) =>
  (await api.send('GET', `/api/accounts/${ACCOUNT}/prompts/${promptId}`, { as: owner })).body as { labels: Record<string, string>; updatedBy: string | null };
const openOf = async (promptId: string) =>
  (await listChangeRequests(api.table, ACCOUNT, { state: 'open' })).requests.filter((request) => request.promptId === promptId);

async function edit(promptId: string, change: (text: string) => string): Promise<void> {
  const file = join(dir, `${promptId}.prompt.yaml`);
  await writeFile(file, change(await readFile(file, 'utf8')));
}

/** The welcome file at 1.1.0, with a new message, production and staging following it. */
const nextWelcome = (text: string) =>
  text
    .replace(/^version: .*$/m, 'version: 1.1.0')
    .replace(/Hello \$\{name\}, this is 1\.0\.0/, 'Hello ${name}, this is 1.1.0')
    .replace(/labels:\n(?:\s+.*\n)*/, 'labels:\n  production: 1.1.0\n  staging: 1.1.0\n');

test('a push publishes and moves the other labels, and opens a change request for production, reported as awaiting approval', async () => {
  await edit('welcome', nextWelcome);
  const pushed = await cli('push', '--note', 'From main');
  expect(pushed.code).toBe(0);
  const [request] = await openOf('welcome');
  expect(request).toMatchObject({ label: 'production', from: '1.0.0', to: '1.1.0', note: 'From main', requestedBy: `cli:${OPERATOR}`, state: 'open' });
  expect(pushed.stdout).toContain(`label production: awaiting approval: request ${request?.requestId}`);
  expect((await labelsOf('welcome')).labels).toEqual({ production: '1.0.0', staging: '1.1.0' });
  // One transaction, its steps each audited: the version, staging, and the request.
  const { entries } = await listAudit(api.table, ACCOUNT, { filter: { promptId: 'welcome' } });
  expect(entries.map((entry) => entry.action).sort()).toEqual(['label.set', 'request.open', 'version.publish']);
  expect(entries.every((entry) => entry.outcome === 'succeeded')).toBe(true);
});

test("diff then: the label awaiting the file's move is pending, not drift (exit 0); --json says so", async () => {
  const diff = await cli('diff');
  expect(diff.code).toBe(0);
  const [request] = await openOf('welcome');
  expect(diff.stdout).toContain(`welcome: label production to 1.1.0 awaiting approval: request ${request?.requestId}`);
  const json = JSON.parse((await cli('diff', '--json')).stdout) as { drift: boolean; pending: unknown[] };
  expect(json).toMatchObject({ drift: false, pending: [{ promptId: 'welcome', label: 'production', to: '1.1.0', requestId: request?.requestId }] });
});

test('a second push opens no second request, and changes nothing', async () => {
  const before = await listChangeRequests(api.table, ACCOUNT);
  const again = await cli('push', '--note', 'From main again');
  expect(again.code).toBe(0);
  expect(again.stdout).toContain('nothing to do: notice, renamed, welcome');
  expect((await listChangeRequests(api.table, ACCOUNT)).requests).toEqual(before.requests);
});

test('approved in the dashboard, the label moves; the folder and the account then agree', async () => {
  const [request] = await openOf('welcome');
  expect((await api.send('POST', `/api/accounts/${ACCOUNT}/requests/${request?.requestId}/approve`, { as: approver, body: {} })).status).toBe(200);
  expect((await labelsOf('welcome')).labels).toEqual({ production: '1.1.0', staging: '1.1.0' });
  const diff = JSON.parse((await cli('diff', '--json')).stdout) as { drift: boolean; pending: unknown[] };
  expect(diff).toMatchObject({ drift: false, pending: [] });
});

test("a push that only asks for a move opens the request and leaves the prompt's head as it was", async () => {
  const before = await labelsOf('notice');
  await edit('notice', (text) => text.replace(/labels:\n(?:\s+.*\n)*/, 'labels:\n  production: 1.1.0\n'));
  const pushed = await cli('push', '--note', 'Notice to 1.1.0');
  expect(pushed.code).toBe(0);
  expect(await labelsOf('notice')).toEqual(before);
  expect((await openOf('notice')).map(({ from, to }) => ({ from, to }))).toEqual([{ from: '1.0.0', to: '1.1.0' }]);
});

test('a label whose open request moves it elsewhere than the file: drift (exit 1), and the push of that prompt is refused naming the request, nothing of it changed; once closed, the removal is asked for', async () => {
  const [open] = await openOf('notice');
  await edit('notice', (text) => text.replace(/labels:\n(?:\s+.*\n)*/, 'labels: {}\n'));
  const diff = await cli('diff');
  expect(diff.code).toBe(1);
  expect(diff.stdout).toContain('remove label production (was 1.0.0)');
  const pushed = await cli('push', '--note', 'Drop production');
  expect(pushed.code).toBe(1);
  expect(pushed.stdout).toContain(`NOT changed notice: label production of prompt notice has an open change request, ${open?.requestId}`);
  expect((await openOf('notice')).map((request) => request.requestId)).toEqual([open?.requestId]);
  expect((await labelsOf('notice')).labels).toEqual({ production: '1.0.0' });

  // Once that request is closed (rejected), the push asks for the removal instead.
  expect((await api.send('POST', `/api/accounts/${ACCOUNT}/requests/${open?.requestId}/reject`, { as: approver, body: { comment: 'No' } })).status).toBe(200);
  expect((await cli('push', '--note', 'Drop production')).code).toBe(0);
  expect((await openOf('notice')).map(({ from, to }) => ({ from, to }))).toEqual([{ from: '1.0.0', to: null }]);
});

test("a push that renames a prompt and asks for its label's move brings the label item's copy of the name in step, the label left where it was", async () => {
  await edit('renamed', (text) =>
    text.replace(/^promptName: .*$/m, 'promptName: Renamed notice').replace(/labels:\n(?:\s+.*\n)*/, 'labels:\n  production: 1.1.0\n'),
  );
  expect((await cli('push', '--note', 'Rename')).code).toBe(0);
  const item = await api.table.get<{ promptName: string; labelled: { version: string } }>('test', keys.promptLabel(ACCOUNT, 'production', 'renamed'));
  expect(item).toMatchObject({ promptName: 'Renamed notice', labelled: { version: '1.0.0' } });
  expect((await openOf('renamed')).map(({ from, to }) => ({ from, to }))).toEqual([{ from: '1.0.0', to: '1.1.0' }]);
});
