import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { seriousViolations } from './support/axe';
import { ACCOUNT, ARTIFACTS, button, createKey, DashboardHarness, fromPage, type Person, publishedPrompt } from './support/dashboard';

/**
 * docs/rollouts.md, "In the dashboard": a label rolls out from its panel on the prompt's page. Starting shows the
 * diff and asks for the share; the panel then shows the share, the served counts (read again while it is open),
 * who started it and when, and changes the share (slider or steps, after a confirmation), completes or aborts it.
 * The label's history says each step. A viewer sees it read-only; where the label needs approval, starting opens a
 * change request that another person approves, each in their own browser profile. Driven by role and accessible name.
 */

jest.setTimeout(300_000);

const harness = new DashboardHarness();
let rita: Person;
let vera: Person;
let apiKey: string;

const PROMPT = 'tone';

beforeAll(async () => {
  await harness.start();
  const owner = await harness.signedIn();
  ({ person: rita } = await harness.addPerson(owner, 'rita@example.com', 'admin'));
  // A fresh Members page: the last one still shows Rita's temporary password.
  await owner.reload();
  await owner.getByRole('heading', { level: 1 }).first().waitFor();
  ({ person: vera } = await harness.addPerson(owner, 'vera@example.com', 'viewer'));
  // 1.0.1 asks for a variable 1.0.0 did not have: the diff and the variables say so.
  await publishedPrompt(harness, owner, PROMPT, ['Hello ${name}', 'Hello ${name}, welcome back to ${product}', 'Hi ${name}']);
  for (const label of ['staging', 'production']) expect((await api(owner, 'PUT', `/labels/${label}`, { version: '1.0.0' })).status).toBe(200);
  apiKey = await createKey(owner, 'rollout reads');
  await harness.closeTabs();
});

afterAll(() => harness.stop());

afterEach(async () => {
  expect(await harness.closeTabs()).toEqual([]);
});

const api = (page: Page, method: string, path: string, body?: unknown) => fromPage(page, method, `/accounts/${ACCOUNT}/prompts/${PROMPT}${path}`, body);

interface RolloutAnswer {
  rolloutId: string;
  percent: number;
  state: string;
  served: { from: number; to: number };
}

async function rolloutOf(page: Page, label: string): Promise<RolloutAnswer | undefined> {
  const answer = await api(page, 'GET', `/labels/${label}/rollout`);
  if (answer.status === 404) return undefined;
  expect(answer.status).toBe(200);
  return (answer.body as { rollout: RolloutAnswer }).rollout;
}

async function labelOf(page: Page, label: string): Promise<string | undefined> {
  return ((await api(page, 'GET', '')).body as { labels: Record<string, string> }).labels[label];
}

/** The label back at 1.0.0 with no rollout (what a test before left is aborted), so each test starts from the same place. */
async function resetLabel(owner: Page, label: string): Promise<void> {
  if (await rolloutOf(owner, label)) expect((await api(owner, 'POST', `/labels/${label}/rollout/abort`, { reason: 'reset by a test' })).status).toBe(200);
  if ((await labelOf(owner, label)) !== '1.0.0') expect((await api(owner, 'PUT', `/labels/${label}`, { version: '1.0.0' })).status).toBe(200);
}

/** A rollout of `label` from 1.0.0 to 1.0.1 at `percent`, started through the API: for the tests of what comes after. */
async function freshRollout(owner: Page, label: string, percent = 10): Promise<RolloutAnswer> {
  await resetLabel(owner, label);
  const answer = await api(owner, 'PUT', `/labels/${label}/rollout`, { to: '1.0.1', percent });
  expect(answer.status).toBe(201);
  return (answer.body as { rollout: RolloutAnswer }).rollout;
}

/** Reads at the label through the read API, one per subject: how many each side answered. */
async function readsAt(label: string, subjects: readonly string[]): Promise<{ from: number; to: number }> {
  const counted = { from: 0, to: 0 };
  for (const subject of subjects) {
    const answer = await fetch(`${harness.stack.apiUrl}/prompts/${PROMPT}?label=${label}`, {
      headers: { Authorization: `Bearer ${apiKey}`, 'X-Prompt-Subject': subject },
    });
    expect(answer.status).toBe(200);
    if (((await answer.json()) as { version: string }).version === '1.0.1') counted.to += 1;
    else counted.from += 1;
  }
  return counted;
}

