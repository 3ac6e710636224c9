import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { ACCOUNT, ARTIFACTS, button, DashboardHarness, fromPage, type Person, publishedPrompt, textbox } from './support/dashboard';
import { seriousViolations } from './support/axe';

/**
 * management-api.md, "Change requests in the dashboard": a label that needs approval moves only once someone
 * else approves. Two people, each in their own browser profile: Rita (an admin) asks, the demo owner decides.
 * Also the label's history with Restore, the Requests page and its count in the navigation, the owners'
 * approval settings, axe-core on the new pages in both schemes, and the keyboard alone. Driven by role and
 * accessible name, as a person would.
 */

jest.setTimeout(300_000);

const harness = new DashboardHarness();
let rita: Person;

beforeAll(async () => {
  await harness.start();
  const owner = await harness.signedIn();
  ({ person: rita } = await harness.addPerson(owner, 'rita@example.com', 'admin'));
  // 1.0.1 asks for a variable 1.0.0 did not have; 1.0.2 drops it again.
  await publishedPrompt(harness, owner, 'greet', ['Hello ${name}', 'Hello ${name} from ${city}', 'Hi ${name}']);
  // From the list: a version page has a second Prompts link (its breadcrumb).
  await owner.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Prompts' }).click();
  await owner.getByRole('heading', { name: 'Prompts', level: 1 }).waitFor();
  await publishedPrompt(harness, owner, 'restore-me', ['Good ${name}', 'Broken ${name} ${oops}']);
  // production is set before any label needs approval: the flows below start from 1.0.0; restore-me's went on to 1.0.1.
  for (const [promptId, version] of [
    ['greet', '1.0.0'],
    ['restore-me', '1.0.0'],
    ['restore-me', '1.0.1'],
  ]) {
    expect((await fromPage(owner, 'PUT', `/accounts/${ACCOUNT}/prompts/${promptId}/labels/production`, { version })).status).toBe(200);
  }
  await harness.closeTabs();
});

afterAll(() => harness.stop());

afterEach(async () => {
  expect(await harness.closeTabs()).toEqual([]);
});

const api = (page: Page, method: string, path: string, body?: unknown) => fromPage(page, method, `/accounts/${ACCOUNT}${path}`, body);

/**
 * production of every prompt needs one approval (set by the owner through the API, for the tests that do not test
 * the setting), and no request is left open by a test before (a label takes one open request at a time): the owner
 * rejects any.
 */
async function productionNeedsApproval(owner: Page): Promise<void> {
  await approvalsFor(owner, ['production']);
  const open = (await api(owner, 'GET', '/requests?state=open')).body as { requests: { requestId: string }[] };
  for (const { requestId } of open.requests)
    expect((await api(owner, 'POST', `/requests/${requestId}/reject`, { comment: 'left open by a test before' })).status).toBe(200);
}

async function approvalsFor(owner: Page, labels: readonly string[]): Promise<void> {
  expect((await api(owner, 'PATCH', '', { approvals: { labels, required: 1 } })).status).toBe(200);
}

async function labelOf(page: Page, promptId: string, label: string): Promise<string | undefined> {
  const answer = await api(page, 'GET', `/prompts/${promptId}`);
  return (answer.body as { labels: Record<string, string> }).labels[label];
}

/** From the prompt's page: asks to move production, through the confirmation, and follows the link to the request it opened. */
async function askToMoveProduction(page: Page, to: string, reason: string): Promise<void> {
  await page.goto(harness.promptUrl('greet'));
  await page.getByRole('combobox', { name: 'Version for production' }).selectOption(to);
  await button(page, 'Move production').click();
  const dialog = page.getByRole('dialog', { name: /^Move production from [\d.]+ to / });
  await dialog.getByRole('textbox', { name: 'Reason (optional)' }).fill(reason);
  await dialog.getByRole('button', { name: `Yes, ask to move production to ${to}` }).click();
  await said(page, 'A change request was opened').waitFor();
  await page.getByRole('link', { name: 'Open the change request' }).click();
  await page.getByRole('heading', { name: new RegExp(`^Move production of greet from [\\d.]+ to ${to.replace(/\./g, '\\.')}$`), level: 1 }).waitFor();
}

