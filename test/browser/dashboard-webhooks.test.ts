import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import ts from 'typescript';
import { PYTHON_VERIFICATION, TYPESCRIPT_VERIFICATION } from '../../dashboard/src/features/webhooks/webhook-verification';
import { registerApiKey } from '../support/log-capture';
import { seriousViolations } from './support/axe';
import { ACCOUNT, ARTIFACTS, button, DashboardHarness, fromPage, type Person, textbox } from './support/dashboard';

/**
 * docs/events.md "In the dashboard": the Webhooks page, for admins and owners. A webhook is created (its secret
 * shown once, with the code that checks a delivery), edited, disabled and enabled, rotated, tested and deleted;
 * a test sent from the page reaches a receiver on the loopback address through npm start's poller and delivery
 * queue, signed with the secret the page showed, and shows in the webhook's deliveries. Editors see no link, and
 * the address tells them why. Driven by role and accessible name; traffic goes to 127.0.0.1 only.
 */

jest.setTimeout(300_000);

const harness = new DashboardHarness();
let ada: Person;
let eddie: Person;

interface Received {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A receiver on the loopback address: it answers 204 and keeps every request it got, body exactly as sent. */
let receiver: Server;
const received: Received[] = [];
let receiverUrl: string;

const flatHeaders = (headers: IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]));

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: flatHeaders(request.headers), body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((listening) => receiver.listen(0, '127.0.0.1', listening));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  await harness.start();
  const owner = await harness.signedIn();
  ({ person: ada } = await harness.addPerson(owner, 'ada@example.com', 'admin'));
  await owner.reload();
  await owner.getByRole('heading', { level: 1 }).first().waitFor();
  ({ person: eddie } = await harness.addPerson(owner, 'eddie@example.com', 'editor'));
  await harness.closeTabs();
});

afterAll(async () => {
  await harness.stop();
  await new Promise((closed) => receiver.close(closed));
});

afterEach(async () => {
  expect(await harness.closeTabs()).toEqual([]);
});

interface WebhookAnswer {
  webhookId: string;
  url: string;
  events: string[];
  enabled: boolean;
  description: string | null;
  secretRotatedAt: string | null;
}

async function storedWebhooks(page: Page): Promise<WebhookAnswer[]> {
  const answer = await fromPage(page, 'GET', `/accounts/${ACCOUNT}/webhooks`);
  expect(answer.status).toBe(200);
  return (answer.body as { webhooks: WebhookAnswer[] }).webhooks;
}

/** The Webhooks page, from the navigation. */
async function openWebhooks(page: Page): Promise<void> {
  await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
  await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
}

/** A webhook to `url` created on the page (every event), with the secret read from the one place it is shown. */
async function createOnPage(page: Page, url: string, description = ''): Promise<string> {
  await textbox(page, 'Endpoint URL').fill(url);
  if (description) await textbox(page, 'Description (optional)').fill(description);
  await button(page, 'Create webhook').click();
  const dialog = page.getByRole('dialog', { name: 'Copy the signing secret now' });
  const secret = await dialog.getByRole('textbox', { name: 'Signing secret' }).inputValue();
  registerApiKey(secret);
  return secret;
}

const cardOf = (page: Page, url: string): Locator => page.getByRole('region', { name: url, exact: true });

/** The verification code as the page shows it, compiled and loaded: what a receiver would run. */
function verifierFrom(code: string): (secret: string, headers: Record<string, string>, body: string) => boolean {
  const js = ts.transpileModule(code, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
  const loaded: { exports: Record<string, unknown> } = { exports: {} };
  new Function('require', 'module', 'exports', js)(require, loaded, loaded.exports);
  const verify = loaded.exports.verifyWebhook;
  if (typeof verify !== 'function') throw new Error('the code shown exports no verifyWebhook');
  return (secret, headers, body) => verify(secret, headers, body) === true;
}

/** The receiver's requests for one event id, once at least `count` arrived. */
async function deliveriesOf(eventId: string, count = 1): Promise<Received[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const matching = received.filter((request) => request.headers['webhook-id'] === eventId);
    if (matching.length >= count) return matching;
    if (Date.now() > deadline) throw new Error(`the receiver got no delivery of ${eventId}`);
    await new Promise((wait) => setTimeout(wait, 250));
  }
}

