import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { signIn } from '../support/oauth-sign-in';
import { adminCli } from './support/admin-cli';
import { type StackProcess, StackSet, temporaryFolder } from './support/processes';

/**
 * docs/prompts-as-code.md: `prompts pull`, `push` and `diff` of the admin CLI as a child process against
 * `npm start`'s store, with the dashboard's own API (signed in as the demo user) making changes beside them,
 * and the read API serving what a push published.
 */

jest.setTimeout(120_000);

const ACCOUNT = 'acct_demo';
const DEMO_KEY = 'prs_demo_local_development_only';
const stacks = new StackSet();
let folder: { path: string; remove(): Promise<void> };
let stack: StackProcess;
let idToken: string;
const { admin, adminJson } = adminCli(() => ({ DYNAMODB_ENDPOINT: stack.storeUrl, TABLE_NAME: 'prompts-local', PROMPTS_ADMIN_ACTOR: 'ci-bot' }));

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${stack.dashboardUrl}/api/accounts/${ACCOUNT}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${idToken}`, 'Content-Type': 'application/json', ...init.headers },
  });

async function served(promptId: string, query = ''): Promise<{ version: string; userMessage: string; promptName: string }> {
  const response = await fetch(`${stack.apiUrl}/prompts/${promptId}${query}`, { headers: { Authorization: `Bearer ${DEMO_KEY}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as { version: string; userMessage: string; promptName: string };
}

async function newFolder(): Promise<string> {
  return mkdtemp(join(folder.path, 'prompts-'));
}

const fileOf = (dir: string, promptId: string) => join(dir, `${promptId}.prompt.yaml`);

async function editFile(dir: string, promptId: string, edit: (text: string) => string): Promise<void> {
  const path = fileOf(dir, promptId);
  await writeFile(path, edit(await readFile(path, 'utf8')));
}

async function pulled(): Promise<string> {
  const dir = await newFolder();
  await adminJson('prompts', 'pull', '--account', ACCOUNT, '--dir', dir);
  return dir;
}

beforeAll(async () => {
  folder = await temporaryFolder('prompts-as-code');
  stack = await stacks.start({ DATA_DIR: join(folder.path, 'data') });
  const printed = /Sign in as (\S+) with password (\S+)/.exec(stack.output());
  const config = (await (await fetch(`${stack.dashboardUrl}/config.json`)).json()) as { authorizeUrl: string; tokenUrl: string; clientId: string };
  idToken = await signIn({ ...config, redirectUri: `${stack.dashboardUrl}/` }, printed?.[1] ?? '', printed?.[2] ?? '');
}, 90_000);

afterAll(async () => {
  await stacks.stopAll();
  await folder?.remove();
});

describe('prompts pull', () => {
  test('writes one <promptId>.prompt.yaml per served prompt, at its latest, with labels, multi-line messages as block scalars', async () => {
    const dir = await pulled();
    expect((await readdir(dir)).sort()).toEqual(['product-description.prompt.yaml', 'support-reply.prompt.yaml', 'welcome-email.prompt.yaml']);
    const text = await readFile(fileOf(dir, 'welcome-email'), 'utf8');
    const file = parse(text) as { version: string; labels: Record<string, string>; userMessage: string };
    const latest = await served('welcome-email');
    expect(file).toMatchObject({ version: latest.version, userMessage: latest.userMessage, labels: { production: '1.0.0', staging: '1.1.0' } });
  });

  test('pulling twice changes no byte', async () => {
    const dir = await pulled();
    const before = await Promise.all((await readdir(dir)).map((name) => readFile(join(dir, name))));
    const again = await adminJson<{ written: string[] }>('prompts', 'pull', '--account', ACCOUNT, '--dir', dir);
    expect(again.written).toEqual([]);
    const after = await Promise.all((await readdir(dir)).map((name) => readFile(join(dir, name))));
    expect(after).toEqual(before);
  });

  test('then push is a no-op, and diff finds no drift (exit 0)', async () => {
    const dir = await pulled();
    const pushed = await adminJson<{ outcomes: unknown[]; unchanged: string[] }>('prompts', 'push', '--account', ACCOUNT, '--dir', dir, '--note', 'nothing');
    expect(pushed.outcomes).toEqual([]);
    expect(pushed.unchanged).toHaveLength(3);
    const diff = await admin('prompts', 'diff', '--account', ACCOUNT, '--dir', dir);
    expect([diff.code, diff.stdout]).toEqual([0, expect.stringContaining('No drift')]);
  });
});