/** What the page says in its main content (the live region outside it repeats it for screen readers). */
const said = (where: Page | Locator, text: string) => ('goto' in where ? where.getByRole('main') : where).getByText(text);

const requestIdOf = (page: Page): string => decodeURIComponent(new URL(page.url()).hash.split('/').at(-1) ?? '');

test('an owner chooses which labels need approval and how many; an admin sees the setting, read-only, with the reason', async () => {
  const owner = await harness.signedIn();
  await owner.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Settings' }).click();
  await owner.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
  await textbox(owner, 'Labels that need approval').fill('production, Hotfix');
  await button(owner, 'Save approvals').click();
  // Said before sending: the API's label rule.
  await owner.getByRole('alert').filter({ hasText: 'Hotfix: a label is 1 to 32 characters' }).waitFor();
  await textbox(owner, 'Labels that need approval').fill('production');
  await owner.getByRole('combobox', { name: 'Approvals needed' }).selectOption('2');
  await button(owner, 'Save approvals').click();
  await owner.getByText('Now: a move of production opens a change request, and happens once 2 other people approve it.').waitFor();
  expect((await api(owner, 'GET', '')).body).toMatchObject({ approvals: { labels: ['production'], required: 2 } });
  await owner.getByRole('combobox', { name: 'Approvals needed' }).selectOption('1');
  await button(owner, 'Save approvals').click();
  await owner.getByText('happens once one other person approves it').waitFor();

  const admin = await harness.signedIn(rita);
  await admin.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Settings' }).click();
  // Each of the page's settings (approvals, the model budget) says why it is read-only, beside its own controls.
  await admin.getByRole('region', { name: 'Approvals' }).getByText('Admins cannot change account settings: that needs an owner of this account.').waitFor();
  expect(await textbox(admin, 'Labels that need approval').isDisabled()).toBe(true);
  await expect(textbox(admin, 'Labels that need approval').inputValue()).resolves.toBe('production');
  expect(await admin.getByRole('combobox', { name: 'Approvals needed' }).isDisabled()).toBe(true);
  expect(await button(admin, 'Save approvals').isDisabled()).toBe(true);
  // The greyed form is the page's courtesy; the API is the rule.
  expect((await api(admin, 'PATCH', '', { approvals: { labels: [], required: 1 } })).status).toBe(403);
});

