/**
 * `npm run bench:dashboard`: how light the dashboard is. Its JavaScript as shipped (the files of dashboard/dist,
 * gzip -9 as a CDN would send them), and the time until the prompts page of an account with 1,500 prompts is
 * interactive in Chromium: from the navigation to the list drawn with every prompt and the search box
 * answering a keystroke. `npm start` runs as a child process (as a developer runs it) with that account as the
 * demo user's; the median of RUNS reloads is reported. bench/DASHBOARD-RESULTS.md keeps the figures.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { launchChromium } from '../test/browser/support/chromium';
import { startStack, temporaryFolder } from '../test/e2e/support/processes';

const PROMPTS = 1_500;
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const DIST = join(__dirname, '..', 'dashboard', 'dist', 'assets');
const ACCOUNT = 'bench';

function javaScriptSizes(): { files: number; bytes: number; gzip: number } {
  const files = readdirSync(DIST).filter((name) => name.endsWith('.js'));
  let bytes = 0;
  let gzip = 0;
  for (const name of files) {
    const content = readFileSync(join(DIST, name));
    bytes += content.length;
    gzip += gzipSync(content, { level: 9 }).length;
  }
  return { files: files.length, bytes, gzip };
}

const seed = {
  accounts: [
    {
      accountId: ACCOUNT,
      name: 'Bench account',
      plan: 'pro',
      keys: [{ apiKey: 'prs_bench_dashboard_key_0000000000' }],
      prompts: Array.from({ length: PROMPTS }, (_, i) => ({
        promptId: `prompt-${String(i).padStart(5, '0')}`,
        promptName: `Prompt number ${i}`,
        versions: ['1.0.0', '1.1.0'].map((version) => ({
          version,
          published: true,
          systemMessage: `You are prompt ${i}.`,
          userMessage: `Hello \${name}, this is prompt ${i} at ${version}.`,
          config: { model: 'gpt-4o-mini', temperature: 0.5 },
        })),
        labels: i % 3 === 0 ? { production: '1.0.0' } : {},
      })),
    },
  ],
};

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function main(): Promise<void> {
  const sizes = javaScriptSizes();
  const folder = await temporaryFolder('bench-dashboard');
  const seedPath = join(folder.path, 'seed.json');
  await writeFile(seedPath, JSON.stringify(seed));
  const [stack, browser] = await Promise.all([startStack({ DATA_DIR: join(folder.path, 'data'), SEED_FILE: seedPath }), launchChromium()]);
  try {
    const printed = /Sign in as (\S+) with password (\S+)/.exec(stack.output());
    if (!printed?.[1] || !printed[2]) throw new Error('npm start printed no demo user');
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(stack.dashboardUrl);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Email').fill(printed[1]);
    await page.getByLabel('Password').fill(printed[2]);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Prompts', level: 1 }).waitFor();
    const url = `${stack.dashboardUrl}/#/accounts/${ACCOUNT}/prompts`;
    const times: number[] = [];
    for (let run = 0; run < RUNS + 1; run++) {
      await page.goto('about:blank');
      const started = performance.now();
      await page.goto(url);
      await page
        .locator('tbody tr')
        .nth(PROMPTS - 1)
        .waitFor({ state: 'attached', timeout: 60_000 });
      const search = page.getByRole('searchbox').first();
      await search.fill('prompt-01499');
      await page.locator('tbody tr').nth(1).waitFor({ state: 'detached', timeout: 60_000 });
      const elapsed = performance.now() - started;
      // The first run warms the stack's memory and the browser's cache of the files: not counted.
      if (run > 0) times.push(elapsed);
    }
    const lines = [
      `Dashboard JavaScript: ${sizes.files} file(s), ${(sizes.bytes / 1024).toFixed(1)} KB, ${(sizes.gzip / 1024).toFixed(1)} KB gzip`,
      `Prompts page with ${PROMPTS.toLocaleString('en')} prompts, navigation to interactive (every row drawn, search answering): median ${Math.round(median(times))} ms over ${RUNS} runs (min ${Math.round(Math.min(...times))}, max ${Math.round(Math.max(...times))})`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await browser.close();
    await stack.stop();
    await folder.remove();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
