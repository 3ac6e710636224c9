import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type PlaygroundServer, startPlaygroundServer } from '../../local/playground-server';
import { launchChromium } from './support/chromium';
import { type LocalApi, startLocalApi } from './support/local-api';
import { type Exchange, NetworkLog } from './support/network-log';

// A real browser, a real cross-origin page and the API over HTTP: slower than the other suites.
jest.setTimeout(30_000);

const SEED_PATH = join(__dirname, 'seed.json');
const SCREENSHOT_PATH = join(__dirname, '..', '..', 'test-artifacts', 'playground.png');
const UNKNOWN_KEY = 'prs_this-key-was-never-issued-0000';

let browser: Browser;
let api: LocalApi;
let playground: PlaygroundServer;

let context: BrowserContext | undefined;
let page: Page;
let network: NetworkLog;
let pageProblems: string[] = [];

function seedKey(index: number): string {
  const key = api.seed.accounts[0]?.keys[index]?.apiKey;
  if (!key) throw new Error(`test/browser/seed.json has no key ${index}`);
  return key;
}
const normalKey = () => seedKey(0);
/** monthlyLimit 2 in the seed. */
const limitedKey = () => seedKey(1);

function seedVersion(promptId: string, version: string) {
  const found = api.seed.accounts[0]?.prompts.find((prompt) => prompt.promptId === promptId)?.versions.find((v) => v.version === version);
  if (!found) throw new Error(`test/browser/seed.json has no ${promptId} ${version}`);
  return found;
}

beforeAll(async () => {
  browser = await launchChromium();
  api = await startLocalApi(SEED_PATH);
  playground = await startPlaygroundServer({ host: '127.0.0.1', port: 0, apiUrl: api.url });
});

afterAll(async () => {
  await browser?.close();
  await playground?.close();
  await api?.close();
});

beforeEach(async () => {
  // A fresh context per test: its own HTTP cache, preflight cache and sessionStorage.
  context = await browser.newContext();
  page = await context.newPage();
  network = await NetworkLog.attach(page);
  pageProblems = [];
  page.on('pageerror', (error) => pageProblems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // Chromium logs every 4xx as "Failed to load resource"; the tests expect some of those.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      pageProblems.push(`console error: ${message.text()}`);
    }
  });
});

afterEach(async () => {
  // Without Chromium nothing was opened: the one failure to report is beforeAll's.
  await context?.close();
  // Script errors and Content-Security-Policy violations surface as these.
  expect(pageProblems).toEqual([]);
  expect(api?.failures ?? []).toEqual([]);
});

async function openPlayground(key: string): Promise<void> {
  await page.goto(playground.url);
  await page.locator('body[data-ready="true"]').waitFor();
  await page.fill('#api-key', key);
}

/** The page numbers its calls in the "last call" line once it has dealt with the answer. */
async function waitForCall(call: number): Promise<void> {
  await page.locator('#last-call', { hasText: new RegExp(`^Call ${call}:`) }).waitFor();
}

async function listPrompts(call = 1): Promise<void> {
  await page.click('#list-prompts');
  await waitForCall(call);
}

async function openPrompt(promptId: string, call: number): Promise<void> {
  await page.click(`#prompt-list button[data-prompt-id="${promptId}"]`);
  await waitForCall(call);
  await page.locator('#prompt').waitFor();
}

async function chooseVersion(version: string, call: number): Promise<void> {
  await page.selectOption('#version-select', version);
  await waitForCall(call);
}

const apiCalls = (method: string, pathWithQuery: string): Exchange[] =>
  network.to(`${api.url}${pathWithQuery}`).filter((exchange) => exchange.method === method && exchange.url === `${api.url}${pathWithQuery}`);

function only<T>(items: T[]): T {
  expect(items).toHaveLength(1);
  return items[0] as T;
}

const text = async (selector: string): Promise<string> => (await page.textContent(selector)) ?? '';