test('one asks to move production and gets a request; the requester cannot approve it; the other approves and the label moves', async () => {
  const owner = await harness.signedIn();
  await productionNeedsApproval(owner);
  const asker = await harness.signedIn(rita);
  await asker.goto(harness.promptUrl('greet'));
  await asker.getByRole('combobox', { name: 'Version for production' }).selectOption('1.0.1');
  await button(asker, 'Move production').click();
  const dialog = asker.getByRole('dialog', { name: 'Move production from 1.0.0 to 1.0.1?' });
  await dialog.getByText('production needs an approval: this opens a change request').waitFor();
  // The same diff as every protected move, and the variable callers would miss.
  await dialog.getByRole('table', { name: 'User message' }).waitFor();
  await dialog.getByText('Callers that fill only the old variables will miss ${city}.').waitFor();
  await dialog.getByRole('textbox', { name: 'Reason (optional)' }).fill('Greet people by their city');
  await dialog.getByRole('button', { name: 'Yes, ask to move production to 1.0.1' }).click();
  await said(asker, 'A change request was opened: production stays at 1.0.0 until it is approved, then moves to 1.0.1.').waitFor();
  expect(await labelOf(asker, 'greet', 'production')).toBe('1.0.0');
  await asker.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Requests, 1 open' }).waitFor();

  await asker.getByRole('link', { name: 'Open the change request' }).click();
  await asker.getByRole('heading', { name: 'Move production of greet from 1.0.0 to 1.0.1', level: 1 }).waitFor();
  const requestId = requestIdOf(asker);
  await asker.getByText('You asked for this change: someone else approves or rejects it.').waitFor();
  expect(await button(asker, 'Approve').count()).toBe(0);
  expect(await button(asker, 'Reject').count()).toBe(0);
  await button(asker, 'Withdraw request').waitFor();
  // Forced through the API all the same: 403, and nothing moved.
  expect((await api(asker, 'POST', `/requests/${requestId}/approve`, {})).status).toBe(403);
  expect(await labelOf(asker, 'greet', 'production')).toBe('1.0.0');

  // The other person, in their own browser profile, finds it from the navigation.
  await owner.reload();
  await owner.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Requests, 1 open' }).click();
  await owner.getByRole('heading', { name: 'Requests', level: 1 }).waitFor();
  await owner.getByRole('link', { name: 'Move production of greet from 1.0.0 to 1.0.1' }).click();
  await owner.getByRole('heading', { name: 'Move production of greet from 1.0.0 to 1.0.1', level: 1 }).waitFor();
  const changes = owner.getByRole('region', { name: 'What changes' });
  await changes.getByRole('table', { name: 'User message' }).waitFor();
  await expect(changes.getByRole('list', { name: 'Variables added' }).textContent()).resolves.toBe('${city}');
  await changes.getByText('Callers that fill only the old variables will miss ${city}.').waitFor();
  await owner.getByText('Greet people by their city').waitFor();
  // docs/images/dashboard-request.png is a copy of this one, made by hand (a test run leaves docs/ alone).
  await owner.screenshot({ path: join(ARTIFACTS, 'dashboard-request.png'), fullPage: true });

  await textbox(owner, 'Comment (optional)').fill('Checked with the city list');
  await button(owner, 'Approve').click();
  await said(owner, 'You approved it. Approved and applied: production of greet points at 1.0.1').waitFor();
  expect(await labelOf(owner, 'greet', 'production')).toBe('1.0.1');
  const approvals = owner.getByRole('region', { name: /^Approvals/ });
  await approvals.getByText('Checked with the city list').waitFor();
  await expect(approvals.textContent()).resolves.toContain(harness.demo.email);
  // Decided: no more buttons, for anyone.
  await owner.getByText('Nothing left to decide.').waitFor();
  await owner.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Requests', exact: true }).waitFor();
});

test('an approval from a member demoted since is marked as not counting, in words, and the label waits for approvals that count', async () => {
  const owner = await harness.signedIn();
  await productionNeedsApproval(owner);
  expect((await api(owner, 'PATCH', '', { approvals: { labels: ['production'], required: 2 } })).status).toBe(200);
  const { page: bob } = await harness.addPerson(owner, 'bob@example.com', 'admin');
  const asker = await harness.signedIn(rita);
  const from = await labelOf(asker, 'greet', 'production');
  const to = from === '1.0.2' ? '1.0.1' : '1.0.2';
  const asked = await api(asker, 'PUT', '/prompts/greet/labels/production', { version: to, note: 'Needs two' });
  expect(asked.status).toBe(202);
  const { requestId } = (asked.body as { request: { requestId: string } }).request;

  // Bob approves in his own browser: it counts, and one more is needed.
  await bob.goto(`${harness.stack.dashboardUrl}/#/accounts/${ACCOUNT}/requests/${requestId}`);
  await button(bob, 'Approve').click();
  await said(bob, 'You approved it.').waitFor();
  await bob
    .getByRole('region', { name: /^Approvals/ })
    .getByText('Counts.')
    .waitFor();

  // The owner makes Bob a viewer: his approval stays on the request, and no longer counts.
  const { members } = (await api(owner, 'GET', '/members')).body as { members: { userId: string; email: string }[] };
  const bobId = members.find((member) => member.email === 'bob@example.com')?.userId;
  expect((await api(owner, 'PATCH', `/members/${bobId}`, { role: 'viewer' })).status).toBe(200);
  await owner.goto(`${harness.stack.dashboardUrl}/#/accounts/${ACCOUNT}/requests/${requestId}`);
  const approvals = owner.getByRole('region', { name: /^Approvals/ });
  await approvals.getByRole('heading', { name: 'Approvals (0 of 2 approvals, 1 not counting)' }).waitFor();
  await approvals.getByText('Does not count now: bob@example.com is a viewer, and approving a change of production needs the admin role.').waitFor();
  await owner.getByText('Waiting for 2 more approvals (0 of 2 approvals, 1 not counting).', { exact: false }).waitFor();
  // The owner's own approval is one that counts: still one short, nothing moves.
  await button(owner, 'Approve').click();
  await said(owner, 'You approved it.').waitFor();
  await approvals.getByRole('heading', { name: 'Approvals (1 of 2 approvals, 1 not counting)' }).waitFor();
  expect(await labelOf(owner, 'greet', 'production')).toBe(from);
  const read = (await api(owner, 'GET', `/requests/${requestId}`)).body as { request: { state: string; approvals: { by: string; counts: boolean }[] } };
  expect(read.request).toMatchObject({
    state: 'open',
    approvals: [
      { by: 'bob@example.com', counts: false },
      { by: harness.demo.email, counts: true },
    ],
  });

  // Left as the tests after this one expect: nothing open, one approval needed.
  expect((await api(asker, 'POST', `/requests/${requestId}/withdraw`)).status).toBe(200);
  expect((await api(owner, 'PATCH', '', { approvals: { labels: ['production'], required: 1 } })).status).toBe(200);
});