const panelOf = (page: Page, label: string) => page.getByRole('region', { name: `Rollout of ${label}` });
const historyOf = (page: Page, label: string) => page.getByRole('region', { name: `History of ${label}` });

/** The served counts table's row for a side: its cells' texts. */
async function servedRow(panel: Locator, side: 'Stays (from)' | 'New (to)'): Promise<string[]> {
  const row = panel.getByRole('row', { name: new RegExp(`^${side.replace(/[()]/g, '\\$&')}`) });
  await row.waitFor();
  return row.getByRole('cell').allTextContents();
}

test('starting a rollout shows the diff and the variables, checks the share, and opens the panel: share, counts, who, when and the id', async () => {
  const owner = await harness.signedIn();
  await resetLabel(owner, 'staging');
  await owner.goto(harness.promptUrl(PROMPT));
  const panel = panelOf(owner, 'staging');
  await panel.getByText('staging is not rolling out: every read at ?label=staging gets 1.0.0.').waitFor();
  await panel.getByRole('button', { name: 'Start a rollout of staging' }).click();

  const dialog = owner.getByRole('dialog', { name: 'Start a rollout of staging?' });
  // The published versions other than the label's, newest first.
  await expect(dialog.getByRole('combobox', { name: 'Version to roll out' }).locator('option').allTextContents()).resolves.toEqual(['1.0.2', '1.0.1']);
  await dialog.getByRole('combobox', { name: 'Version to roll out' }).selectOption('1.0.1');
  await dialog.getByRole('table', { name: 'User message' }).waitFor();
  await dialog.getByText('Callers that fill only the old variables will miss ${product}.').waitFor();

  // The share is checked before sending: three decimals are refused with the rule, and nothing starts.
  const share = dialog.getByRole('spinbutton', { name: 'Share of subjects (%)' });
  await share.fill('33.333');
  await dialog.getByRole('button', { name: /^Yes, roll out 1\.0\.1 to/ }).click();
  await dialog.getByRole('alert').filter({ hasText: 'A share from 0 to 100, at most two decimals.' }).waitFor();
  expect(await rolloutOf(owner, 'staging')).toBeUndefined();
  // A preset fills the field.
  await dialog.getByRole('button', { name: '25%', exact: true }).click();
  await expect(share.inputValue()).resolves.toBe('25');
  await share.fill('10');
  await dialog.getByRole('textbox', { name: 'Note (optional)' }).fill('Warmer welcome for returning users');
  await dialog.getByRole('button', { name: 'Yes, roll out 1.0.1 to 10%' }).click();

  await panel.getByText('rolling out from 1.0.0 to 1.0.1, at 10% of subjects').waitFor();
  const started = await rolloutOf(owner, 'staging');
  expect(started).toMatchObject({ percent: 10, state: 'active' });
  await panel.getByText(started?.rolloutId ?? 'no rollout', { exact: true }).waitFor();
  await panel.getByText(`by ${harness.demo.email}`).waitFor();
  await expect(panel.getByRole('meter', { name: 'Share of staging on 1.0.1' }).getAttribute('value')).resolves.toBe('10');
  await expect(servedRow(panel, 'Stays (from)')).resolves.toEqual(['1.0.0', '0', '—']);
  await expect(servedRow(panel, 'New (to)')).resolves.toEqual(['1.0.1', '0', '—']);
  // While it rolls out, the label is not moved or removed directly: the buttons say why.
  const row = owner.getByRole('row', { name: /^staging/ });
  expect(await row.getByRole('button', { name: 'Move staging', exact: true }).isDisabled()).toBe(true);
  await owner.getByText('staging is rolling out to 1.0.1 (10%): complete or abort the rollout before moving or removing it.').first().waitFor();
  // The history says it started.
  await historyOf(owner, 'staging').getByRole('rowheader', { name: 'rollout started: 10% of subjects on 1.0.1' }).waitFor();
});

