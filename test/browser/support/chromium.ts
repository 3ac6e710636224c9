import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { type Browser, chromium } from 'playwright-core';

/**
 * Which Chromium the browser tests drive, first found wins:
 * 1. CHROMIUM_PATH, for a machine whose browser lives elsewhere (macOS, another distribution);
 * 2. the system's /usr/bin/chromium (Debian's package), when installed;
 * 3. the headless Chromium that the @sparticuz/chromium dev dependency carries inside its npm package,
 *    so `npm ci && npm test` needs no system package, no root and no download (Linux x64 only).
 */
export const SYSTEM_CHROMIUM = '/usr/bin/chromium';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

/** Where the packaged browser is unpacked: inside this clone, so nothing outside it can plant a binary there. */
const PACKAGED_ROOT = join(__dirname, '..', '..', '..', 'node_modules', '.cache', 'packaged-chromium');

export interface ChromiumChoice {
  readonly executablePath: string;
  readonly source: 'CHROMIUM_PATH' | 'system' | '@sparticuz/chromium';
  /** Extra environment the browser needs (the packaged one brings its own fonts). */
  readonly env: Readonly<Record<string, string>>;
}

export interface ChromiumSearch {
  readonly env?: NodeJS.ProcessEnv;
  /** Where a system package would have put it: a test points this elsewhere to stand for a machine without one. */
  readonly systemChromium?: string;
}

export async function launchChromium(search: ChromiumSearch = {}): Promise<Browser> {
  const choice = await findChromium(search);
  return chromium.launch({
    executablePath: choice.executablePath,
    headless: true,
    args: CHROMIUM_ARGS,
    env: { ...process.env, ...choice.env },
  });
}

export async function findChromium({ env = process.env, systemChromium = SYSTEM_CHROMIUM }: ChromiumSearch = {}): Promise<ChromiumChoice> {
  const configured = env.CHROMIUM_PATH?.trim();
  if (configured) {
    if (!existsSync(configured)) throw new Error(`CHROMIUM_PATH ${configured} does not exist: point it at a Chromium or Chrome binary`);
    return { executablePath: configured, source: 'CHROMIUM_PATH', env: {} };
  }
  if (existsSync(systemChromium)) return { executablePath: systemChromium, source: 'system', env: {} };
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `no Chromium: ${systemChromium} does not exist and the packaged one (@sparticuz/chromium) runs on Linux x64 only, ` +
        `not ${process.platform} ${process.arch}. Set CHROMIUM_PATH to a Chromium or Chrome binary (the browser tests fail rather than skip without one).`,
    );
  }
  const folder = await unpackPackagedChromium();
  return {
    executablePath: join(folder, 'chromium'),
    source: '@sparticuz/chromium',
    env: { FONTCONFIG_FILE: join(folder, 'fonts.conf') },
  };
}

/**
 * Unpacks the packaged browser once per package version. Parallel test workers may race: each unpacks into
 * its own folder and renames it into place, so a half-written browser is never seen, and the loser's copy
 * is thrown away.
 */
async function unpackPackagedChromium(): Promise<string> {
  const entry = require.resolve('@sparticuz/chromium');
  const manifest = JSON.parse(await readFile(join(dirname(entry), '..', '..', 'package.json'), 'utf8')) as { version: string };
  const folder = join(PACKAGED_ROOT, manifest.version);
  if (existsSync(folder)) return folder;

  await mkdir(PACKAGED_ROOT, { recursive: true });
  const staging = await mkdtemp(join(PACKAGED_ROOT, 'unpacking-'));
  try {
    // The package unpacks into os.tmpdir(), which it reads from TMPDIR: a child process with its own
    // TMPDIR keeps it out of the shared /tmp, and leaves this process's environment alone.
    await promisify(execFile)(
      process.execPath,
      ['-e', `require(${JSON.stringify(entry)}).executablePath().catch((error) => { console.error(error); process.exit(1); })`],
      { env: { PATH: process.env.PATH ?? '', TMPDIR: staging } },
    );
    // The package's own fonts.conf names fixed /tmp folders; this one names the fonts it just unpacked.
    await writeFile(
      join(staging, 'fonts.conf'),
      [
        '<?xml version="1.0"?>',
        '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
        '<fontconfig>',
        `  <dir>${xmlText(join(folder, 'fonts', 'fonts'))}</dir>`,
        `  <cachedir>${xmlText(join(folder, 'fonts-cache'))}</cachedir>`,
        '</fontconfig>',
        '',
      ].join('\n'),
    );
    await rename(staging, folder).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return folder;
}

const xmlText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
