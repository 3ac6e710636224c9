import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { registerApiKey } from '../support/log-capture';
import {
  ACCOUNT,
  ARTIFACTS,
  button,
  createDraft,
  createKey as createKeyWithScope,
  createPrompt,
  DashboardHarness,
  fromPage,
  publish,
  publishedPrompt as publishedPromptOf,
  textbox,
  writeAndSave,
} from './support/dashboard';

/**
 * The dashboard as a person uses it: `npm start`'s stack as a child process (the built dashboard on its
 * origin, the management API under /api, the user pool's stand-in), a real Chromium signing in through the
 * stand-in's form with PKCE, and every control found by its role and accessible name.
 */

// A browser, a child stack and sign-ins through a form: much slower than the other suites, above all under load.
jest.setTimeout(180_000);

const harness = new DashboardHarness();
let stack: DashboardHarness['stack'];
let demo: DashboardHarness['demo'];

beforeAll(async () => {
  await harness.start();
  ({ stack, demo } = harness);
});

afterAll(() => harness.stop());

afterEach(async () => {
  // Script errors and Content-Security-Policy violations show up here.
  expect(await harness.closeTabs()).toEqual([]);
});

const signedIn = (email = demo.email, password = demo.password, newPassword?: string): Promise<Page> =>
  harness.signedIn({ email, password }, newPassword ? { newPassword } : {});
const promptUrl = (promptId: string) => harness.promptUrl(promptId);
const readApi = (path: string, apiKey: string) => harness.readApi(path, apiKey);
const createKey = (page: Page, name: string, scope = '') => createKeyWithScope(page, name, scope ? [scope] : []);
const publishedPrompt = (page: Page, promptId: string, userMessages: readonly string[]) => publishedPromptOf(harness, page, promptId, userMessages);

test('signs in as the demo user with PKCE, shows the account and the role, keeps no token in localStorage, and signs out at the pool too', async () => {
  const page = await signedIn();

  await expect(page.getByRole('combobox', { name: 'Account' }).inputValue()).resolves.toBe(ACCOUNT);
  await expect(page.getByRole('navigation', { name: 'Sections' }).textContent()).resolves.toContain('owner');
  expect(new URL(page.url()).search).toBe('');
  expect(await page.evaluate('localStorage.length')).toBe(0);
  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-prompts.png'), fullPage: true });

  const revoked = page.waitForResponse((response) => response.url() === `${stack.identityUrl}/oauth2/revoke`);
  await button(page, 'Sign out').click();
  expect((await revoked).status()).toBe(200);
  await button(page, 'Sign in').waitFor();
  expect(await page.evaluate("[sessionStorage.getItem('dashboard.session'), sessionStorage.getItem('dashboard.refresh'), localStorage.length]")).toEqual([
    null,
    null,
    0,
  ]);
  // The pool's own session ended too: signing in again asks for the password instead of letting anyone at this browser in.
  await button(page, 'Sign in').click();
  await page.waitForURL(`${stack.identityUrl}/**`);
  await page.getByLabel('Password').waitFor();
});

test('works from the keyboard: a new page focuses its heading, forms submit with Enter, a confirmation closes with Escape', async () => {
  const page = await signedIn();
  const focused = () =>
    page.evaluate(
      'document.activeElement && (document.activeElement.getAttribute("aria-label") || document.activeElement.textContent || document.activeElement.id)',
    );
  await expect(focused()).resolves.toBe('Prompts');

  await page.keyboard.press('Tab');
  await page.keyboard.type('keyboard-made');
  await page.keyboard.press('Tab');
  await page.keyboard.type('Keyboard made');
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Keyboard made', level: 1 }).waitFor();
  await expect(focused()).resolves.toBe('Keyboard made');

  await button(page, 'Delete prompt').focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Delete keyboard-made?' });
  await dialog.waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  await expect(focused()).resolves.toBe('Delete prompt');
});