test('the share changes with the slider or a step, only after a confirmation that says who moves', async () => {
  const owner = await harness.signedIn();
  await freshRollout(owner, 'staging');
  await owner.goto(harness.promptUrl(PROMPT));
  const panel = panelOf(owner, 'staging');
  const slider = panel.getByRole('slider', { name: 'New share for staging' });
  await expect(slider.inputValue()).resolves.toBe('10');
  await expect(slider.getAttribute('aria-valuetext')).resolves.toBe('10% of subjects get 1.0.1');
  expect(await button(owner, 'Apply share').isDisabled()).toBe(true);

  await slider.fill('30');
  await expect(slider.getAttribute('aria-valuetext')).resolves.toBe('30% of subjects get 1.0.1');
  await panel.getByRole('button', { name: 'Set the new share to 50%' }).click();
  await expect(slider.inputValue()).resolves.toBe('50');
  await button(owner, 'Apply share').click();
  const confirm = owner.getByRole('dialog', { name: 'Change the share of staging to 50%?' });
  await confirm.getByText('50% of subjects get 1.0.1 instead of 10%: subjects already on 1.0.1 stay there, and more move from 1.0.0 to it.').waitFor();
  // Cancelled, nothing changes.
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  expect((await rolloutOf(owner, 'staging'))?.percent).toBe(10);

  await button(owner, 'Apply share').click();
  await confirm.getByRole('button', { name: 'Yes, change the share to 50%' }).click();
  await panel.getByText('rolling out from 1.0.0 to 1.0.1, at 50% of subjects').waitFor();
  expect((await rolloutOf(owner, 'staging'))?.percent).toBe(50);
  await historyOf(owner, 'staging')
    .getByRole('rowheader', { name: /^rollout share changed to 50% on 1\.0\.1/ })
    .waitFor();
});

test('a share with two decimals is set from the slider, 12.5%, and the slider at it reads 12.5, not a snapped 13', async () => {
  const owner = await harness.signedIn();
  await freshRollout(owner, 'staging');
  await owner.goto(harness.promptUrl(PROMPT));
  const panel = panelOf(owner, 'staging');
  const slider = panel.getByRole('slider', { name: 'New share for staging' });
  await expect(slider.inputValue()).resolves.toBe('10');

  await slider.fill('12.5');
  await expect(slider.inputValue()).resolves.toBe('12.5');
  await expect(slider.getAttribute('aria-valuetext')).resolves.toBe('12.5% of subjects get 1.0.1');
  await button(owner, 'Apply share').click();
  const confirm = owner.getByRole('dialog', { name: 'Change the share of staging to 12.5%?' });
  await confirm.getByText('12.5% of subjects get 1.0.1 instead of 10%', { exact: false }).waitFor();
  await confirm.getByRole('button', { name: 'Yes, change the share to 12.5%' }).click();
  await panel.getByText('rolling out from 1.0.0 to 1.0.1, at 12.5% of subjects').waitFor();
  expect((await rolloutOf(owner, 'staging'))?.percent).toBe(12.5);

  // Read again, the slider stands where the rollout is.
  await owner.reload();
  await expect(slider.inputValue()).resolves.toBe('12.5');
  await expect(slider.getAttribute('aria-valuetext')).resolves.toBe('12.5% of subjects get 1.0.1');
  expect(await button(owner, 'Apply share').isDisabled()).toBe(true);
});

test('completing moves the label to the new version for everyone; the history says started, then completed', async () => {
  const owner = await harness.signedIn();
  await freshRollout(owner, 'staging', 25);
  const served = await readsAt('staging', ['ana', 'bea', 'carl', 'dora', 'emil', 'fay']);
  await owner.goto(harness.promptUrl(PROMPT));
  const panel = panelOf(owner, 'staging');
  await panel.getByRole('button', { name: 'Complete rollout of staging' }).click();
  const confirm = owner.getByRole('dialog', { name: 'Complete the rollout of staging?' });
  await confirm.getByText('staging moves to 1.0.1 for everyone', { exact: false }).waitFor();
  await confirm.getByRole('button', { name: 'Yes, move staging to 1.0.1' }).click();

  await panel.getByRole('status').filter({ hasText: 'Rollout completed: staging now points at 1.0.1 for everyone' }).waitFor();
  expect(await labelOf(owner, 'staging')).toBe('1.0.1');
  expect(await rolloutOf(owner, 'staging')).toBeUndefined();
  await owner
    .getByRole('row', { name: /^staging/ })
    .getByRole('cell', { name: '1.0.1', exact: true })
    .waitFor();
  const history = historyOf(owner, 'staging');
  await history
    .getByRole('row')
    .nth(1)
    .getByRole('rowheader', {
      name: `rollout completed: now 1.0.1 (served ${served.from} ${served.from === 1 ? 'read' : 'reads'} of 1.0.0, ${served.to} of 1.0.1)`,
    })
    .waitFor();
  await history.getByRole('row').nth(2).getByRole('rowheader', { name: 'rollout started: 25% of subjects on 1.0.1' }).waitFor();
  // Each entry names its rollout.
  await expect(history.getByRole('row').nth(1).textContent()).resolves.toMatch(/ro_\d{17}_[0-9a-f]{8}/);
  // And the label can be moved again.
  await owner.getByRole('combobox', { name: 'Version for staging' }).selectOption('1.0.0');
  expect(
    await owner
      .getByRole('row', { name: /^staging/ })
      .getByRole('button', { name: 'Move staging', exact: true })
      .isDisabled(),
  ).toBe(false);
});

