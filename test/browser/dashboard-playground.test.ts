import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { seriousViolations } from './support/axe';
import { ACCOUNT, ARTIFACTS, button, createDraft, DashboardHarness, fromPage, type Person, publishedPrompt, serverDraft, textbox } from './support/dashboard';

/**
 * docs/runs.md "The Playground": a prompt's versions, labels and the editor's unsaved draft run side by side on
 * `npm start`'s local stand-in model, each column streaming as the model writes (the stand-in's `PACE:` spaces its
 * pieces, `REPLY:` says what it writes, both through a variable), with tokens, cost and times; a word diff of two
 * outputs; the prompt's past runs; a viewer who cannot run; the budget; axe in both schemes.
 */

// A browser, a child stack and runs streamed at a pace: much slower than the other suites, above all under load.
jest.setTimeout(300_000);

const harness = new DashboardHarness();
let viewer: Person;
const PROMPT = 'greeter';
/** Each version's template: what the stand-in writes is the text after `REPLY:`, at the pace the `pace` variable sets. */
const VERSION_0 = 'Hello ${name}, welcome to Acme! We are glad you are here.';
const VERSION_1 = 'Hi ${name}, welcome to Acme! We are happy you wrote to us today.';
const written = (template: string, name: string) => template.replace('${name}', name);

beforeAll(async () => {
  await harness.start();
  const owner = await harness.signedIn();
  ({ person: viewer } = await harness.addPerson(owner, 'vic@example.com', 'viewer'));
  await publishedPrompt(harness, owner, PROMPT, [`\${pace} REPLY: ${VERSION_0}`, `\${pace} REPLY: ${VERSION_1}`]);
  await harness.closeTabs();
});

afterAll(() => harness.stop());

afterEach(async () => {
  // Script errors and Content-Security-Policy violations show up here.
  expect(await harness.closeTabs()).toEqual([]);
});

const playgroundUrl = () => `${harness.promptUrl(PROMPT)}/playground`;
const column = (page: Page, n: number) => page.getByRole('region', { name: `Column ${n}`, exact: true });
const output = (page: Page, n: number) => page.getByRole('region', { name: `Output of column ${n}`, exact: true });
/** A number the column shows, by its term. */
const shown = (area: Locator, term: string) =>
  area
    .locator('dt', { hasText: new RegExp(`^${term}$`) })
    .locator('xpath=following-sibling::dd[1]')
    .innerText();

async function openPlayground(page: Page): Promise<void> {
  await page.goto(harness.promptUrl(PROMPT));
  await page.getByRole('link', { name: 'Playground', exact: true }).click();
  await page.getByRole('heading', { name: `Playground of Prompt ${PROMPT}`, level: 1 }).waitFor();
  // The variables show once the columns' versions are read.
  await textbox(page, 'name').waitFor();
}

/** The text the output shows as it changes, until it is `final`: every text seen on the way. */
async function watchOutput(page: Page, n: number, final: string): Promise<string[]> {
  const seen: string[] = [];
  const pre = output(page, n).locator('pre');
  for (const started = Date.now(); Date.now() - started < 60_000; ) {
    const text = (await pre.innerText()).trim();
    if (seen.at(-1) !== text) seen.push(text);
    if (text === final) return seen;
    await page.waitForTimeout(40);
  }
  throw new Error(`column ${n} never showed ${JSON.stringify(final)}; it showed ${JSON.stringify(seen)}`);
}