test('a rejected request and a withdrawn one leave the label where it was, each listed under its state', async () => {
  const owner = await harness.signedIn();
  await productionNeedsApproval(owner);
  const before = await labelOf(owner, 'greet', 'production');
  const asker = await harness.signedIn(rita);

  await askToMoveProduction(asker, '1.0.2', 'Shorter greeting');
  const rejected = requestIdOf(asker);
  await owner.goto(`${harness.stack.dashboardUrl}/#/accounts/${ACCOUNT}/requests/${rejected}`);
  await textbox(owner, 'Comment (optional)').fill('Not this week');
  await button(owner, 'Reject').click();
  await said(owner, `You rejected it. Rejected by ${harness.demo.email}: production did not move.`).waitFor();
  expect(await labelOf(owner, 'greet', 'production')).toBe(before);

  await askToMoveProduction(asker, '1.0.2', 'Shorter greeting, again');
  await button(asker, 'Withdraw request').click();
  await said(asker, 'You withdrew it.').waitFor();
  expect(await labelOf(asker, 'greet', 'production')).toBe(before);

  await owner
    .getByRole('navigation', { name: 'Sections' })
    .getByRole('link', { name: /^Requests/ })
    .click();
  await owner.getByRole('radio', { name: 'Rejected' }).check();
  await owner.getByRole('link', { name: `Move production of greet from ${before} to 1.0.2` }).waitFor();
  await owner
    .getByRole('row', { name: /Shorter greeting/ })
    .getByText('rejected', { exact: true })
    .waitFor();
  await owner.getByRole('radio', { name: 'Withdrawn' }).check();
  await owner
    .getByRole('row', { name: /Shorter greeting, again/ })
    .getByText('withdrawn', { exact: true })
    .waitFor();
  await owner.getByRole('radio', { name: 'Open' }).check();
  await owner.getByRole('status').filter({ hasText: 'No open requests.' }).waitFor();
});