test('aborting, with a reason, leaves the label where it was; the history says aborted', async () => {
  const owner = await harness.signedIn();
  await freshRollout(owner, 'staging', 5);
  await owner.goto(harness.promptUrl(PROMPT));
  const panel = panelOf(owner, 'staging');
  await panel.getByRole('button', { name: 'Abort rollout of staging' }).click();
  const confirm = owner.getByRole('dialog', { name: 'Abort the rollout of staging?' });
  await confirm.getByText('staging stays on 1.0.0: the 5% of subjects on 1.0.1 go back to 1.0.0 from their next request.').waitFor();
  await confirm.getByRole('textbox', { name: 'Reason (optional)' }).fill('Complaints about the tone');
  await confirm.getByRole('button', { name: 'Yes, abort: keep staging on 1.0.0' }).click();

  await panel.getByRole('status').filter({ hasText: 'Rollout aborted: staging stays on 1.0.0 for everyone' }).waitFor();
  expect(await labelOf(owner, 'staging')).toBe('1.0.0');
  expect(await rolloutOf(owner, 'staging')).toBeUndefined();
  await historyOf(owner, 'staging')
    .getByRole('row')
    .nth(1)
    .getByRole('rowheader', { name: /^rollout aborted at 5%: stays on 1\.0\.0/ })
    .waitFor();
  await panel.getByRole('button', { name: 'Start a rollout of staging' }).waitFor();
});

test('a refusal is said next to the control: a rollout started meanwhile is a 409 in the dialog, and nothing else starts', async () => {
  const owner = await harness.signedIn();
  await resetLabel(owner, 'staging');
  await owner.goto(harness.promptUrl(PROMPT));
  await panelOf(owner, 'staging').getByRole('button', { name: 'Start a rollout of staging' }).click();
  const dialog = owner.getByRole('dialog', { name: 'Start a rollout of staging?' });
  await dialog.getByRole('table').first().waitFor();
  // Someone else starts one from elsewhere while the dialog is open.
  const theirs = await freshRollout(owner, 'staging', 1);
  await dialog.getByRole('button', { name: /^Yes, roll out 1\.0\.2 to 10%/ }).click();
  await dialog
    .getByRole('alert')
    .filter({ hasText: /^Starting the rollout of staging failed: / })
    .waitFor();
  await expect(rolloutOf(owner, 'staging')).resolves.toMatchObject({ rolloutId: theirs.rolloutId, percent: 1 });
  await dialog.getByRole('button', { name: 'Cancel' }).click();
});