describe('the whole cycle', () => {
  test('edit, dry run (a line diff, nothing changed), push (served from the next request, audited as the operator), diff clean, a dashboard change seen as drift', async () => {
    const dir = await pulled();
    const before = await served('welcome-email');
    const next = before.version.replace(/\.(\d+)$/, (_all, patch: string) => `.${Number(patch) + 1}`);
    await editFile(dir, 'welcome-email', (text) =>
      text
        .replace(`version: ${before.version}`, `version: ${next}`)
        .replace('labels:', `labels:\n  canary: ${next}`)
        .replace('Write a welcome email', 'Write a short welcome email'),
    );

    const dry = await admin('prompts', 'push', '--account', ACCOUNT, '--dir', dir, '--note', 'shorter', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`publish ${next}`);
    expect(dry.stdout).toMatch(
      new RegExp(`^\\s+--- welcome-email@${before.version} \\(served\\)\\n\\s+\\+\\+\\+ welcome-email\\.prompt\\.yaml@${next}\\n\\s+@@ `, 'm'),
    );
    expect(dry.stdout).toMatch(/^\s+-Write a welcome email/m);
    expect(dry.stdout).toMatch(/^\s+\+Write a short welcome email/m);
    expect(dry.stdout).toContain(`set label canary to ${next}`);
    expect((await served('welcome-email')).version).toBe(before.version);

    const pushed = await admin('prompts', 'push', '--account', ACCOUNT, '--dir', dir, '--note', 'shorter');
    expect(pushed.code).toBe(0);
    expect(pushed.stdout).toContain(`  changed welcome-email\n    published ${next}\n    label canary: set to ${next}\n`);
    const after = await served('welcome-email');
    expect(after.version).toBe(next);
    expect(after.userMessage).toContain('Write a short welcome email');
    expect((await served('welcome-email', '?label=canary')).version).toBe(next);

    const audit = (await (await api('/audit?prompt=welcome-email')).json()) as { entries: { action: string; actor: { type: string; operator?: string } }[] };
    expect(audit.entries.find((entry) => entry.action === 'version.publish')?.actor).toMatchObject({ type: 'cli', operator: 'ci-bot' });

    const clean = await admin('prompts', 'diff', '--account', ACCOUNT, '--dir', dir);
    expect(clean.code).toBe(0);
    const again = await adminJson<{ outcomes: unknown[] }>('prompts', 'push', '--account', ACCOUNT, '--dir', dir, '--note', 'again');
    expect(again.outcomes).toEqual([]);

    const renamed = await api('/prompts/welcome-email', { method: 'PATCH', body: JSON.stringify({ promptName: 'Welcome (renamed in the dashboard)' }) });
    expect(renamed.status).toBe(200);
    const drift = await admin('prompts', 'diff', '--account', ACCOUNT, '--dir', dir, '--json');
    expect(drift.code).toBe(1);
    expect(JSON.parse(drift.stdout)).toMatchObject({ drift: true, changed: ['welcome-email'] });
  });
});

