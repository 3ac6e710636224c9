import { join } from 'node:path';
import type { Page } from 'playwright-core';
import {
  ACCOUNT,
  ARTIFACTS,
  button,
  createDraft,
  createKey,
  createPrompt,
  DashboardHarness,
  type Person,
  publishedPrompt,
  textbox,
  writeAndSave,
} from './support/dashboard';
import { seriousViolations } from './support/axe';

/**
 * docs/management-api.md, "The dashboard", and the smaller things a new team tripped on: code samples that work as
 * pasted, keys and their scopes, the audit log and the prompt list as people read them, the same words and marks
 * on every page, and every page accessible (axe-core, WCAG 2.1 A and AA) in the light and the dark scheme.
 */

jest.setTimeout(300_000);

const harness = new DashboardHarness();
let viewer: Person;

beforeAll(async () => {
  await harness.start();
  const owner = await harness.signedIn();
  ({ person: viewer } = await harness.addPerson(owner, 'vera@example.com', 'viewer'));
  await publishedPrompt(harness, owner, 'chores', ['Hello ${name}', 'Hello kind ${name}']);
  await harness.closeTabs();
});

afterAll(() => harness.stop());

afterEach(async () => {
  expect(await harness.closeTabs()).toEqual([]);
});

test("a new key's samples use the read API's real URL and ?label=production, in curl, TypeScript, Python and an MCP client's configuration", async () => {
  const page = await harness.signedIn();
  const secret = await createKey(page, 'samples', ['chores']);
  const curl = await textbox(page, 'Try it with curl').inputValue();
  expect(curl).toBe(`curl -H 'Authorization: Bearer ${secret}' '${harness.stack.apiUrl}/prompts/chores?label=production'`);
  await expect(textbox(page, 'Use it from TypeScript').inputValue()).resolves.toContain(`baseUrl: "${harness.stack.apiUrl}"`);
  await expect(textbox(page, 'Use it from TypeScript').inputValue()).resolves.toContain(`{ label: 'production' }`);
  await expect(textbox(page, 'Use it from Python').inputValue()).resolves.toContain(`PromptClient("${harness.stack.apiUrl}"`);
  await expect(textbox(page, 'Use it from Python').inputValue()).resolves.toContain('label="production"');
  const mcp = JSON.parse(await textbox(page, "An MCP client's configuration").inputValue()) as { mcpServers: { prompts: { url: string } } };
  expect(mcp.mcpServers.prompts.url).toBe(`${harness.stack.apiUrl}/mcp?label=production`);
});

test('revoked keys are hidden until asked for', async () => {
  const page = await harness.signedIn();
  await createKey(page, 'short-lived');
  await button(page, 'I have copied the key').click();
  const row = page.getByRole('row', { name: /short-lived/ });
  await row.getByRole('button', { name: 'Revoke key short-lived' }).click();
  await page.getByRole('dialog', { name: 'Revoke key short-lived?' }).getByRole('button', { name: 'Yes, revoke the key' }).click();
  await row.waitFor({ state: 'detached' });
  expect(await page.getByRole('row', { name: /short-lived/ }).count()).toBe(0);
  await page.getByRole('checkbox', { name: /Show revoked keys/ }).check();
  const revoked = page.getByRole('row', { name: /short-lived/ }).getByText('revoked', { exact: true });
  await revoked.waitFor();
  expect(await revoked.isVisible()).toBe(true);
});

test("a key's scope is picked from the account's prompts, and an id that does not exist is pointed out", async () => {
  const page = await harness.signedIn();
  await page.getByRole('link', { name: 'API keys' }).click();
  const add = page.getByRole('combobox', { name: 'Add to the scope', exact: true });
  await add.fill('chroes');
  await page.getByText('no prompt has this id in this account').first().waitFor();
  await button(page, 'Add').click();
  const entries = page.getByRole('list', { name: 'Prompts the key may read' });
  await expect(entries.textContent()).resolves.toContain('chroes (no prompt has this id in this account)');
  await page.getByRole('button', { name: 'Remove chroes from the scope' }).click();
  await add.fill('cho*');
  await button(page, 'Add').click();
  await expect(entries.textContent()).resolves.toContain('1 prompt today');
  // The choices offered are the account's ids and their prefixes.
  const offered = await page.locator('datalist option').evaluateAll((options) => options.map((option) => (option as unknown as { value: string }).value));
  expect(offered).toContain('chores');
});

test('the lock next to a greyed control is drawn, not an emoji that needs a font', async () => {
  const page = await harness.signedIn(viewer);
  const note = page.getByText('Viewers cannot create prompts').first();
  await note.waitFor();
  const text = (await note.textContent()) ?? '';
  expect([...text].filter((character) => (character.codePointAt(0) ?? 0) > 0xffff)).toEqual([]);
  expect(await note.locator('svg').count()).toBe(1);
});

