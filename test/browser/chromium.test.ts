import { findChromium, launchChromium } from './support/chromium';

/** The browser suite runs after `npm ci` alone: no system package, no root, no download. */

// Unpacking the packaged browser the first time takes a few seconds on these machines.
jest.setTimeout(60_000);

const NO_SYSTEM_CHROMIUM = '/nonexistent/chromium';

test('on a machine without a system Chromium, the one npm ci installed is chosen', async () => {
  const choice = await findChromium({ env: {}, systemChromium: NO_SYSTEM_CHROMIUM });
  expect(choice.source).toBe('@sparticuz/chromium');
});

test('the Chromium npm ci installed loads a page', async () => {
  const browser = await launchChromium({ env: {}, systemChromium: NO_SYSTEM_CHROMIUM });
  try {
    const page = await browser.newPage();
    await page.setContent('<title>ready</title><p>hello</p>');
    expect(await page.title()).toBe('ready');
  } finally {
    await browser.close();
  }
});

test('CHROMIUM_PATH wins over the others, and a wrong one is named', async () => {
  await expect(findChromium({ env: { CHROMIUM_PATH: '/nowhere/chrome' } })).rejects.toThrow(
    'CHROMIUM_PATH /nowhere/chrome does not exist: point it at a Chromium or Chrome binary',
  );
});