describe('files refused, and nothing changed', () => {
  async function refusedPush(dir: string): Promise<{ code: number | null; stderr: string }> {
    const servedBefore = await Promise.all(['welcome-email', 'support-reply', 'product-description'].map((id) => served(id)));
    const result = await admin('prompts', 'push', '--account', ACCOUNT, '--dir', dir, '--note', 'refused');
    const servedAfter = await Promise.all(['welcome-email', 'support-reply', 'product-description'].map((id) => served(id)));
    expect(servedAfter).toEqual(servedBefore);
    return result;
  }

  test.each([
    ['YAML that does not parse', (text: string) => `${text}\nconfig: [unclosed\n`, /welcome-email\.prompt\.yaml:\d+:9: not valid YAML/],
    ['a wrong type', (text: string) => text.replace(/temperature: [\d.]+/, 'temperature: hot'), /welcome-email\.prompt\.yaml:\d+:16: config\.temperature: /],
    ['an unknown field', (text: string) => `${text}owner: someone\n`, /welcome-email\.prompt\.yaml:\d+:1: owner: unknown field/],
    [
      'an id that differs from the file name',
      (text: string) => `promptId: other-prompt\n${text}`,
      /welcome-email\.prompt\.yaml:1:11: promptId: .*file is named for welcome-email/,
    ],
    [
      'a file named .prompt.yml beside it',
      (text: string) => text,
      /support\.prompt\.yml: not read: a prompt file's name ends in \.prompt\.yaml \(rename it support\.prompt\.yaml\)/,
    ],
  ])('%s: exit 2 naming the file, the line and the field', async (what, edit, message) => {
    const dir = await pulled();
    // Another file with a real change: it is not pushed either.
    await editFile(dir, 'support-reply', (text) => text.replace(/version: (\d+)\.(\d+)\.(\d+)/, (_all, a, b) => `version: ${a}.${Number(b) + 1}.0`));
    await editFile(dir, 'welcome-email', edit);
    if (what.includes('.prompt.yml')) await writeFile(join(dir, 'support.prompt.yml'), await readFile(fileOf(dir, 'support-reply'), 'utf8'));
    const result = await refusedPush(dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  test('every problem of a file is listed at once, each at its line and column, with the line shown', async () => {
    const dir = await pulled();
    await editFile(dir, 'welcome-email', (text) => `${text.replace(/temperature: [\d.]+/, 'temperature: 7')}owner: someone\n`);
    const lines = (await readFile(fileOf(dir, 'welcome-email'), 'utf8')).split('\n');
    const temperature = lines.findIndex((each) => each.includes('temperature: 7')) + 1;
    const result = await refusedPush(dir);
    expect(result.stderr).toContain(
      `welcome-email.prompt.yaml:${temperature}:16: config.temperature: must be between 0 and 2\n  ${temperature} |   temperature: 7\n`,
    );
    expect(result.stderr).toContain(`welcome-email.prompt.yaml:${lines.indexOf('owner: someone') + 1}:1: owner: unknown field`);
  });

  test("the line named is the field's own", async () => {
    const dir = await pulled();
    await editFile(dir, 'welcome-email', (text) => text.replace(/temperature: [\d.]+/, 'temperature: 7'));
    const text = await readFile(fileOf(dir, 'welcome-email'), 'utf8');
    const line = text.split('\n').findIndex((each) => each.includes('temperature: 7')) + 1;
    const result = await refusedPush(dir);
    expect(result.stderr).toContain(`welcome-email.prompt.yaml:${line}:16: config.temperature`);
  });

  test('a version below the served latest is refused, naming it', async () => {
    const dir = await pulled();
    await editFile(dir, 'support-reply', (text) => text.replace(/version: [\d.]+/, 'version: 0.0.1'));
    const result = await refusedPush(dir);
    expect([result.code, result.stderr]).toEqual([2, expect.stringContaining('support-reply.prompt.yaml names version 0.0.1, below')]);
  });

  test('a file that changes a published version is refused, naming it', async () => {
    const dir = await pulled();
    await editFile(dir, 'product-description', (text) => text.replace(/userMessage: /, 'userMessage: Changed. '));
    const result = await refusedPush(dir);
    expect([result.code, result.stderr]).toEqual([2, expect.stringContaining('product-description.prompt.yaml changes published version')]);
  });
});

test('a push never deletes: a prompt served but not in the folder is reported and stays served', async () => {
  const dir = await pulled();
  const { rm } = await import('node:fs/promises');
  await rm(fileOf(dir, 'product-description'));
  const pushed = await adminJson<{ orphans: string[] }>('prompts', 'push', '--account', ACCOUNT, '--dir', dir, '--note', 'orphan');
  expect(pushed.orphans).toEqual(['product-description']);
  expect((await served('product-description')).version).toBeDefined();
  const diff = await admin('prompts', 'diff', '--account', ACCOUNT, '--dir', dir, '--json');
  expect([diff.code, JSON.parse(diff.stdout).orphans]).toEqual([1, ['product-description']]);
});

test('a dashboard publish of the same version during a push: the prompt ends whole, as one side wrote it, never a mix', async () => {
  const dir = await pulled();
  const latest = await served('support-reply');
  const next = latest.version.replace(/^(\d+)\.(\d+)\.(\d+)$/, (_all, a: string, b: string) => `${a}.${Number(b) + 1}.0`);
  await editFile(dir, 'support-reply', (text) => {
    const file = parse(text) as { version: string; userMessage: string };
    return stringify({ ...file, version: next, userMessage: `From the folder. ${file.userMessage}` });
  });
  const content = { systemMessage: 'From the dashboard.', userMessage: 'From the dashboard ${name}', config: { model: 'gpt-4o-mini', temperature: 0.5 } };
  const dashboard = (async () => {
    const draft = await api(`/prompts/support-reply/versions/${next}`, { method: 'PUT', headers: { 'If-None-Match': '*' }, body: JSON.stringify(content) });
    if (draft.status !== 201) return draft.status;
    const etag = draft.headers.get('etag') ?? '';
    return (
      await api(`/prompts/support-reply/versions/${next}/publish`, {
        method: 'POST',
        headers: { 'If-Match': etag },
        body: JSON.stringify({ note: 'dashboard' }),
      })
    ).status;
  })();
  const [pushed] = await Promise.all([admin('prompts', 'push', '--account', ACCOUNT, '--dir', dir, '--note', 'race'), dashboard]);
  const now = await served('support-reply');
  expect(now.version).toBe(next);
  const fromFolder = now.userMessage.startsWith('From the folder.');
  const fromDashboard = now.userMessage.startsWith('From the dashboard');
  expect(fromFolder !== fromDashboard).toBe(true);
  if (fromFolder) expect(pushed.stdout).toContain('changed support-reply');
  // The dashboard first: refused before anything changed (the version is published), or undone at the draft.
  else expect(`${pushed.stdout}${pushed.stderr}`).toMatch(/NOT changed support-reply|support-reply\.prompt\.yaml (changes published version|names version)/);
});

describe('in CI: diff --report, check', () => {
  test("diff --report appends the drift as Markdown (the pull request's change, a unified diff) and exits 0 on drift", async () => {
    const dir = await pulled();
    await editFile(dir, 'support-reply', (text) =>
      text.replace(/version: (\d+)\.(\d+)\.(\d+)/, (_all, a, b) => `version: ${a}.${Number(b) + 1}.0`).replace(/userMessage: /, 'userMessage: Briefly. '),
    );
    const summary = join(dir, '..', `summary-${Date.now()}.md`);
    await writeFile(summary, '# Earlier steps\n');

    const result = await admin('prompts', 'diff', '--account', ACCOUNT, '--dir', dir, '--report', summary);

    expect(result.code).toBe(0);
    const markdown = await readFile(summary, 'utf8');
    expect(markdown).toMatch(/^# Earlier steps\n## Prompts: .* against account acct_demo\n/);
    expect(markdown).toContain('**1 prompt(s) change when this is pushed**');
    expect(markdown).toMatch(
      /### `support-reply`\n\n- publish \d+\.\d+\.0\n\n```diff\n--- support-reply@[\d.]+ \(served\)\n\+\+\+ support-reply\.prompt\.yaml@/,
    );
  });

  test('diff --report exits 2 on a file a push would refuse, and 2 on a bad file, which it reports too', async () => {
    const dir = await pulled();
    await editFile(dir, 'support-reply', (text) => text.replace(/version: [\d.]+/, 'version: 0.0.1'));
    expect((await admin('prompts', 'diff', '--account', ACCOUNT, '--dir', dir, '--report', '-')).code).toBe(2);

    await editFile(dir, 'welcome-email', (text) => text.replace(/temperature: [\d.]+/, 'temperature: hot'));
    const summary = join(dir, '..', `summary-${Date.now()}.md`);
    const result = await admin('prompts', 'diff', '--account', ACCOUNT, '--dir', dir, '--report', summary);
    expect(result.code).toBe(2);
    expect(await readFile(summary, 'utf8')).toMatch(
      /\*\*Bad files: nothing can be pushed until they are fixed\.\*\*\n\n```\n.*welcome-email\.prompt\.yaml:\d+:16: config\.temperature: must be a number/,
    );
  });

  test('prompts check reads the folder without any store or account: 0 when good, 2 listing each bad file', async () => {
    const dir = await pulled();
    const offline = { DYNAMODB_ENDPOINT: 'http://127.0.0.1:9', TABLE_NAME: 'none' };
    const { runAdmin } = await import('./support/processes');
    expect(await runAdmin(['prompts', 'check', '--dir', dir], offline)).toMatchObject({ code: 0, stdout: expect.stringContaining('3 prompt file(s)') });
    await editFile(dir, 'welcome-email', (text) => `${text}owner: someone\n`);
    await writeFile(join(dir, 'extra.prompt.yml'), '');
    const bad = await runAdmin(['prompts', 'check', '--dir', dir], offline);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('extra.prompt.yml: not read');
    expect(bad.stderr).toMatch(/welcome-email\.prompt\.yaml:\d+:1: owner: unknown field/);
  });
});

test('a file in the folder that is not a prompt file is named in a warning by pull, push and diff, and left alone', async () => {
  const dir = await pulled();
  await writeFile(join(dir, 'notes.txt'), 'ideas\n');
  const warning = `warning: ${join(dir, 'notes.txt')}: not a prompt file (<promptId>.prompt.yaml), not read`;
  for (const args of [['pull'], ['push', '--note', 'nothing'], ['diff']]) {
    const [action = '', ...rest] = args;
    const result = await admin('prompts', action, '--account', ACCOUNT, '--dir', dir, ...rest);
    expect([action, result.code, result.stderr]).toEqual([action, 0, expect.stringContaining(warning)]);
  }
  expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe('ideas\n');
});