test('a request whose label moved meanwhile is stale: approving it is refused, and the page says why nothing moved', async () => {
  const owner = await harness.signedIn();
  await productionNeedsApproval(owner);
  const asker = await harness.signedIn(rita);
  const from = await labelOf(owner, 'greet', 'production');
  const to = from === '1.0.2' ? '1.0.0' : '1.0.2';
  await askToMoveProduction(asker, to, 'Will go stale');
  const stale = requestIdOf(asker);

  // production moves another way meanwhile: the owner lifts the approval, moves it, and puts it back.
  const elsewhere = ['1.0.0', '1.0.1', '1.0.2'].find((v) => v !== from && v !== to) ?? '1.0.1';
  await approvalsFor(owner, []);
  expect((await api(owner, 'PUT', '/prompts/greet/labels/production', { version: elsewhere })).status).toBe(200);
  await approvalsFor(owner, ['production']);

  await owner.goto(`${harness.stack.dashboardUrl}/#/accounts/${ACCOUNT}/requests/${stale}`);
  await owner.getByRole('heading', { name: `Move production of greet from ${from} to ${to}`, level: 1 }).waitFor();
  // Still open: the API finds out when the approval that would apply it comes (409), and nothing moves.
  await owner.getByText(`production from ${from} to ${to} · it has moved since: now at ${elsewhere}`).waitFor();
  await button(owner, 'Approve').click();
  await owner.getByRole('alert').filter({ hasText: 'Approving failed' }).waitFor();
  await owner.getByText(`Stale: production moved (to ${elsewhere}) after this was asked, so it no longer points at ${from}`, { exact: false }).waitFor();
  await owner.getByText('Nothing left to decide.').waitFor();
  expect(await labelOf(owner, 'greet', 'production')).toBe(elsewhere);
  await owner
    .getByRole('navigation', { name: 'Sections' })
    .getByRole('link', { name: /^Requests/ })
    .click();
  await owner.getByRole('radio', { name: 'Stale' }).check();
  await owner
    .getByRole('row', { name: /Will go stale/ })
    .getByText('stale', { exact: true })
    .waitFor();
});

test("a label's history, paged, restores a past version: at once for staging, through a request for production", async () => {
  const owner = await harness.signedIn();
  await productionNeedsApproval(owner);
  // staging needs no approval: 51 moves, so its history has a second page.
  for (let i = 0; i < 51; i += 1) {
    expect((await api(owner, 'PUT', '/prompts/restore-me/labels/staging', { version: i % 2 === 0 ? '1.0.0' : '1.0.1', note: `move ${i}` })).status).toBe(200);
  }
  await owner.goto(harness.promptUrl('restore-me'));
  const staging = owner.getByRole('region', { name: 'History of staging' });
  await staging.getByRole('rowheader', { name: '1.0.1 to 1.0.0' }).first().waitFor();
  expect(await staging.getByRole('rowheader').count()).toBe(50);
  await expect(staging.getByRole('row').nth(1).textContent()).resolves.toContain('move 50');
  await staging.getByRole('button', { name: 'Older moves of staging' }).click();
  await staging.getByRole('rowheader', { name: 'set to 1.0.0' }).waitFor();
  await expect(staging.getByRole('row', { name: /set to 1\.0\.0/ }).textContent()).resolves.toContain('move 0');
  await staging.getByRole('button', { name: 'Newer moves of staging' }).click();
  await staging.getByRole('row', { name: /move 50/ }).waitFor();

  // staging is at 1.0.0: back to 1.0.1 at once, after the diff.
  await staging.getByRole('button', { name: 'Restore staging to 1.0.1' }).first().click();
  const restoreStaging = owner.getByRole('dialog', { name: 'Restore staging to 1.0.1?' });
  await restoreStaging.getByRole('table', { name: 'User message' }).waitFor();
  await restoreStaging.getByRole('button', { name: 'Yes, restore staging to 1.0.1' }).click();
  await owner
    .getByRole('row', { name: /^staging/ })
    .getByRole('cell', { name: '1.0.1', exact: true })
    .waitFor();
  await staging.getByRole('row').nth(1).filter({ hasText: 'restored from the history' }).waitFor();

  // production needs approval: restoring restore-me's to 1.0.0 (1.0.1 needs a variable nobody sends) opens a request, which the other person approves.
  const asker = await harness.signedIn(rita);
  await asker.goto(harness.promptUrl('restore-me'));
  const production = asker.getByRole('region', { name: 'History of production' });
  await production.getByRole('rowheader', { name: '1.0.0 to 1.0.1' }).waitFor();
  await production
    .getByRole('row', { name: /1\.0\.0 to 1\.0\.1/ })
    .getByText('production is here now')
    .waitFor();
  await production
    .getByRole('row', { name: /set to 1\.0\.0/ })
    .getByRole('button', { name: 'Restore production to 1.0.0' })
    .click();
  const restore = asker.getByRole('dialog', { name: 'Restore production to 1.0.0?' });
  await restore.getByRole('table', { name: 'User message' }).waitFor();
  await restore.getByText('production needs an approval: this opens a change request').waitFor();
  await restore.getByRole('textbox', { name: 'Reason (optional)' }).fill('Back to the known good one');
  await restore.getByRole('button', { name: 'Yes, ask to restore production to 1.0.0' }).click();
  await said(production, 'A change request was opened: production stays at 1.0.1 until it is approved, then moves to 1.0.0.').waitFor();
  expect(await labelOf(asker, 'restore-me', 'production')).toBe('1.0.1');
  // The labels, the request just opened and the history, as the person sees them.
  await asker.getByRole('heading', { name: 'Labels', level: 2 }).evaluate((heading) => (heading as unknown as { scrollIntoView(): void }).scrollIntoView());
  await asker.screenshot({ path: join(ARTIFACTS, 'dashboard-history.png') });
  await production.getByRole('link', { name: 'Open the change request' }).click();
  await asker.getByRole('heading', { name: 'Restore production of restore-me from 1.0.1 to 1.0.0', level: 1 }).waitFor();
  const requestId = requestIdOf(asker);

  await owner.goto(`${harness.stack.dashboardUrl}/#/accounts/${ACCOUNT}/requests/${requestId}`);
  await owner.getByText('Back to the known good one').waitFor();
  await expect(owner.getByRole('list', { name: 'Variables removed' }).textContent()).resolves.toBe('${oops}');
  await button(owner, 'Approve').click();
  await said(owner, 'You approved it. Approved and applied: production of restore-me points at 1.0.0').waitFor();
  expect(await labelOf(owner, 'restore-me', 'production')).toBe('1.0.0');
  // The history names the request that moved it, with a link to it.
  await owner.goto(harness.promptUrl('restore-me'));
  const history = owner.getByRole('region', { name: 'History of production' });
  const newest = history.getByRole('row').nth(1);
  await newest.getByRole('rowheader', { name: '1.0.1 to 1.0.0' }).waitFor();
  await newest.getByRole('link', { name: requestId }).click();
  await owner.getByRole('heading', { name: 'Restore production of restore-me from 1.0.1 to 1.0.0', level: 1 }).waitFor();
});

