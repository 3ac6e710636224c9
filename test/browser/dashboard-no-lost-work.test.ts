import type { Page } from 'playwright-core';
import {
  ACCOUNT,
  button,
  createDraft,
  createPrompt,
  DashboardHarness,
  fromPage,
  inViewport,
  type Person,
  publish,
  serverDraft,
  textbox,
  writeAndSave,
} from './support/dashboard';

/**
 * docs/management-api.md, "The dashboard" (No lost work): two people (each their own browser profile) editing one draft, a person's
 * unsaved text across reloads, discarding, leaving a page, and a draft published elsewhere. Driven by role and
 * accessible name, as a person would.
 */

jest.setTimeout(240_000);

const harness = new DashboardHarness();
let ana: Person;
let bea: Person;

beforeAll(async () => {
  await harness.start();
  ana = harness.demo;
  const owner = await harness.signedIn(ana);
  ({ person: bea } = await harness.addPerson(owner, 'bea@example.com', 'editor'));
});

afterAll(() => harness.stop());

afterEach(async () => {
  expect(await harness.closeTabs()).toEqual([]);
});

/** A new prompt with a saved draft 1.0.0, open in A's editor. */
async function draftOpenedBy(page: Page, promptId: string): Promise<void> {
  await createPrompt(page, promptId, `Prompt ${promptId}`);
  await createDraft(page, '1.0.0');
  await writeAndSave(page, 'You are helpful.', 'Hello ${name}');
}

const conflictPanel = (page: Page) => page.getByRole('region', { name: 'This draft changed since you typed your unsaved text' });

test("A types without saving, B saves, A reloads: the conflict panel opens field by field, and B's text stays on the server until A chooses", async () => {
  const a = await harness.signedIn(ana);
  await draftOpenedBy(a, 'two-people');
  await textbox(a, 'User message template').fill('Hello ${name}, from Ana');

  const b = await harness.signedIn(bea);
  await b.goto(harness.versionUrl('two-people', '1.0.0'));
  await writeAndSave(b, 'You are helpful.', 'Hello ${name}, from Bea');

  await a.reload();
  const panel = conflictPanel(a);
  await panel.waitFor();
  await expect(panel.textContent()).resolves.toContain(`${bea.email} saved it`);
  // Field by field: only the field that differs, theirs beside yours.
  await panel.getByRole('group', { name: 'User message template' }).waitFor();
  expect(await panel.getByRole('group', { name: 'System message' }).count()).toBe(0);
  await expect(panel.getByRole('figure', { name: 'Their User message template' }).textContent()).resolves.toContain('from Bea');
  await expect(panel.getByRole('figure', { name: 'Your User message template' }).textContent()).resolves.toContain('from Ana');
  // Nothing was saved over B's draft, and A cannot save until A chooses.
  expect((await serverDraft(a, 'two-people', '1.0.0')).userMessage).toBe('Hello ${name}, from Bea');
  expect(await button(a, 'Save draft').isDisabled()).toBe(true);
  await a.reload();
  await conflictPanel(a).waitFor();
  expect((await serverDraft(a, 'two-people', '1.0.0')).userMessage).toBe('Hello ${name}, from Bea');

  await a.getByRole('radio', { name: 'Keep mine: User message template' }).check();
  await button(a, 'Use my choices').click();
  await expect(textbox(a, 'User message template').inputValue()).resolves.toBe('Hello ${name}, from Ana');
  await button(a, 'Save draft').click();
  await a.getByText('No unsaved changes.').waitFor();
  expect((await serverDraft(a, 'two-people', '1.0.0')).userMessage).toBe('Hello ${name}, from Ana');
});

test("taking theirs puts B's draft in the form and says it was B who saved it, not 'you'", async () => {
  const a = await harness.signedIn(ana);
  await draftOpenedBy(a, 'take-theirs');
  await textbox(a, 'System message').fill('Ana was here');
  const b = await harness.signedIn(bea);
  await b.goto(harness.versionUrl('take-theirs', '1.0.0'));
  await writeAndSave(b, 'Bea was here', 'Hello ${name}');

  await button(a, 'Save draft').click();
  const panel = a.getByRole('region', { name: 'Someone saved this draft in between' });
  await panel.waitFor();
  await button(a, 'Take all theirs').click();
  await expect(textbox(a, 'System message').inputValue()).resolves.toBe('Bea was here');
  const status = a.getByText(/^draft last saved by/);
  await expect(status.textContent()).resolves.toContain(`last saved by ${bea.email}`);
  await expect(status.textContent()).resolves.not.toContain('you');
});

test('unsaved text is kept per person: another person signing in to the same tab never gets it', async () => {
  const a = await harness.signedIn(ana);
  await draftOpenedBy(a, 'per-person');
  await textbox(a, 'User message template').fill('Ana only');
  // Signing out with unsaved changes asks first; Ana says to go.
  a.once('dialog', (dialog) => void dialog.accept());
  await button(a, 'Sign out').click();
  await button(a, 'Sign in').waitFor();
  await harness.signedIn(bea, { page: a });
  await a.goto(harness.versionUrl('per-person', '1.0.0'));
  await textbox(a, 'User message template').waitFor();
  await expect(textbox(a, 'User message template').inputValue()).resolves.toBe('Hello ${name}');
  expect(await conflictPanel(a).count()).toBe(0);
});

