import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type StackProcess, startStack, temporaryFolder } from '../../e2e/support/processes';
import { registerApiKey } from '../../support/log-capture';
import { launchChromium } from './chromium';

/**
 * The dashboard as people use it, for the browser suites: `npm start`'s stack as a child process (the built
 * dashboard on its origin, the management API under /api, the user pool's stand-in), a real Chromium signing in
 * through the stand-in's form with PKCE, and every control found by its role and accessible name.
 */

export const ARTIFACTS = join(__dirname, '..', '..', '..', 'test-artifacts');
export const ACCOUNT = 'acct_demo';

export interface Person {
  readonly email: string;
  readonly password: string;
}

export class DashboardHarness {
  stack!: StackProcess;
  browser!: Browser;
  demo!: Person;
  #folder: { path: string; remove(): Promise<void> } | undefined;
  readonly #contexts: BrowserContext[] = [];
  /** Script errors and Content-Security-Policy violations of every page: a test ends with none. */
  problems: string[] = [];

  async start(env: Record<string, string> = {}): Promise<void> {
    this.#folder = await temporaryFolder('dashboard-browser');
    [this.stack, this.browser] = await Promise.all([startStack({ DATA_DIR: this.#folder.path, ...env }), launchChromium()]);
    const printed = /Sign in as (\S+) with password (\S+)/.exec(this.stack.output());
    if (!printed?.[1] || !printed[2]) throw new Error(`npm start printed no demo user:\n${this.stack.output()}`);
    this.demo = { email: printed[1], password: printed[2] };
    await mkdir(ARTIFACTS, { recursive: true });
  }

  async stop(): Promise<void> {
    await this.browser?.close();
    await this.stack?.stop();
    await this.#folder?.remove();
  }

  /** After each test: every tab closed; the problems it saw are returned and forgotten. */
  async closeTabs(): Promise<string[]> {
    await Promise.all(this.#contexts.splice(0).map((context) => context.close()));
    const seen = this.problems;
    this.problems = [];
    return seen;
  }

  /** A new browser profile (its own storage), with its first tab. */
  async newTab(options: { colorScheme?: 'light' | 'dark' } = {}): Promise<Page> {
    const context = await this.browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: options.colorScheme ?? 'light' });
    this.#contexts.push(context);
    return this.watch(await context.newPage());
  }

  /** Another tab of the same browser profile: the same cookies, its own sessionStorage. */
  async anotherTab(page: Page): Promise<Page> {
    return this.watch(await page.context().newPage());
  }

  watch(page: Page): Page {
    page.on('pageerror', (error) => this.problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      // Chromium logs every 4xx as "Failed to load resource": some are what a test provokes (a 412, a 403).
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) this.problems.push(`console error: ${message.text()}`);
    });
    return page;
  }

  /** Signs in through the user pool's form, in `page` or a new profile. */
  async signedIn(person: Person = this.demo, options: { newPassword?: string; page?: Page; colorScheme?: 'light' | 'dark' } = {}): Promise<Page> {
    const page = options.page ?? (await this.newTab({ colorScheme: options.colorScheme ?? 'light' }));
    await page.goto(this.stack.dashboardUrl);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // A profile already signed in at the pool (another tab's sign-in) comes straight back, as with Cognito.
    const landed = await Promise.race([
      page.waitForURL(`${this.stack.identityUrl}/**`).then(() => 'form' as const),
      page
        .getByRole('heading', { name: 'Prompts', level: 1 })
        .waitFor()
        .then(() => 'dashboard' as const),
    ]);
    if (landed === 'dashboard') return page;
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    if (options.newPassword) {
      await page.getByLabel('New password', { exact: true }).fill(options.newPassword);
      await page.getByLabel('Confirm new password').fill(options.newPassword);
      await page.getByRole('button', { name: 'Set password and sign in' }).click();
    }
    await page.getByRole('heading', { name: 'Prompts', level: 1 }).waitFor();
    return page;
  }

  /** A person added on the Members page by `owner`, signed in once with a password of their own. */
  async addPerson(owner: Page, email: string, role: 'viewer' | 'editor' | 'admin' | 'owner'): Promise<{ person: Person; page: Page }> {
    await owner.getByRole('link', { name: 'Members' }).click();
    await textbox(owner, 'Email').fill(email);
    await owner.getByRole('combobox', { name: 'Role for the new member' }).selectOption(role);
    await button(owner, 'Add member').click();
    const temporaryPassword = await textbox(owner, 'Temporary password').inputValue();
    await owner.getByRole('row', { name: new RegExp(email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) }).waitFor();
    const person = { email, password: `Chosen-${role}-Pass-42!` };
    const page = await this.signedIn({ email, password: temporaryPassword }, { newPassword: person.password });
    return { person, page };
  }

  promptUrl = (promptId: string): string => `${this.stack.dashboardUrl}/#/accounts/${ACCOUNT}/prompts/${promptId}`;
  versionUrl = (promptId: string, version: string): string => `${this.promptUrl(promptId)}/versions/${version}`;

  readApi = (path: string, apiKey: string): Promise<Response> => fetch(`${this.stack.apiUrl}${path}`, { headers: { Authorization: `Bearer ${apiKey}` } });
}

export const textbox = (page: Page, name: string) => page.getByRole('textbox', { name, exact: true });
export const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });

