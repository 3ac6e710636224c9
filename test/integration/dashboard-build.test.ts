import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDashboardBuilt } from '../../local/dashboard-build';

/** `npm start` on a fresh clone builds the dashboard; here into a folder of the test's own. */

jest.setTimeout(120_000);

let folder: string;
let dist: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'dashboard-build-'));
  dist = join(folder, 'dist');
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

test('builds the dashboard when dist is missing, saying so first, and leaves no staging folder behind', async () => {
  const lines: string[] = [];

  const build = await ensureDashboardBuilt((line) => lines.push(line), dist);

  expect(build).toMatchObject({ dist, built: true });
  expect(lines).toEqual(['Building the dashboard (first start: dashboard/dist is missing)...']);
  expect((await stat(join(dist, 'index.html'))).isFile()).toBe(true);
  expect(await readdir(folder)).toEqual(['dist']);
});

test('the built page runs only files of its own origin: no inline script or style for the CSP to refuse', async () => {
  const html = await readFile(join(dist, 'index.html'), 'utf8');
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];

  expect(scripts.length).toBeGreaterThan(0);
  for (const [, attributes, body] of scripts) {
    expect(attributes).toMatch(/\bsrc="\/assets\/[^"]+\.js"/);
    expect(body?.trim()).toBe('');
  }
  expect(html).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=/i);
  expect(html).toMatch(/<link rel="stylesheet"[^>]* href="\/assets\/[^"]+\.css"/);
});

test('a build that is there already is served as it is', async () => {
  const before = (await stat(join(dist, 'index.html'))).mtimeMs;

  const build = await ensureDashboardBuilt(() => {
    throw new Error('nothing to say: nothing is built');
  }, dist);

  expect(build).toEqual({ dist, built: false, elapsedMs: 0 });
  expect((await stat(join(dist, 'index.html'))).mtimeMs).toBe(before);
});