test('a draft with two variables lists them as they are typed and previews them with sample values', async () => {
  const page = await signedIn();
  await createPrompt(page, 'greeting', 'Greeting');
  await createDraft(page, '1.0.0');

  await textbox(page, 'System message').fill('You write for ${company}. Write $${literal} as is.');
  await textbox(page, 'User message template').fill('Greet ${name} from ${company}.');
  const variables = page.getByRole('list', { name: 'Variables found' });
  await expect(variables.getByRole('listitem').allTextContents()).resolves.toEqual(['company', 'name']);
  await textbox(page, 'Sample value for name').fill('Ada');
  await textbox(page, 'Sample value for company').fill('Acme');

  const preview = page.getByRole('region', { name: 'Preview' });
  await expect(preview.getByRole('region', { name: 'System message preview' }).textContent()).resolves.toContain('You write for Acme. Write ${literal} as is.');
  await expect(preview.getByRole('region', { name: 'User message preview' }).textContent()).resolves.toContain('Greet Ada from Acme.');
  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-editor.png'), fullPage: true });

  await button(page, 'Save draft').click();
  await page.getByText('No unsaved changes.').waitFor();
  await page.reload();
  await expect(textbox(page, 'User message template').inputValue()).resolves.toBe('Greet ${name} from ${company}.');
});

test('publishes a draft with a note, and a key made in the dashboard, shown once, reads it from the read API', async () => {
  const page = await signedIn();
  await createPrompt(page, 'welcome-note', 'Welcome note');
  await createDraft(page, '1.0.0');
  await writeAndSave(page, 'You welcome people.', 'Welcome ${name}!');
  // Nothing is published yet: the note is required before anything goes out.
  await button(page, 'Publish version 1.0.0').click();
  await page.getByText('Write a note of 1 to 500 characters').waitFor();
  await publish(page, '1.0.0', 'First welcome');

  const secret = await createKey(page, 'welcome app', 'welcome-note');
  await expect(textbox(page, 'Try it with curl').inputValue()).resolves.toContain(secret);
  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-new-key.png'), fullPage: true });
  const answer = await readApi('/prompts/welcome-note', secret);
  expect(answer.status).toBe(200);
  expect(await answer.json()).toMatchObject({ promptId: 'welcome-note', version: '1.0.0', userMessage: 'Welcome ${name}!' });

  await button(page, 'I have copied the key').click();
  const row = page.getByRole('row', { name: /welcome app/ });
  await row.waitFor();
  await page.reload();
  await row.waitFor();
  expect(await page.content()).not.toContain(secret);
  await expect(row.textContent()).resolves.toContain(secret.slice(0, 8));
  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-keys.png'), fullPage: true });
});

test('a key is disabled and enabled at once, rotated with its new secret shown once, and revoked only after a confirmation', async () => {
  const page = await signedIn();
  const secret = await createKey(page, 'lifecycle');
  await button(page, 'I have copied the key').click();
  const row = page.getByRole('row', { name: /lifecycle/ });

  await row.getByRole('button', { name: 'Disable key lifecycle' }).click();
  await row.getByText('disabled', { exact: true }).waitFor();
  expect((await readApi('/prompts', secret)).status).toBe(401);
  await row.getByRole('button', { name: 'Enable key lifecycle' }).click();
  await row.getByText('active', { exact: true }).waitFor();
  expect((await readApi('/prompts', secret)).status).toBe(200);

  await row.getByRole('button', { name: 'Rotate key lifecycle' }).click();
  const rotate = page.getByRole('dialog', { name: 'Rotate key lifecycle?' });
  await rotate.getByRole('combobox', { name: 'Old key keeps working for' }).selectOption('0');
  await rotate.getByRole('button', { name: 'Yes, rotate the key' }).click();
  const rotated = await textbox(page, 'New API key').inputValue();
  registerApiKey(rotated);
  expect(rotated).not.toBe(secret);
  expect((await readApi('/prompts', rotated)).status).toBe(200);
  expect((await readApi('/prompts', secret)).status).toBe(401);
  await button(page, 'I have copied the key').click();

  const current = page.getByRole('row', { name: /lifecycle/ }).filter({ hasText: 'active' });
  await current.getByRole('button', { name: 'Revoke key lifecycle' }).click();
  const revoke = page.getByRole('dialog', { name: 'Revoke key lifecycle?' });
  await expect(revoke.textContent()).resolves.toContain('this cannot be undone');
  await revoke.getByRole('button', { name: 'Cancel' }).click();
  expect((await readApi('/prompts', rotated)).status).toBe(200);
  await current.getByRole('button', { name: 'Revoke key lifecycle' }).click();
  await revoke.getByRole('button', { name: 'Yes, revoke the key' }).click();
  await revoke.waitFor({ state: 'hidden' });
  expect((await readApi('/prompts', rotated)).status).toBe(401);
});