export async function createPrompt(page: Page, promptId: string, promptName: string): Promise<void> {
  await page.getByRole('link', { name: 'Prompts', exact: true }).click();
  await textbox(page, 'Prompt id').fill(promptId);
  await textbox(page, 'Prompt name').fill(promptName);
  await button(page, 'Create prompt').click();
  await page.getByRole('heading', { name: promptName, level: 1 }).waitFor();
}

/** From the prompt's page: a new draft with the suggested version, whose editor then opens. */
export async function createDraft(page: Page, expectedVersion: string): Promise<void> {
  if ((await textbox(page, 'Draft version').inputValue()) !== expectedVersion) {
    throw new Error(`the suggested version is ${await textbox(page, 'Draft version').inputValue()}, not ${expectedVersion}`);
  }
  await button(page, 'Create draft').click();
  await page.getByRole('heading', { name: new RegExp(`^Draft ${expectedVersion.replace(/\./g, '\\.')} of`), level: 1 }).waitFor();
}

export async function writeAndSave(page: Page, systemMessage: string, userMessage: string): Promise<void> {
  await textbox(page, 'System message').fill(systemMessage);
  await textbox(page, 'User message template').fill(userMessage);
  await button(page, 'Save draft').click();
  await page.getByText('No unsaved changes.').waitFor();
}

export async function publish(page: Page, version: string, note: string): Promise<void> {
  await textbox(page, 'Release note (required)').fill(note);
  await button(page, `Publish version ${version}`).click();
  await page.getByText('published', { exact: true }).first().waitFor();
}

/** A prompt with published versions, each built through the editor. */
export async function publishedPrompt(harness: DashboardHarness, page: Page, promptId: string, userMessages: readonly string[]): Promise<void> {
  await createPrompt(page, promptId, `Prompt ${promptId}`);
  for (const [index, userMessage] of userMessages.entries()) {
    await page.goto(harness.promptUrl(promptId));
    await createDraft(page, `1.0.${index}`);
    await writeAndSave(page, 'You are kind.', userMessage);
    await publish(page, `1.0.${index}`, `version ${index}`);
  }
}

/** A key made on the Keys page; its secret read from the one place it is shown. */
export async function createKey(page: Page, name: string, scope: readonly string[] = []): Promise<string> {
  await page.getByRole('link', { name: 'API keys' }).click();
  await textbox(page, 'Key name').fill(name);
  for (const entry of scope) {
    await page.getByRole('combobox', { name: 'Add to the scope', exact: true }).fill(entry);
    await button(page, 'Add').click();
  }
  await button(page, 'Create key').click();
  await page.getByRole('heading', { name: 'Copy your new key now' }).waitFor();
  const secret = await textbox(page, 'New API key').inputValue();
  registerApiKey(secret);
  return secret;
}

/** The management API from inside the page, with the page's own token, as a person's browser would send it. */
export async function fromPage(
  page: Page,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  // A script text: the tests are type-checked without the DOM's types.
  const request = JSON.stringify({ method, path, body: body === undefined ? undefined : JSON.stringify(body), headers });
  return page.evaluate(`(async ({ method, path, body, headers }) => {
    const token = sessionStorage.getItem('dashboard.session');
    const response = await fetch('/api' + path, { method, body, headers: { Authorization: 'Bearer ' + token, 'Content-Type': 'application/json', ...headers } });
    return { status: response.status, body: await response.json().catch(() => null) };
  })(${request})`);
}

/** The draft as the server holds it now. */
export async function serverDraft(page: Page, promptId: string, version: string): Promise<{ systemMessage: string; userMessage: string; updatedBy: string }> {
  const answer = await fromPage(page, 'GET', `/accounts/${ACCOUNT}/prompts/${promptId}/versions/${version}`);
  if (answer.status !== 200) throw new Error(`reading ${promptId} ${version}: ${answer.status}`);
  return answer.body as { systemMessage: string; userMessage: string; updatedBy: string };
}

/** Whether the element's box is inside the viewport as the page is scrolled now. */
export async function inViewport(page: Page, locator: ReturnType<Page['getByRole']>): Promise<boolean> {
  const box = await locator.boundingBox();
  const viewport = page.viewportSize();
  return box !== null && viewport !== null && box.y >= 0 && box.y + Math.min(box.height, 40) <= viewport.height;
}
