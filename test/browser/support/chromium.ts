import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's `chromium` package: Playwright's own browser downloads cannot run here. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

export const CHROMIUM_MISSING =
  `Chromium is missing: ${CHROMIUM_PATH} does not exist. Install it with: apt-get install -y chromium ` +
  '(the browser tests fail rather than skip without it; see README "Playground").';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(CHROMIUM_MISSING);
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}