test('the Requests page is reached with the keyboard alone, its filter and each request too', async () => {
  const owner = await harness.signedIn();
  await productionNeedsApproval(owner);
  const asker = await harness.signedIn(rita);
  await askToMoveProduction(asker, (await labelOf(asker, 'greet', 'production')) === '1.0.2' ? '1.0.0' : '1.0.2', 'For the keyboard');

  await owner.reload();
  await owner.getByRole('heading', { name: 'Prompts', level: 1 }).waitFor();
  await owner.getByRole('link', { name: /^Requests, \d+ open$/ }).waitFor();
  // The focused element's name: its aria-label, its label's text (a radio) or its own text.
  const focusedName = () =>
    owner.evaluate(
      'document.activeElement && (document.activeElement.getAttribute("aria-label") || (document.activeElement.labels && document.activeElement.labels[0] ? document.activeElement.labels[0].textContent : "") || document.activeElement.textContent || "").trim()',
    );
  const focusReaches = async (name: string) => {
    for (let tries = 0; tries < 50 && (await focusedName()) !== name; tries += 1) await owner.waitForTimeout(100);
    await expect(focusedName()).resolves.toBe(name);
  };
  let reached = false;
  for (let presses = 0; presses < 40 && !reached; presses += 1) {
    await owner.keyboard.press('Shift+Tab');
    reached = /^Requests, \d+ open$/.test(String(await focusedName()));
  }
  expect(reached).toBe(true);
  await owner.keyboard.press('Enter');
  await owner.getByRole('heading', { name: 'Requests', level: 1 }).waitFor();
  // The new page takes the focus to its heading, as a page load would.
  await focusReaches('Requests');

  // Into the filter: the arrow keys pick a state, as in any radio group.
  await owner.keyboard.press('Tab');
  await owner.keyboard.press('Tab');
  await focusReaches('Open');
  await owner.keyboard.press('ArrowRight');
  await expect(owner.getByRole('radio', { name: 'Applied' }).isChecked()).resolves.toBe(true);
  await owner.keyboard.press('ArrowLeft');
  await expect(owner.getByRole('radio', { name: 'Open' }).isChecked()).resolves.toBe(true);
  await owner.getByRole('link', { name: /^Move production of greet/ }).waitFor();
  await owner.keyboard.press('Tab');
  await expect(focusedName()).resolves.toMatch(/^Move production of greet/);
  await owner.keyboard.press('Enter');
  await owner.getByRole('heading', { name: /^Move production of greet/, level: 1 }).waitFor();
  await focusReaches(String(await owner.getByRole('heading', { level: 1 }).textContent()));
  // And decided from the keyboard: on to the comment, then Approve.
  await textbox(owner, 'Comment (optional)').waitFor();
  for (let presses = 0; presses < 10 && (await focusedName()) !== 'Comment (optional)'; presses += 1) await owner.keyboard.press('Tab');
  await expect(focusedName()).resolves.toBe('Comment (optional)');
  await owner.keyboard.type('Approved from the keyboard');
  await owner.keyboard.press('Tab');
  await expect(focusedName()).resolves.toBe('Approve');
  await owner.keyboard.press('Enter');
  await said(owner, 'You approved it.').waitFor();
});