test('a tab left open while its rollout was ended and another started ends nothing: Complete and Abort are refused in the dialog, naming both', async () => {
  const owner = await harness.signedIn();
  const shown = await freshRollout(owner, 'staging', 10);
  await owner.goto(harness.promptUrl(PROMPT));
  const panel = panelOf(owner, 'staging');
  await panel.getByText(shown.rolloutId, { exact: true }).waitFor();

  // The dialog is opened on the rollout the tab shows; meanwhile, elsewhere, it is aborted and another one started.
  await panel.getByRole('button', { name: 'Complete rollout of staging' }).click();
  const complete = owner.getByRole('dialog', { name: 'Complete the rollout of staging?' });
  const newer = await freshRollout(owner, 'staging', 30);
  await complete.getByRole('button', { name: 'Yes, move staging to 1.0.1' }).click();
  await complete
    .getByRole('alert')
    .filter({ hasText: `has rollout ${newer.rolloutId}, not ${shown.rolloutId}` })
    .waitFor();
  await complete.getByRole('button', { name: 'Cancel' }).click();
  await expect(rolloutOf(owner, 'staging')).resolves.toMatchObject({ rolloutId: newer.rolloutId, percent: 30, state: 'active' });
  expect(await labelOf(owner, 'staging')).toBe('1.0.0');

  // Once the tab shows the newer one, the same happens to an abort meant for it.
  await owner.reload();
  await panel.getByText(newer.rolloutId, { exact: true }).waitFor();
  await panel.getByRole('button', { name: 'Abort rollout of staging' }).click();
  const abort = owner.getByRole('dialog', { name: 'Abort the rollout of staging?' });
  const newest = await freshRollout(owner, 'staging', 20);
  await abort.getByRole('button', { name: 'Yes, abort: keep staging on 1.0.0' }).click();
  await abort
    .getByRole('alert')
    .filter({ hasText: `has rollout ${newest.rolloutId}, not ${newer.rolloutId}` })
    .waitFor();
  await abort.getByRole('button', { name: 'Cancel' }).click();
  await expect(rolloutOf(owner, 'staging')).resolves.toMatchObject({ rolloutId: newest.rolloutId, percent: 20, state: 'active' });
});

test('the served counts move while the panel is open, as reads at the label are answered', async () => {
  const owner = await harness.signedIn();
  await freshRollout(owner, 'staging', 50);
  await owner.goto(harness.promptUrl(PROMPT));
  const panel = panelOf(owner, 'staging');
  await expect(servedRow(panel, 'Stays (from)')).resolves.toEqual(['1.0.0', '0', '—']);
  const { from, to } = await readsAt(
    'staging',
    Array.from({ length: 20 }, (_, i) => `user-${i}`),
  );
  // No reload: the panel reads its counts again every 10 seconds.
  await panel.getByRole('row', { name: new RegExp(`^Stays \\(from\\) 1\\.0\\.0 ${from} `) }).waitFor({ timeout: 30_000 });
  const share = (count: number) => `${Number(((count / 20) * 100).toFixed(2))}%`;
  await expect(servedRow(panel, 'Stays (from)')).resolves.toEqual(['1.0.0', String(from), share(from)]);
  await expect(servedRow(panel, 'New (to)')).resolves.toEqual(['1.0.1', String(to), share(to)]);
});

test('a viewer sees the rollout read-only: the share, the counts and who started it, and no control', async () => {
  const owner = await harness.signedIn();
  const rollout = await freshRollout(owner, 'staging', 10);
  const viewer = await harness.signedIn(vera);
  await viewer.goto(harness.promptUrl(PROMPT));
  const panel = panelOf(viewer, 'staging');
  await panel.getByText('rolling out from 1.0.0 to 1.0.1, at 10% of subjects').waitFor();
  await panel.getByText(rollout.rolloutId, { exact: true }).waitFor();
  await panel.getByRole('table').waitFor();
  await panel.getByText('Viewers cannot move labels: that needs an editor of this account.').waitFor();
  expect(await panel.getByRole('button').count()).toBe(0);
  expect(await panel.getByRole('slider').count()).toBe(0);
  expect(await panelOf(viewer, 'production').getByRole('button').count()).toBe(0);
  // The API is the rule: a viewer's change is refused, and the share stays.
  expect((await api(viewer, 'PATCH', '/labels/staging/rollout', { percent: 50 })).status).toBe(403);
  expect((await rolloutOf(owner, 'staging'))?.percent).toBe(10);
});