test('moving production to another version is what the read API serves for ?label=production from the next request', async () => {
  const page = await signedIn();
  await publishedPrompt(page, 'label-demo', ['First ${name}', 'Second ${name}']);
  const secret = await createKey(page, 'label reader', 'label-demo');
  await page.goto(promptUrl('label-demo'));

  // production is protected: pointing it anywhere asks first.
  await page.getByRole('combobox', { name: 'Label name' }).fill('production');
  await page.getByRole('combobox', { name: 'Version to label' }).selectOption('1.0.1');
  await button(page, 'Set label').click();
  await page.getByRole('dialog', { name: 'Point production at 1.0.1?' }).getByRole('button', { name: 'Yes, move production to 1.0.1' }).click();
  await button(page, 'Move production').waitFor();
  expect(await (await readApi('/prompts/label-demo?label=production', secret)).json()).toMatchObject({ version: '1.0.1', userMessage: 'Second ${name}' });

  // The rollback: production back to 1.0.0, after a look at what changes for its readers.
  await page.getByRole('combobox', { name: 'Version for production' }).selectOption('1.0.0');
  await button(page, 'Move production').click();
  const confirm = page.getByRole('dialog', { name: 'Move production from 1.0.1 to 1.0.0?' });
  const userMessageDiff = confirm.getByRole('table', { name: 'User message' });
  await userMessageDiff.waitFor();
  // The words that change inside the changed line are marked, not only the line.
  await expect(userMessageDiff.locator('del').allTextContents()).resolves.toEqual(['Second']);
  await expect(userMessageDiff.locator('ins').allTextContents()).resolves.toEqual(['First']);
  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-label-confirm.png'), fullPage: true });
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  expect(await (await readApi('/prompts/label-demo?label=production', secret)).json()).toMatchObject({ version: '1.0.1' });

  await button(page, 'Move production').click();
  await confirm.getByRole('button', { name: 'Yes, move production to 1.0.0' }).click();
  await page
    .getByRole('row', { name: /production/ })
    .getByRole('cell', { name: '1.0.0', exact: true })
    .waitFor();
  expect(await (await readApi('/prompts/label-demo?label=production', secret)).json()).toMatchObject({ version: '1.0.0', userMessage: 'First ${name}' });
  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-prompt.png'), fullPage: true });
});

test('moving a label that is not protected (staging) needs no confirmation', async () => {
  const page = await signedIn();
  await publishedPrompt(page, 'staging-demo', ['First ${name}', 'Second ${name}']);
  await page.goto(promptUrl('staging-demo'));
  await page.getByRole('combobox', { name: 'Label name' }).fill('staging');
  await page.getByRole('combobox', { name: 'Version to label' }).selectOption('1.0.0');
  await button(page, 'Set label').click();
  await button(page, 'Move staging').waitFor();
  expect(await page.getByRole('dialog').count()).toBe(0);
});

test('two tabs saving one draft: the second is told who saved in between, keeps its text, and may keep it over theirs', async () => {
  const first = await signedIn();
  await createPrompt(first, 'shared-draft', 'Shared draft');
  await createDraft(first, '1.0.0');
  const draftUrl = first.url();
  const second = await signedIn();
  await second.goto(draftUrl);
  await textbox(second, 'User message template').waitFor();

  await writeAndSave(first, 'First tab', 'Saved first by tab one');
  await textbox(second, 'User message template').fill('Written in tab two for ${name}');
  await button(second, 'Save draft').click();

  const conflict = second.getByRole('region', { name: 'Someone saved this draft in between' });
  await conflict.waitFor();
  await expect(conflict.textContent()).resolves.toContain(`${demo.email} saved it`);
  await expect(textbox(second, 'User message template').inputValue()).resolves.toBe('Written in tab two for ${name}');
  await expect(conflict.getByRole('figure', { name: 'Their User message template' }).textContent()).resolves.toContain('Saved first by tab one');
  await second.screenshot({ path: join(ARTIFACTS, 'dashboard-conflict.png'), fullPage: true });

  await button(second, 'Keep all mine').click();
  await button(second, 'Save draft').click();
  await second.getByText('No unsaved changes.').waitFor();
  await first.reload();
  await expect(textbox(first, 'User message template').inputValue()).resolves.toBe('Written in tab two for ${name}');
});