test("a viewer's version selectors look and are disabled", async () => {
  const page = await harness.signedIn(viewer);
  await page.goto(harness.promptUrl('chores'));
  await page.getByRole('combobox', { name: 'Version to label' }).waitFor();
  expect(await page.getByRole('combobox', { name: 'Version to label' }).isDisabled()).toBe(true);
  expect(await page.getByRole('combobox', { name: 'Start from' }).isDisabled()).toBe(true);
});

test('a label name the API refuses is said once, next to the field', async () => {
  const page = await harness.signedIn();
  await page.goto(harness.promptUrl('chores'));
  // What the browser's own check lets through, the API's label rule refuses.
  await page.getByRole('combobox', { name: 'Label name' }).fill('latest');
  await button(page, 'Set label').click();
  const said = page.getByRole('alert').filter({ hasText: /latest/ });
  await said.first().waitFor();
  expect(await said.count()).toBe(1);
});

test('any member may leave an account, not only its owner; the last owner may not', async () => {
  const page = await harness.signedIn(viewer);
  await page.getByRole('link', { name: 'Members' }).click();
  await button(page, 'Leave this account').click();
  await page.getByRole('dialog', { name: /Leave/ }).getByRole('button', { name: 'Yes, leave' }).click();
  // The viewer is out: no account left on their dashboard, and none in the members list of the account.
  const noAccount = page.getByRole('heading', { name: 'No account here' });
  await noAccount.waitFor();
  expect(await noAccount.isVisible()).toBe(true);
  const owner = await harness.signedIn();
  await owner.getByRole('link', { name: 'Members' }).click();
  const ownRow = owner.getByRole('row', { name: new RegExp(harness.demo.email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) });
  await ownRow.waitFor();
  expect(await owner.getByRole('row', { name: /vera@example.com/ }).count()).toBe(0);

  // The owner is the account's only owner: leaving is refused, said in the dialog, and the owner stays.
  await button(owner, 'Leave this account').click();
  const dialog = owner.getByRole('dialog', { name: /Leave/ });
  await dialog.getByRole('button', { name: 'Yes, leave' }).click();
  const refusal = dialog.getByRole('alert');
  await refusal.waitFor();
  expect(await refusal.textContent()).toMatch(/^Leaving the account failed: .*must keep at least one owner/);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await owner.reload();
  await ownRow.waitFor();
  expect(await owner.getByRole('heading', { name: 'No account here' }).count()).toBe(0);

  // Back for the other tests: the owner adds Vera again.
  await textbox(owner, 'Email').fill(viewer.email);
  await owner.getByRole('combobox', { name: 'Role for the new member' }).selectOption('viewer');
  await button(owner, 'Add member').click();
  await owner.getByRole('row', { name: /vera@example.com/ }).waitFor();
});

test("a prompt's name, description and tags are changed on its page; the list finds it by them, filters by tag and label, and sorts", async () => {
  const page = await harness.signedIn();
  await createPrompt(page, 'detailed', 'Detailed prompt');
  const details = page.getByRole('region', { name: 'Details' });
  await details.getByRole('textbox', { name: 'Name', exact: true }).fill('Detailed and renamed');
  await details.getByRole('textbox', { name: 'Description', exact: true }).fill('Answers questions about invoices');
  await details.getByRole('textbox', { name: 'Tags', exact: true }).fill('billing, support');
  await button(page, 'Save details').click();
  await page.getByRole('heading', { name: 'Detailed and renamed', level: 1 }).waitFor();

  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Prompts' }).click();
  await page.getByRole('searchbox', { name: 'Search prompts' }).fill('invoices');
  await page
    .getByRole('status')
    .filter({ hasText: /1 of \d+ prompts match/ })
    .waitFor();
  await page.getByRole('rowheader', { name: /Detailed and renamed/ }).waitFor();
  await expect(page.getByRole('list', { name: 'Tags of detailed' }).textContent()).resolves.toBe('billingsupport');

  await page.getByRole('searchbox', { name: 'Search prompts' }).fill('');
  await page.getByRole('combobox', { name: 'With tag' }).selectOption('billing');
  expect(await page.getByRole('rowheader').allTextContents()).toEqual([expect.stringContaining('Detailed and renamed')]);
  await page.getByRole('combobox', { name: 'With tag' }).selectOption('');
  await page.getByRole('combobox', { name: 'With label' }).selectOption('production');
  expect((await page.getByRole('rowheader').allTextContents()).every((text) => !text.includes('Detailed'))).toBe(true);
  await page.getByRole('combobox', { name: 'With label' }).selectOption('');
  await page.getByRole('combobox', { name: 'Sort by' }).selectOption('changed');
  await expect(page.getByRole('rowheader').first().textContent()).resolves.toContain('Detailed and renamed');
  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-prompts.png'), fullPage: true });
});