test('lists and opens a prompt through a preflighted cross-origin request', async () => {
  await openPlayground(normalKey());
  await listPrompts(1);
  expect(await page.locator('#prompt-list button').allTextContents()).toEqual([
    'Support reply support-reply · latest 1.1.0',
    'Title writer title-writer · latest 1.0.0',
  ]);
  await openPrompt('support-reply', 2);

  const pageOrigin = new URL(playground.url).origin;
  expect(pageOrigin).not.toBe(new URL(api.url).origin);
  const preflight = only(apiCalls('OPTIONS', '/prompts/support-reply'));
  expect(preflight.type).toBe('Preflight');
  expect(preflight.requestHeaders.origin).toBe(pageOrigin);
  expect(preflight.requestHeaders['access-control-request-method']).toBe('GET');
  expect(preflight.requestHeaders['access-control-request-headers']).toContain('authorization');
  expect(preflight.status).toBe(204);
  expect(preflight.responseHeaders['access-control-allow-origin']).toBe('*');
  const get = only(apiCalls('GET', '/prompts/support-reply'));
  expect(get.requestHeaders.origin).toBe(pageOrigin);
  expect(get.status).toBe(200);

  const latest = seedVersion('support-reply', '1.1.0');
  expect(await text('#prompt-name')).toBe('Support reply');
  expect(await text('#prompt-id')).toBe('support-reply');
  expect(await page.inputValue('#version-select')).toBe('1.1.0');
  expect(await text('#system-message')).toBe(latest.systemMessage);
  expect(await text('#user-message')).toBe(latest.userMessage);
  expect(JSON.parse(await text('#config'))).toEqual(latest.config);
});

test('offers every published version of the prompt, and no draft', async () => {
  await openPlayground(normalKey());
  await listPrompts(1);
  await openPrompt('support-reply', 2);

  expect(await page.locator('#version-select option').allTextContents()).toEqual(['1.0.0', '1.1.0']);
});

test('shows the X-RateLimit-Remaining and X-RateLimit-Limit of the last response', async () => {
  await openPlayground(normalKey());
  await listPrompts(1);
  const list = only(apiCalls('GET', '/prompts?include_versions=true'));
  expect(list.responseHeaders['x-ratelimit-remaining']).toMatch(/^\d+$/);
  expect(await text('#quota-remaining')).toBe(list.responseHeaders['x-ratelimit-remaining']);
  expect(await text('#quota-limit')).toBe(list.responseHeaders['x-ratelimit-limit']);

  await openPrompt('title-writer', 2);
  const get = only(apiCalls('GET', '/prompts/title-writer'));
  expect(Number(get.responseHeaders['x-ratelimit-remaining'])).toBe(Number(list.responseHeaders['x-ratelimit-remaining']) - 1);
  expect(await text('#quota-remaining')).toBe(get.responseHeaders['x-ratelimit-remaining']);
  const reset = Number(get.responseHeaders['x-ratelimit-reset']);
  expect(await page.getAttribute('#quota-reset', 'datetime')).toBe(new Date(reset * 1000).toISOString());
});

test('switching versions fetches and shows the chosen published version', async () => {
  await openPlayground(normalKey());
  await listPrompts(1);
  await openPrompt('support-reply', 2);
  await chooseVersion('1.0.0', 3);

  const chosen = seedVersion('support-reply', '1.0.0');
  expect(only(apiCalls('GET', '/prompts/support-reply?version=1.0.0')).status).toBe(200);
  expect(await page.inputValue('#version-select')).toBe('1.0.0');
  expect(await text('#system-message')).toBe(chosen.systemMessage);
  expect(await text('#user-message')).toBe(chosen.userMessage);
  // The seed leaves schema, inputData and inputDataRootName out; the API fills in their defaults.
  expect(JSON.parse(await text('#config'))).toEqual({
    model: 'gpt-4o-mini',
    temperature: 0.3,
    schema: [],
    inputData: null,
    inputDataRootName: null,
  });
});

test('picking a label shows the version it points at; a label the prompt lacks shows LABEL_NOT_FOUND', async () => {
  await openPlayground(normalKey());
  await listPrompts(1);
  await openPrompt('support-reply', 2);
  await page.fill('#label-input', 'production');
  await page.click('#show-label');
  await waitForCall(3);

  expect(only(apiCalls('GET', '/prompts/support-reply?label=production')).status).toBe(200);
  expect(await page.inputValue('#version-select')).toBe('1.0.0');
  expect(await text('#label-status')).toBe('production points at 1.0.0');
  expect(await text('#user-message')).toBe(seedVersion('support-reply', '1.0.0').userMessage);

  await page.fill('#label-input', 'canary');
  await page.click('#show-label');
  await waitForCall(4);
  expect(only(apiCalls('GET', '/prompts/support-reply?label=canary')).status).toBe(404);
  expect(await text('#message')).toBe('Prompt support-reply has no label canary');
  // The prompt shown stays as it was.
  expect(await page.inputValue('#version-select')).toBe('1.0.0');
});