/** Sends a test from the card and returns its event id, as the page says it. */
async function sendTest(page: Page, url: string): Promise<string> {
  const card = cardOf(page, url);
  await card.getByRole('button', { name: `Send test to ${url}` }).click();
  const status = card.getByRole('status').filter({ hasText: /^Test event evt_/ });
  const eventId = /evt_\d{17}_[0-9a-f]{8}/.exec((await status.textContent()) ?? '')?.[0];
  if (!eventId) throw new Error('the page named no test event');
  return eventId;
}

test('an admin creates a webhook and sees its secret once, with the verification code of the docs; a reload shows it no more', async () => {
  const page = await harness.signedIn(ada);
  await openWebhooks(page);
  const url = `${receiverUrl}/created`;
  await textbox(page, 'Endpoint URL').fill(url);
  await textbox(page, 'Description (optional)').fill('Release notes bot');
  // Some events, picked by group and one by one.
  await page.getByRole('checkbox', { name: 'every event (*)' }).uncheck();
  await page.getByRole('checkbox', { name: 'every rollout.* event' }).check();
  await page.getByRole('checkbox', { name: 'prompt.label.moved', exact: true }).check();
  await button(page, 'Create webhook').click();

  const dialog = page.getByRole('dialog', { name: 'Copy the signing secret now' });
  await dialog.getByText('This secret will not be shown again:').waitFor();
  const secret = await dialog.getByRole('textbox', { name: 'Signing secret' }).inputValue();
  registerApiKey(secret);
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  await dialog.getByRole('button', { name: 'Copy secret' }).waitFor();
  await expect(dialog.getByRole('textbox', { name: 'Verify a delivery in TypeScript (Node)' }).inputValue()).resolves.toBe(TYPESCRIPT_VERIFICATION);
  await expect(dialog.getByRole('textbox', { name: 'Verify a delivery in Python' }).inputValue()).resolves.toBe(PYTHON_VERIFICATION);
  await dialog.getByRole('button', { name: 'I have copied the secret' }).click();
  await dialog.waitFor({ state: 'hidden' });

  const card = cardOf(page, url);
  await card.getByText('enabled', { exact: true }).waitFor();
  await card.getByText('prompt.label.moved, rollout.started, rollout.changed, rollout.completed, rollout.aborted').waitFor();
  await card.getByText('Release notes bot').waitFor();
  await card.getByText('by ada@example.com').waitFor();
  const stored = (await storedWebhooks(page)).find((webhook) => webhook.url === url);
  expect(stored).toMatchObject({
    events: ['prompt.label.moved', 'rollout.started', 'rollout.changed', 'rollout.completed', 'rollout.aborted'],
    description: 'Release notes bot',
    enabled: true,
  });

  await page.reload();
  await cardOf(page, url).waitFor();
  expect(await page.getByRole('dialog').count()).toBe(0);
  expect(await page.content()).not.toContain(secret);
});

test('a test sent from the page reaches the receiver, signed with the secret shown, and shows in the deliveries', async () => {
  const page = await harness.signedIn(ada);
  await openWebhooks(page);
  const url = `${receiverUrl}/tested`;
  const secret = await createOnPage(page, url);
  const dialog = page.getByRole('dialog', { name: 'Copy the signing secret now' });
  const verifyWebhook = verifierFrom(await dialog.getByRole('textbox', { name: 'Verify a delivery in TypeScript (Node)' }).inputValue());
  await dialog.getByRole('button', { name: 'I have copied the secret' }).click();

  const eventId = await sendTest(page, url);
  const [delivery] = await deliveriesOf(eventId);
  expect(delivery && verifyWebhook(secret, delivery.headers, delivery.body)).toBe(true);
  expect(JSON.parse(delivery?.body ?? '{}')).toMatchObject({ id: eventId, type: 'webhook.test', accountId: ACCOUNT });

  // The deliveries open by themselves and are read again until the attempt shows.
  const card = cardOf(page, url);
  const table = card.getByRole('table', { name: `Deliveries to ${url}: the last 100 attempts, newest first` });
  const row = table.getByRole('row').filter({ hasText: eventId });
  await row.waitFor({ timeout: 30_000 });
  const cells = await row.getByRole('cell').allTextContents();
  expect(cells).toEqual([`webhook.test${eventId}`, '1', '204', expect.stringMatching(/^\d+ ms$|^\d+\.\d s$/), '—']);
  await card.getByRole('button', { name: `Refresh deliveries to ${url}` }).click();
  await row.waitFor();
});