test('where the label needs approval, starting opens a change request; another person approves it and the rollout is active', async () => {
  const owner = await harness.signedIn();
  await resetLabel(owner, 'production');
  expect((await fromPage(owner, 'PATCH', `/accounts/${ACCOUNT}`, { approvals: { labels: ['production'], required: 1 } })).status).toBe(200);
  try {
    const asker = await harness.signedIn(rita);
    await asker.goto(harness.promptUrl(PROMPT));
    await panelOf(asker, 'production').getByRole('button', { name: 'Start a rollout of production' }).click();
    const dialog = asker.getByRole('dialog', { name: 'Start a rollout of production?' });
    await dialog.getByText('production needs an approval: this opens a change request', { exact: false }).waitFor();
    await dialog.getByRole('combobox', { name: 'Version to roll out' }).selectOption('1.0.1');
    await dialog.getByRole('button', { name: '5%', exact: true }).click();
    await dialog.getByRole('textbox', { name: 'Note (optional)' }).fill('Try the warmer welcome on a few');
    await dialog.getByRole('button', { name: 'Yes, ask to roll out 1.0.1 to 5%' }).click();
    const panel = panelOf(asker, 'production');
    await panel.getByText('A change request was opened: the rollout of production to 1.0.1 at 5% starts once it is approved', { exact: false }).waitFor();
    expect(await rolloutOf(asker, 'production')).toBeUndefined();
    await panel.getByRole('link', { name: 'Open the change request' }).click();
    const title = 'Roll out production of tone from 1.0.0 to 1.0.1 for 5%';
    await asker.getByRole('heading', { name: title, level: 1 }).waitFor();
    const requestPath = new URL(asker.url()).hash;

    // The other person, in their own browser profile.
    await owner.goto(`${harness.stack.dashboardUrl}/${requestPath}`);
    await owner.getByRole('heading', { name: title, level: 1 }).waitFor();
    await owner.getByText('Try the warmer welcome on a few').waitFor();
    await button(owner, 'Approve').click();
    await owner.getByText('Approved and applied: the rollout of production of tone to 1.0.1 started at 5%', { exact: false }).first().waitFor();
    expect(await rolloutOf(owner, 'production')).toMatchObject({ percent: 5, state: 'active' });
    expect(await labelOf(owner, 'production')).toBe('1.0.0');

    await asker.goto(harness.promptUrl(PROMPT));
    await panelOf(asker, 'production').getByText('rolling out from 1.0.0 to 1.0.1, at 5% of subjects').waitFor();
  } finally {
    expect((await fromPage(owner, 'PATCH', `/accounts/${ACCOUNT}`, { approvals: { labels: [], required: 1 } })).status).toBe(200);
    await resetLabel(owner, 'production');
  }
});

test.each(['light', 'dark'] as const)(
  "the prompt page with an active rollout, and its dialogs, pass axe-core's WCAG 2.1 A and AA rules in the %s scheme",
  async (colorScheme) => {
    const owner = await harness.signedIn(harness.demo, { colorScheme });
    await freshRollout(owner, 'staging', 25);
    // Some reads, so the counts are not all zero in the picture.
    await readsAt(
      'staging',
      Array.from({ length: 12 }, (_, i) => `reader-${i}`),
    );
    await owner.goto(harness.promptUrl(PROMPT));
    const panel = panelOf(owner, 'staging');
    await panel.getByRole('slider').waitFor();
    await owner.waitForLoadState('networkidle');
    expect({ page: 'prompt with a rollout', violations: await seriousViolations(owner) }).toEqual({ page: 'prompt with a rollout', violations: [] });
    if (colorScheme === 'light') {
      // docs/images/dashboard-rollout.png is a copy of this one, made by hand (a test run leaves docs/ alone).
      await panel.evaluate((element) => (element as unknown as { scrollIntoView(): void }).scrollIntoView());
      await panel.screenshot({ path: join(ARTIFACTS, 'dashboard-rollout.png') });
    }

    await panel.getByRole('button', { name: 'Set the new share to 50%' }).click();
    await button(owner, 'Apply share').click();
    await owner.getByRole('dialog', { name: 'Change the share of staging to 50%?' }).waitFor();
    expect({ page: 'share dialog', violations: await seriousViolations(owner) }).toEqual({ page: 'share dialog', violations: [] });
    await owner.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();

    await panelOf(owner, 'production').getByRole('button', { name: 'Start a rollout of production' }).click();
    await owner.getByRole('dialog', { name: 'Start a rollout of production?' }).getByRole('table').first().waitFor();
    expect({ page: 'start dialog', violations: await seriousViolations(owner) }).toEqual({ page: 'start dialog', violations: [] });
    await owner.screenshot({ path: join(ARTIFACTS, `dashboard-rollout-start-${colorScheme}.png`), fullPage: true });
  },
);