test('the editor discards unsaved changes, and a reload does not bring them back', async () => {
  const a = await harness.signedIn(ana);
  await draftOpenedBy(a, 'discarding');
  await textbox(a, 'User message template').fill('Not wanted');
  await button(a, 'Discard unsaved changes').click();
  await a.getByRole('dialog', { name: 'Discard your unsaved changes?' }).getByRole('button', { name: 'Yes, discard them' }).click();
  await a.getByText('No unsaved changes.').waitFor();
  await expect(textbox(a, 'User message template').inputValue()).resolves.toBe('Hello ${name}');
  await a.reload();
  await textbox(a, 'User message template').waitFor();
  await expect(textbox(a, 'User message template').inputValue()).resolves.toBe('Hello ${name}');
});

test('unsaved text comes back after a reload over the same draft, and is said to be back', async () => {
  const a = await harness.signedIn(ana);
  await draftOpenedBy(a, 'coming-back');
  await textbox(a, 'User message template').fill('Kept across the reload');
  await a.reload();
  await a.getByText('Your unsaved changes from before are back in the form').waitFor();
  await expect(textbox(a, 'User message template').inputValue()).resolves.toBe('Kept across the reload');
});

test('following a link with unsaved changes asks first: staying keeps the page and the text', async () => {
  const a = await harness.signedIn(ana);
  await draftOpenedBy(a, 'leaving');
  await textbox(a, 'User message template').fill('Half written');
  const asked: string[] = [];
  a.once('dialog', (dialog) => {
    asked.push(dialog.message());
    void dialog.dismiss();
  });
  await a.getByRole('link', { name: 'API keys' }).click();
  await a.waitForTimeout(300);
  expect(asked).toEqual(['This draft has unsaved changes. Leave without saving them?']);
  await expect(textbox(a, 'User message template').inputValue()).resolves.toBe('Half written');
  expect(a.url()).toContain('/prompts/leaving/versions/1.0.0');

  a.once('dialog', (dialog) => void dialog.accept());
  await a.getByRole('link', { name: 'API keys' }).click();
  await a.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
});

test("closing or reloading the tab with unsaved changes asks the browser's own question", async () => {
  const a = await harness.signedIn(ana);
  await draftOpenedBy(a, 'unloading');
  await textbox(a, 'User message template').fill('Half written');
  await a.getByText('unsaved changes', { exact: false }).first().waitFor();
  const asked = a.waitForEvent('dialog', { timeout: 15_000 });
  await a.close({ runBeforeUnload: true });
  const dialog = await asked;
  expect(dialog.type()).toBe('beforeunload');
  await dialog.dismiss();
  expect(a.isClosed()).toBe(false);
});

test('a draft published elsewhere turns this tab read-only, with the reason at the top of the page', async () => {
  const a = await harness.signedIn(ana);
  await draftOpenedBy(a, 'published-elsewhere');
  await textbox(a, 'User message template').fill('Typed after it was published');
  const other = await harness.anotherTab(a);
  await harness.signedIn(ana, { page: other });
  await other.goto(harness.versionUrl('published-elsewhere', '1.0.0'));
  await publish(other, '1.0.0', 'shipped from the other tab');

  // Coming back to the tab (or pressing Save) finds out.
  await a.bringToFront();
  await a.evaluate("window.dispatchEvent(new Event('focus'))");
  const banner = a.getByRole('alert').filter({ hasText: 'was published' });
  await banner.waitFor();
  await expect(banner.textContent()).resolves.toContain('can no longer be edited here');
  await a.evaluate('window.scrollTo(0, 0)');
  expect(await inViewport(a, banner)).toBe(true);
  expect(await textbox(a, 'User message template').getAttribute('readonly')).not.toBeNull();
  expect(await button(a, 'Save draft').isDisabled()).toBe(true);
  // What was typed is still there to copy.
  await expect(textbox(a, 'User message template').inputValue()).resolves.toBe('Typed after it was published');
});

test('a draft deleted elsewhere turns this tab read-only too', async () => {
  const a = await harness.signedIn(ana);
  await draftOpenedBy(a, 'deleted-elsewhere');
  const draft = await fromPage(a, 'GET', `/accounts/${ACCOUNT}/prompts/deleted-elsewhere/versions/1.0.0`);
  const etag = (draft.body as { etag: string }).etag;
  const b = await harness.signedIn(bea);
  expect((await fromPage(b, 'DELETE', `/accounts/${ACCOUNT}/prompts/deleted-elsewhere/versions/1.0.0`, undefined, { 'If-Match': etag })).status).toBe(204);
  await textbox(a, 'User message template').fill('Typed after it was deleted');
  await button(a, 'Save draft').click();
  await a.getByRole('alert').filter({ hasText: 'was deleted in the meantime' }).waitFor();
  expect(await textbox(a, 'User message template').getAttribute('readonly')).not.toBeNull();
});

test('sample values for the preview survive a reload', async () => {
  const a = await harness.signedIn(ana);
  await draftOpenedBy(a, 'samples');
  await a.getByRole('textbox', { name: 'Sample value for name' }).fill('Ada');
  await a.reload();
  await expect(a.getByRole('textbox', { name: 'Sample value for name' }).inputValue()).resolves.toBe('Ada');
  await expect(a.getByRole('region', { name: 'User message preview' }).textContent()).resolves.toContain('Hello Ada');
});

test('Ctrl+S saves the draft', async () => {
  const a = await harness.signedIn(ana);
  await draftOpenedBy(a, 'keyboard-save');
  await textbox(a, 'User message template').fill('Saved from the keyboard');
  await a.keyboard.press('Control+s');
  await a.getByText('No unsaved changes.').waitFor();
  expect((await serverDraft(a, 'keyboard-save', '1.0.0')).userMessage).toBe('Saved from the keyboard');
});