test('Escape does not close the secret dialog: the secret stays on screen until the button says it is copied', async () => {
  const page = await harness.signedIn(ada);
  await openWebhooks(page);
  const url = `${receiverUrl}/escaped`;
  const secret = await createOnPage(page, url);
  const dialog = page.getByRole('dialog', { name: 'Copy the signing secret now' });
  const field = dialog.getByRole('textbox', { name: 'Signing secret' });
  // Twice: Chrome closes a dialog outright on a second Escape without user activation between.
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
  await page.waitForTimeout(200);
  expect(await dialog.isVisible()).toBe(true);
  expect(await dialog.evaluate((element) => (element as unknown as { open: boolean }).open)).toBe(true);
  await expect(field.inputValue()).resolves.toBe(secret);
  expect(await field.isVisible()).toBe(true);

  await dialog.getByRole('button', { name: 'I have copied the secret' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await cardOf(page, url).waitFor();
  expect(await page.getByRole('dialog').count()).toBe(0);
});

test('Escape closes every other dialog, and the page follows: each opens again from its button, and focus goes back to it', async () => {
  const page = await harness.signedIn(ada);
  await openWebhooks(page);
  const url = `${receiverUrl}/escapable`;
  await createOnPage(page, url);
  await page.getByRole('dialog').getByRole('button', { name: 'I have copied the secret' }).click();
  const card = cardOf(page, url);
  const focusedName = () => page.evaluate('document.activeElement && document.activeElement.getAttribute("aria-label")');

  for (const [opener, title] of [
    [`Edit webhook ${url}`, `Edit webhook ${url}`],
    [`Rotate secret of ${url}`, `Rotate the secret of ${url}?`],
  ] as const) {
    const dialog = page.getByRole('dialog', { name: title });
    for (let round = 0; round < 2; round += 1) {
      await card.getByRole('button', { name: opener }).click();
      await dialog.waitFor();
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      await expect(focusedName()).resolves.toBe(opener);
    }
  }
  expect((await storedWebhooks(page)).find((webhook) => webhook.url === url)?.secretRotatedAt).toBeNull();
});

test('rotating asks first, says both secrets sign for 24 hours, and shows the new secret once; a delivery then carries both signatures', async () => {
  const page = await harness.signedIn(ada);
  await openWebhooks(page);
  const url = `${receiverUrl}/rotated`;
  const first = await createOnPage(page, url);
  await page.getByRole('dialog').getByRole('button', { name: 'I have copied the secret' }).click();

  const card = cardOf(page, url);
  await card.getByRole('button', { name: `Rotate secret of ${url}` }).click();
  const confirm = page.getByRole('dialog', { name: `Rotate the secret of ${url}?` });
  await confirm.getByText('For 24 hours both sign every delivery', { exact: false }).waitFor();
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  expect((await storedWebhooks(page)).find((webhook) => webhook.url === url)?.secretRotatedAt).toBeNull();

  await card.getByRole('button', { name: `Rotate secret of ${url}` }).click();
  await confirm.getByRole('button', { name: 'Yes, rotate the secret' }).click();
  const shown = page.getByRole('dialog', { name: 'Copy the signing secret now' });
  await shown.getByText('For the next 24 hours each delivery carries two signatures', { exact: false }).waitFor();
  const second = await shown.getByRole('textbox', { name: 'Signing secret' }).inputValue();
  registerApiKey(second);
  expect(second).toMatch(/^whsec_/);
  expect(second).not.toBe(first);
  await shown.getByRole('button', { name: 'I have copied the secret' }).click();
  await card.getByText('the old secret signs too until', { exact: false }).waitFor();
  expect((await storedWebhooks(page)).find((webhook) => webhook.url === url)?.secretRotatedAt).not.toBeNull();

  const verifyWebhook = verifierFrom(TYPESCRIPT_VERIFICATION);
  const [delivery] = await deliveriesOf(await sendTest(page, url));
  expect(delivery?.headers['webhook-signature']?.split(' ')).toHaveLength(2);
  expect(delivery && verifyWebhook(second, delivery.headers, delivery.body)).toBe(true);
  expect(delivery && verifyWebhook(first, delivery.headers, delivery.body)).toBe(true);
  expect(await page.content()).not.toContain(second);
});

test('a webhook is disabled and enabled again from its card, and its URL, events and description edited', async () => {
  const page = await harness.signedIn(ada);
  await openWebhooks(page);
  const url = `${receiverUrl}/toggled`;
  await createOnPage(page, url);
  await page.getByRole('dialog').getByRole('button', { name: 'I have copied the secret' }).click();
  const card = cardOf(page, url);

  await card.getByRole('button', { name: `Disable webhook ${url}` }).click();
  await card.getByText('disabled', { exact: true }).waitFor();
  expect((await storedWebhooks(page)).find((webhook) => webhook.url === url)?.enabled).toBe(false);
  await card.getByRole('button', { name: `Enable webhook ${url}` }).click();
  await card.getByText('enabled', { exact: true }).waitFor();
  expect((await storedWebhooks(page)).find((webhook) => webhook.url === url)?.enabled).toBe(true);

  await card.getByRole('button', { name: `Edit webhook ${url}` }).click();
  const edit = page.getByRole('dialog', { name: `Edit webhook ${url}` });
  const edited = `${receiverUrl}/edited`;
  await edit.getByRole('textbox', { name: 'Endpoint URL' }).fill(edited);
  await edit.getByRole('textbox', { name: 'Description (optional)' }).fill('Now only members');
  await edit.getByRole('checkbox', { name: 'every event (*)' }).uncheck();
  // Nothing picked is refused before sending.
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await edit.getByText('Pick at least one event, or every event (*).').waitFor();
  await edit.getByRole('checkbox', { name: 'every member.* event' }).check();
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await edit.waitFor({ state: 'hidden' });
  await cardOf(page, edited).getByText('member.added, member.removed').waitFor();
  expect((await storedWebhooks(page)).find((webhook) => webhook.url === edited)).toMatchObject({
    events: ['member.added', 'member.removed'],
    description: 'Now only members',
  });
});

test('deleting asks first; cancelled, the webhook stays; confirmed, it is gone', async () => {
  const page = await harness.signedIn(ada);
  await openWebhooks(page);
  const url = `${receiverUrl}/deleted`;
  await createOnPage(page, url);
  await page.getByRole('dialog').getByRole('button', { name: 'I have copied the secret' }).click();
  const card = cardOf(page, url);
  await card.getByRole('button', { name: `Delete webhook ${url}` }).click();
  const confirm = page.getByRole('dialog', { name: `Delete webhook ${url}?` });
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  expect((await storedWebhooks(page)).some((webhook) => webhook.url === url)).toBe(true);

  await card.getByRole('button', { name: `Delete webhook ${url}` }).click();
  await confirm.getByRole('button', { name: 'Yes, delete the webhook' }).click();
  await card.waitFor({ state: 'detached' });
  expect((await storedWebhooks(page)).some((webhook) => webhook.url === url)).toBe(false);
});

test('a URL the policy refuses is said next to the field, with the reason, and nothing is created', async () => {
  const page = await harness.signedIn(ada);
  await openWebhooks(page);
  const before = await storedWebhooks(page);
  const field = page.locator('.control').filter({ has: textbox(page, 'Endpoint URL') });
  const error = field.getByRole('alert');
  // Refused by the policy before any connection is tried: http to anything but the loopback, then a private address.
  await textbox(page, 'Endpoint URL').fill('http://10.0.0.1/hooks');
  await button(page, 'Create webhook').click();
  await error.filter({ hasText: 'The URL must be https (or http to 127.0.0.1 or localhost).' }).waitFor();
  await textbox(page, 'Endpoint URL').fill('https://10.0.0.1/hooks');
  await button(page, 'Create webhook').click();
  await error.filter({ hasText: /private/ }).waitFor();
  await expect(textbox(page, 'Endpoint URL').getAttribute('aria-describedby')).resolves.toContain((await error.getAttribute('id')) ?? 'no id');
  expect(await page.getByRole('dialog').count()).toBe(0);
  expect(await storedWebhooks(page)).toEqual(before);
});

test('the 21st webhook is refused with the limit, said next to the Create button', async () => {
  const page = await harness.signedIn(ada);
  const made: string[] = [];
  try {
    for (let count = (await storedWebhooks(page)).length; count < 20; count += 1) {
      const answer = await fromPage(page, 'POST', `/accounts/${ACCOUNT}/webhooks`, { url: `${receiverUrl}/many/${count}`, events: ['*'] });
      expect(answer.status).toBe(201);
      made.push((answer.body as { webhook: WebhookAnswer }).webhook.webhookId);
    }
    await openWebhooks(page);
    await textbox(page, 'Endpoint URL').fill(`${receiverUrl}/one-too-many`);
    await button(page, 'Create webhook').click();
    await page
      .getByRole('region', { name: 'New webhook' })
      .getByRole('alert')
      .filter({ hasText: `Creating the webhook failed: Account ${ACCOUNT} has 20 webhooks, the most it may have: delete one first.` })
      .waitFor();
    expect((await storedWebhooks(page)).some((webhook) => webhook.url.endsWith('/one-too-many'))).toBe(false);
  } finally {
    for (const webhookId of made) expect((await fromPage(page, 'DELETE', `/accounts/${ACCOUNT}/webhooks/${webhookId}`)).status).toBe(204);
  }
});

test('an editor sees no Webhooks link, and the page’s address tells them which role it needs', async () => {
  const page = await harness.signedIn(eddie);
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'API keys' }).waitFor();
  expect(await page.getByRole('link', { name: 'Webhooks' }).count()).toBe(0);
  await page.goto(`${harness.stack.dashboardUrl}/#/accounts/${ACCOUNT}/webhooks`);
  await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
  await page.getByText('Editors cannot manage webhooks: that needs an admin of this account.', { exact: false }).waitFor();
  expect(await page.getByRole('button', { name: 'Create webhook' }).count()).toBe(0);
});