test('fills in the template variables on the page, as text, without calling the API', async () => {
  await openPlayground(normalKey());
  await listPrompts(1);
  await openPrompt('support-reply', 2);

  expect(await page.locator('#variables label').allTextContents()).toEqual(['customerName', 'topic', 'agentName']);
  await page.fill('#variables input[data-variable="customerName"]', 'Ada');
  await page.fill('#variables input[data-variable="topic"]', 'billing');
  await page.fill('#variables input[data-variable="agentName"]', '<img src=x onerror=alert(1)>');

  expect(await text('#filled-message')).toBe('Write a reply to Ada about billing. Sign it <img src=x onerror=alert(1)>; greet Ada by name.');
  expect(await page.locator('#filled-message img').count()).toBe(0);
  expect(network.to(api.url).filter((exchange) => exchange.method === 'GET')).toHaveLength(2);

  await mkdir(join(SCREENSHOT_PATH, '..'), { recursive: true });
  await page.screenshot({ path: SCREENSHOT_PATH, fullPage: true });
  expect((await stat(SCREENSHOT_PATH)).size).toBeGreaterThan(0);
});

test('marks the placeholders not filled in yet', async () => {
  await openPlayground(normalKey());
  await listPrompts(1);
  await openPrompt('support-reply', 2);
  await page.fill('#variables input[data-variable="topic"]', 'billing');

  expect(await page.locator('#filled-message mark').allTextContents()).toEqual(['${customerName}', '${agentName}', '${customerName}']);
});

test('a pinned version fetched again revalidates with If-None-Match and gets 304', async () => {
  await openPlayground(normalKey());
  await listPrompts(1);
  await openPrompt('support-reply', 2);
  await chooseVersion('1.0.0', 3);
  await chooseVersion('1.1.0', 4);
  await chooseVersion('1.0.0', 5);

  const [first, again] = apiCalls('GET', '/prompts/support-reply?version=1.0.0');
  expect(first?.status).toBe(200);
  expect(first?.responseHeaders.etag).toBeDefined();
  expect(again?.requestHeaders['if-none-match']).toBe(first?.responseHeaders.etag);
  expect(again?.status).toBe(304);

  expect(await text('#last-call')).toBe('Call 5: GET /prompts/support-reply?version=1.0.0 → 304 not modified');
  expect(await text('#cache-status')).toContain('not modified (304)');
  expect(await text('#user-message')).toBe(seedVersion('support-reply', '1.0.0').userMessage);
  expect(await text('#quota-remaining')).toBe(again?.responseHeaders['x-ratelimit-remaining']);
});

test('a key past its monthly limit gets 429, and the page shows the message and the upgrade link', async () => {
  await openPlayground(limitedKey());
  await listPrompts(1);
  await listPrompts(2);
  expect(await text('#quota-remaining')).toBe('0');
  await listPrompts(3);

  // The list has an ETag, so the page revalidates it: the second call is a 304, which counts like a 200.
  expect(apiCalls('GET', '/prompts?include_versions=true').map((exchange) => exchange.status)).toEqual([200, 304, 429]);
  expect(await text('#message')).toContain('Monthly usage limit exceeded');
  expect(await page.getAttribute('#message a#upgrade-link', 'href')).toBe(api.upgradeUrl);
  expect(await text('#quota-remaining')).toBe('0');
});

test('a key the API does not know gets 401, and the page says the key is not valid', async () => {
  await openPlayground(UNKNOWN_KEY);
  await listPrompts(1);

  expect(only(apiCalls('GET', '/prompts?include_versions=true')).status).toBe(401);
  expect(await text('#message')).toContain('The API key is not valid');
  expect(await page.locator('#upgrade-link').count()).toBe(0);
  expect(await text('#prompt-list')).toBe('');
});

test('the key travels only in the Authorization header, and is kept in sessionStorage, never localStorage', async () => {
  const key = normalKey();
  await openPlayground(key);
  await listPrompts(1);
  await openPrompt('support-reply', 2);

  const everything = network.to('http://');
  expect(everything.length).toBeGreaterThan(0);
  for (const exchange of everything) {
    expect(exchange.url).not.toContain(key);
    const carriers = Object.entries(exchange.requestHeaders).filter(([, value]) => value.includes(key));
    expect(carriers.map(([name]) => name)).toEqual(exchange.method === 'GET' && exchange.url.startsWith(api.url) ? ['authorization'] : []);
  }
  expect(page.url()).not.toContain(key);
  // Strings, not functions: they run in the page, and this project's TypeScript has no DOM types.
  expect(await page.evaluate('localStorage.length')).toBe(0);
  expect(await page.evaluate('Object.values(sessionStorage)')).toEqual([key]);
});