test('a viewer sees what they may not change, greyed with the reason, and the API refuses their publish', async () => {
  const owner = await signedIn();
  await createPrompt(owner, 'viewer-draft', 'Viewer draft');
  await createDraft(owner, '1.0.0');
  await writeAndSave(owner, 'System', 'Hello ${name}');
  await owner.getByRole('link', { name: 'Members' }).click();
  await textbox(owner, 'Email').fill('viewer@example.com');
  await owner.getByRole('combobox', { name: 'Role for the new member' }).selectOption('viewer');
  await button(owner, 'Add member').click();
  const temporaryPassword = await textbox(owner, 'Temporary password').inputValue();
  await owner.getByRole('row', { name: /viewer@example.com/ }).waitFor();

  const viewer = await signedIn('viewer@example.com', temporaryPassword, 'Viewer-Chosen-Pass-42!');
  await expect(viewer.getByRole('navigation', { name: 'Sections' }).textContent()).resolves.toContain('viewer');
  await viewer.goto(`${promptUrl('viewer-draft')}/versions/1.0.0`);
  const publishButton = button(viewer, 'Publish version 1.0.0');
  await publishButton.waitFor();
  expect(await publishButton.isDisabled()).toBe(true);
  expect(await button(viewer, 'Save draft').isDisabled()).toBe(true);
  expect(await textbox(viewer, 'User message template').getAttribute('readonly')).not.toBeNull();
  await viewer.getByText('Viewers cannot publish versions: that needs an editor of this account.').waitFor();
  await viewer.screenshot({ path: join(ARTIFACTS, 'dashboard-viewer.png'), fullPage: true });

  // The greyed button is the page's courtesy; the API is the rule.
  const draft = await fromPage(viewer, 'GET', `/accounts/${ACCOUNT}/prompts/viewer-draft/versions/1.0.0`);
  const etag = (draft.body as { etag: string }).etag;
  const refused = await fromPage(viewer, 'POST', `/accounts/${ACCOUNT}/prompts/viewer-draft/versions/1.0.0/publish`, { note: 'sneaky' }, { 'If-Match': etag });
  expect(refused.status).toBe(403);
});

test('the usage chart counts the read requests of the day against the key', async () => {
  const page = await signedIn();
  const secret = await createKey(page, 'usage probe');
  for (let i = 0; i < 5; i += 1) expect((await readApi('/prompts/welcome-email', secret)).status).toBe(200);

  await page.getByRole('link', { name: 'Usage' }).click();
  const panel = page.getByRole('region', { name: 'usage probe' });
  await panel.getByRole('img', { name: /Requests per day for usage probe in \d{4}-\d{2}: 5 in all, most on day \d+ \(5\)\./ }).waitFor();
  await expect(panel.getByRole('meter').getAttribute('value')).resolves.toBe('5');
  await expect(panel.textContent()).resolves.toContain('5 of');
  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-usage.png'), fullPage: true });
});

test('the audit log shows each change and each refused attempt, newest first, a page at a time', async () => {
  const page = await signedIn();
  await createPrompt(page, 'audited', 'Audited');
  // Enough changes to need a second page of 50.
  for (let i = 0; i < 50; i += 1)
    expect((await fromPage(page, 'POST', `/accounts/${ACCOUNT}/prompts`, { promptId: `bulk-${i}`, promptName: `Bulk ${i}` })).status).toBe(201);

  await page.getByRole('link', { name: 'Audit log' }).click();
  const rows = page.getByRole('row');
  await page.getByRole('rowheader', { name: `${demo.email} created prompt bulk-49` }).waitFor();
  const firstPage = await page.getByRole('rowheader').allTextContents();
  expect(firstPage).toHaveLength(50);
  expect(firstPage[0]).toBe(`${demo.email} created prompt bulk-49`);
  expect(firstPage).not.toContain(`${demo.email} created prompt audited`);
  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-audit.png'), fullPage: true });

  await button(page, 'Older entries').click();
  await page.getByRole('rowheader', { name: `${demo.email} created prompt audited` }).waitFor();
  const older = await page.getByRole('rowheader').allTextContents();
  // Everything the other tests did is here too: publishing, keys, labels, a member added, a viewer's refused publish.
  for (const expected of [
    `${demo.email} published welcome-note 1.0.0`,
    `${demo.email} created key`,
    `${demo.email} moved production of label-demo from 1.0.1 to 1.0.0`,
    `${demo.email} added member viewer@example.com`,
    'viewer@example.com published viewer-draft 1.0.0',
  ]) {
    expect(older.some((text) => text.startsWith(expected))).toBe(true);
  }
  await page
    .getByRole('row', { name: /viewer@example.com published viewer-draft 1\.0\.0/ })
    .getByText(/^refused/)
    .waitFor();
  expect(await rows.count()).toBeGreaterThan(1);
  await button(page, 'Newer entries').click();
  await page.getByRole('rowheader', { name: `${demo.email} created prompt bulk-49` }).waitFor();
});