test.each(['light', 'dark'] as const)(
  "the Webhooks page, its deliveries and its dialogs pass axe-core's WCAG 2.1 A and AA rules in the %s scheme",
  async (colorScheme) => {
    const page = await harness.signedIn(ada, { colorScheme });
    await openWebhooks(page);
    const url = `${receiverUrl}/looked-at-${colorScheme}`;
    await createOnPage(page, url, 'Deploys the docs site');
    expect({ page: 'secret dialog', violations: await seriousViolations(page) }).toEqual({ page: 'secret dialog', violations: [] });
    await page.getByRole('dialog').getByRole('button', { name: 'I have copied the secret' }).click();

    const eventId = await sendTest(page, url);
    const card = cardOf(page, url);
    await card.getByRole('row').filter({ hasText: eventId }).waitFor({ timeout: 30_000 });
    expect({ page: 'webhooks', violations: await seriousViolations(page) }).toEqual({ page: 'webhooks', violations: [] });
    if (colorScheme === 'light') {
      // docs/images/dashboard-webhooks.png is a copy of this one, made by hand (a test run leaves docs/ alone).
      await card.evaluate((element) => (element as unknown as { scrollIntoView(): void }).scrollIntoView());
      await card.screenshot({ path: join(ARTIFACTS, 'dashboard-webhooks.png') });
    }

    await card.getByRole('button', { name: `Edit webhook ${url}` }).click();
    const edit = page.getByRole('dialog', { name: `Edit webhook ${url}` });
    await edit.getByRole('checkbox', { name: 'every event (*)' }).uncheck();
    expect({ page: 'edit dialog', violations: await seriousViolations(page) }).toEqual({ page: 'edit dialog', violations: [] });
    await edit.getByRole('button', { name: 'Cancel' }).click();

    await card.getByRole('button', { name: `Rotate secret of ${url}` }).click();
    await page.getByRole('dialog', { name: `Rotate the secret of ${url}?` }).waitFor();
    expect({ page: 'rotate dialog', violations: await seriousViolations(page) }).toEqual({ page: 'rotate dialog', violations: [] });
    await page
      .getByRole('dialog', { name: `Rotate the secret of ${url}?` })
      .getByRole('button', { name: 'Cancel' })
      .click();
    const id = (await storedWebhooks(page)).find((webhook) => webhook.url === url)?.webhookId;
    expect((await fromPage(page, 'DELETE', `/accounts/${ACCOUNT}/webhooks/${id}`)).status).toBe(204);
  },
);