test('the audit log reads as sentences, filters by person, prompt, action, outcome and day, and shows the raw record on demand', async () => {
  const page = await harness.signedIn();
  await page.goto(harness.promptUrl('chores'));
  await page.getByRole('combobox', { name: 'Label name' }).fill('staging');
  await page.getByRole('combobox', { name: 'Version to label' }).selectOption('1.0.0');
  await button(page, 'Set label').click();
  await page.getByRole('combobox', { name: 'Version for staging' }).selectOption('1.0.1');
  await button(page, 'Move staging').click();
  await page
    .getByRole('row', { name: /staging/ })
    .getByRole('cell', { name: '1.0.1', exact: true })
    .waitFor();

  await page.getByRole('link', { name: 'Audit log' }).click();
  await page.getByRole('combobox', { name: 'Prompt' }).fill('chores');
  await page.getByRole('combobox', { name: 'Action' }).selectOption('label.set');
  await page.getByRole('textbox', { name: 'From' }).fill(new Date().toISOString().slice(0, 10));
  await button(page, 'Apply filters').click();
  const sentence = `${harness.demo.email} moved staging of chores from 1.0.0 to 1.0.1`;
  await page.getByRole('rowheader', { name: sentence }).waitFor();
  // Only label moves of that prompt, that day: the refused one of another test (the reserved name latest) among them.
  // The sentence is also the newest of the unfiltered page, so the filtered page is waited for by its content.
  const onlyLabelMoves = async () => (await page.getByRole('rowheader').allTextContents()).every((text) => / moved [a-z]+ of chores/.test(text));
  for (let tries = 0; tries < 100 && !(await onlyLabelMoves()); tries += 1) await page.waitForTimeout(100);
  expect(await onlyLabelMoves()).toBe(true);

  const row = page.getByRole('row', { name: new RegExp(sentence.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) });
  await row.getByText('Raw record').click();
  const raw = JSON.parse((await row.locator('details pre').textContent()) ?? '{}') as { action: string; target: Record<string, string> };
  expect(raw).toMatchObject({ action: 'label.set', target: { promptId: 'chores', label: 'staging' } });

  await page.getByRole('combobox', { name: 'Who' }).fill(viewer.email);
  await page.getByRole('combobox', { name: 'Outcome' }).selectOption('refused');
  await button(page, 'Apply filters').click();
  await page.getByText('No entry matches these filters on this page.').waitFor();
  await button(page, 'Clear filters').click();
  await page
    .getByRole('status')
    .filter({ hasText: /^Page 1$/ })
    .waitFor();
  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-audit.png'), fullPage: true });
});

/** Every page a person reaches, with something on it. */
async function everyPage(page: Page): Promise<readonly [string, string][]> {
  const base = `${harness.stack.dashboardUrl}/#/accounts/${ACCOUNT}`;
  return [
    ['prompts', `${base}/prompts`],
    ['prompt', `${base}/prompts/chores`],
    ['published version', `${base}/prompts/chores/versions/1.0.1`],
    ['compare', `${base}/prompts/chores/compare/1.0.0/1.0.1`],
    ['keys', `${base}/keys`],
    ['webhooks', `${base}/webhooks`],
    ['usage', `${base}/usage`],
    ['members', `${base}/members`],
    ['audit log', `${base}/audit`],
    ['draft', await draftUrl(page)],
  ];
}

let draft: string | undefined;
async function draftUrl(page: Page): Promise<string> {
  if (draft) return draft;
  await createPrompt(page, 'a11y-draft', 'Accessibility draft');
  await createDraft(page, '1.0.0');
  await writeAndSave(page, 'You are kind.', 'Hello ${name}');
  draft = page.url();
  return draft;
}

async function openPage(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  await page.waitForLoadState('networkidle');
}

test('the same marks on every page: an empty value is an em dash, and no page uses an en dash or a spaced hyphen', async () => {
  const page = await harness.signedIn();
  for (const [name, url] of await everyPage(page)) {
    await openPage(page, url);
    const text = await page.locator('main').innerText();
    expect({ name, enDashes: text.match(/–/g) ?? [], spacedHyphens: text.match(/ - /g) ?? [] }).toEqual({ name, enDashes: [], spacedHyphens: [] });
  }
});

test.each(['light', 'dark'] as const)(
  "every page passes axe-core's WCAG 2.1 A and AA rules with no serious or critical violation, in the %s scheme",
  async (colorScheme) => {
    const page = await harness.signedIn(harness.demo, { colorScheme });
    for (const [name, url] of await everyPage(page)) {
      await openPage(page, url);
      expect({ page: name, violations: await seriousViolations(page) }).toEqual({ page: name, violations: [] });
    }
    await page.goto(`${harness.stack.dashboardUrl}/#/accounts/${ACCOUNT}/prompts/chores`);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    await page.screenshot({ path: join(ARTIFACTS, `dashboard-prompt-${colorScheme}.png`), fullPage: true });
  },
);