test('two columns, a label and a version, stream on the same variables, with tokens, cost and times, a word diff and the runs listed', async () => {
  const page = await harness.signedIn();
  await openPlayground(page);
  await page.getByRole('combobox', { name: 'Source of column 1' }).selectOption({ label: 'Label latest (1.0.1)' });
  await page.getByRole('combobox', { name: 'Source of column 2' }).selectOption({ label: 'Version 1.0.0' });
  await textbox(page, 'name').fill('Ada');
  await textbox(page, 'pace').fill('PACE:250');
  await expect(page.getByRole('combobox', { name: 'Model' }).inputValue()).resolves.toBe('gpt-4o-mini');
  await button(page, 'Run all').click();

  const first = written(VERSION_1, 'Ada');
  const second = written(VERSION_0, 'Ada');
  const [seenFirst, seenSecond] = await Promise.all([watchOutput(page, 1, first), watchOutput(page, 2, second)]);
  // Streamed: a part of the answer was on the page before the whole of it, each a beginning of the final text.
  const partOf = (whole: string, seen: readonly string[]) => seen.filter((text) => text !== '' && text !== whole && whole.startsWith(text));
  expect({ seen: seenFirst, parts: partOf(first, seenFirst).length > 0 }).toEqual({ seen: seenFirst, parts: true });
  expect({ seen: seenSecond, parts: partOf(second, seenSecond).length > 0 }).toEqual({ seen: seenSecond, parts: true });

  for (const [n, text] of [
    [1, first],
    [2, second],
  ] as const) {
    const area = column(page, n);
    await area.getByText('Done.').waitFor();
    await expect(shown(area, 'Tokens out')).resolves.toBe(String(Math.ceil(text.length / 4)));
    expect(Number(await shown(area, 'Tokens in'))).toBeGreaterThan(0);
    await expect(shown(area, 'Cost')).resolves.toMatch(/^\$0\.0000\d+$/);
    await expect(shown(area, 'First token')).resolves.toMatch(/^\d+ ms$|^\d+\.\d\d s$/);
    // Seven gaps of 250 ms between the eight-character pieces, at least.
    const total = await shown(area, 'Total time');
    expect(total.endsWith(' s') ? Number.parseFloat(total) * 1000 : Number.parseInt(total, 10)).toBeGreaterThanOrEqual(1_500);
  }
  // The page said each end once, away from focus.
  const ended = (n: number, text: string) => `Column ${n} finished: ${Math.ceil(text.length / 4)} tokens out`;
  const said = await page.locator('main ~ [role="status"][aria-live="polite"]').textContent();
  expect(said).toContain(ended(1, first));
  expect(said).toContain(ended(2, second));

  const diff = page.getByRole('region', { name: 'Difference between two outputs' });
  await expect(diff.getByRole('status').innerText()).resolves.toBe('6 words of Column 1 not in Column 2; 4 words of Column 2 not in Column 1.');
  const marked = diff.getByRole('region', { name: "Column 1's output changed into column 2's" });
  await expect(marked.locator('del').allInnerTexts()).resolves.toEqual(expect.arrayContaining([expect.stringContaining('Hi')]));
  await expect(marked.locator('ins').allInnerTexts()).resolves.toEqual(expect.arrayContaining([expect.stringContaining('Hello')]));
  // Said in words too, not by colour alone.
  await expect(marked.textContent()).resolves.toContain('[removed: Hi]');

  const runs = page.getByRole('region', { name: 'Past runs' });
  await runs.getByRole('row', { name: /label latest \(1\.0\.1\)/ }).waitFor();
  await runs.getByRole('row', { name: /version 1\.0\.0/ }).waitFor();
  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-playground.png'), fullPage: true });

  await runs
    .getByRole('row', { name: /version 1\.0\.0/ })
    .getByRole('button', { name: /^Open run run_/ })
    .click();
  const dialog = page.getByRole('dialog', { name: /^Run run_/ });
  await expect(dialog.getByRole('region', { name: 'User message sent' }).innerText()).resolves.toContain(`REPLY: ${second}`);
  await expect(dialog.getByRole('region', { name: 'Output' }).innerText()).resolves.toContain(second);
  await expect(dialog.getByRole('button', { name: 'Add to dataset' }).isDisabled()).resolves.toBe(true);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
});

test("the draft editor's Playground runs the unsaved text beside latest, and saves nothing", async () => {
  const page = await harness.signedIn();
  await page.goto(harness.promptUrl(PROMPT));
  await createDraft(page, '1.0.2');
  await textbox(page, 'User message template').fill('REPLY: Bonjour ${name}, not saved yet.');
  await button(page, 'Open the Playground').click();
  await expect(page.getByRole('combobox', { name: 'Source of column 1' }).inputValue()).resolves.toBe('draft');
  await expect(page.getByRole('combobox', { name: 'Source of column 2' }).inputValue()).resolves.toBe('label:latest');
  await textbox(page, 'name').fill('Ada');
  await textbox(page, 'pace').fill('');
  await button(page, 'Run all').click();
  await watchOutput(page, 1, 'Bonjour Ada, not saved yet.');
  await watchOutput(page, 2, written(VERSION_1, 'Ada'));
  await page
    .getByRole('region', { name: 'Past runs' })
    .getByRole('row', { name: /unsaved draft/ })
    .waitFor();
  await expect(serverDraft(page, PROMPT, '1.0.2')).resolves.toMatchObject({ userMessage: `\${pace} REPLY: ${VERSION_1}` });
});