test.each(['light', 'dark'] as const)(
  "the new pages pass axe-core's WCAG 2.1 A and AA rules with no serious or critical violation, in the %s scheme",
  async (colorScheme) => {
    const owner = await harness.signedIn(harness.demo, { colorScheme });
    await productionNeedsApproval(owner);
    if (((await api(owner, 'GET', '/requests?state=open')).body as { requests: unknown[] }).requests.length === 0) {
      // An open request to look at: Rita asks for one.
      const asker = await harness.signedIn(rita);
      const to = (await labelOf(asker, 'greet', 'production')) === '1.0.1' ? '1.0.2' : '1.0.1';
      expect((await api(asker, 'PUT', '/prompts/greet/labels/production', { version: to, note: 'For the accessibility check' })).status).toBe(202);
    }
    const requests = (await api(owner, 'GET', '/requests')).body as { requests: { requestId: string; state: string }[] };
    const open = requests.requests.find((request) => request.state === 'open');
    const decided = requests.requests.find((request) => request.state !== 'open');
    if (!decided) throw new Error('the tests before left no decided request');
    const base = `${harness.stack.dashboardUrl}/#/accounts/${ACCOUNT}`;
    const pages: [string, string][] = [
      ['requests', `${base}/requests`],
      ['decided request', `${base}/requests/${decided.requestId}`],
      ['settings', `${base}/settings`],
      ['prompt with label history', `${base}/prompts/restore-me`],
    ];
    if (!open) throw new Error('no open request to check');
    pages.push(['open request', `${base}/requests/${open.requestId}`]);
    for (const [name, url] of pages) {
      await owner.goto(url);
      await owner.getByRole('heading', { level: 1 }).first().waitFor();
      await owner.waitForLoadState('networkidle');
      expect({ page: name, violations: await seriousViolations(owner) }).toEqual({ page: name, violations: [] });
    }
    // The restore confirmation, open over the page.
    await owner.goto(`${base}/prompts/restore-me`);
    await owner
      .getByRole('region', { name: 'History of production' })
      .getByRole('button', { name: /^Restore production to/ })
      .first()
      .click();
    await owner.getByRole('dialog').getByRole('table').first().waitFor();
    expect({ page: 'restore dialog', violations: await seriousViolations(owner) }).toEqual({ page: 'restore dialog', violations: [] });
    await owner.screenshot({ path: join(ARTIFACTS, `dashboard-restore-${colorScheme}.png`), fullPage: true });
  },
);