test('a viewer sees the Playground and the runs but cannot run: Run all is disabled with the reason, and the API refuses', async () => {
  const page = await harness.signedIn(viewer);
  await page.goto(playgroundUrl());
  await textbox(page, 'name').waitFor();
  await expect(button(page, 'Run all').isDisabled()).resolves.toBe(true);
  await page.getByText('Viewers cannot run prompts: that needs an editor of this account.').waitFor();
  await page
    .getByRole('region', { name: 'Past runs' })
    .getByRole('row', { name: /version 1\.0\.0/ })
    .waitFor();

  const before = await fromPage(page, 'GET', `/accounts/${ACCOUNT}/runs?promptId=${PROMPT}`);
  const refused = await fromPage(page, 'POST', `/accounts/${ACCOUNT}/runs`, {
    source: { promptId: PROMPT, label: 'latest' },
    variables: { name: 'Eve', pace: '' },
  });
  expect(refused.status).toBe(403);
  // Nothing ran: the runs read back are the ones before.
  await expect(fromPage(page, 'GET', `/accounts/${ACCOUNT}/runs?promptId=${PROMPT}`)).resolves.toEqual(before);
});

test("a run the budget cannot cover says so with the numbers; Usage counts the month's model tokens; the owner takes the budget away", async () => {
  const page = await harness.signedIn();
  await page.getByRole('link', { name: 'Settings' }).click();
  await textbox(page, 'Monthly model tokens').fill('10');
  await button(page, 'Save budget').click();
  await page.getByText('Now: 10 model tokens a month (UTC).').waitFor();

  await page.goto(playgroundUrl());
  await textbox(page, 'name').fill('Ada');
  await button(page, 'Run all').click();
  await column(page, 1)
    .getByRole('alert')
    .filter({ hasText: /budget of model tokens is spent: [\d,]+ of 10 tokens used or held/ })
    .waitFor();

  await page.getByRole('link', { name: 'Usage' }).click();
  const tokens = page.getByRole('region', { name: 'Model tokens' });
  await tokens.getByText(/of a budget of 10 \(100%\)/).waitFor();
  await tokens.getByRole('img', { name: /^Model tokens per day for runs in \d{4}-\d{2}: [\d,]+ in all/ }).waitFor();

  await page.getByRole('link', { name: 'Settings' }).click();
  await textbox(page, 'Monthly model tokens').fill('');
  await button(page, 'Save budget').click();
  await page.getByText('No budget now: runs may use any number of model tokens.').waitFor();
  await expect(fromPage(page, 'GET', `/accounts/${ACCOUNT}`)).resolves.toMatchObject({ body: { models: { monthlyTokens: null } } });
});

test.each(['light', 'dark'] as const)(
  'the Playground, run from the keyboard, passes axe-core with no serious violation in the %s scheme',
  async (colorScheme) => {
    const page = await harness.signedIn(harness.demo, { colorScheme });
    await openPlayground(page);
    await page.getByRole('combobox', { name: 'Source of column 2' }).selectOption({ label: 'Version 1.0.0' });
    // Run all waits for the version the column now runs.
    await column(page, 2).getByText('Reading this version…').waitFor({ state: 'hidden' });
    await textbox(page, 'name').fill('Grace');
    await textbox(page, 'pace').fill('');
    // Enter in a parameter's field runs every column, as a form's submit.
    await textbox(page, 'Max tokens').focus();
    await page.keyboard.press('Enter');
    await watchOutput(page, 1, written(VERSION_1, 'Grace'));
    await watchOutput(page, 2, written(VERSION_0, 'Grace'));
    await page.getByRole('region', { name: 'Difference between two outputs' }).getByRole('status').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, `dashboard-playground-${colorScheme}.png`), fullPage: true });
  },
);
