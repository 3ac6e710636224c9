import { execFile } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { delimiter, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { temporaryFolder } from '../e2e/support/processes';
import { type LocalStore, startLocalStore } from '../support/local-store';

/**
 * The CLI as an operator gets it outside the clone: `npm pack ./cli` (which bundles bin/admin.ts and all it
 * uses into one file), the tarball installed with `npm install --global`, offline, outside the repository, and
 * `prompts-admin` run from an empty folder, where no node_modules of the service can help it.
 */
const run = promisify(execFile);
const REPO_ROOT = resolve(__dirname, '..', '..');
let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let tarball: string;
let installed: string;
let empty: string;
let store: LocalStore;

/** npm as a developer runs it, without the settings of the npm process that may be running these tests. */
function withoutNpmSettings(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.toLowerCase().startsWith('npm_') && name !== 'NODE_PATH') env[name] = value;
  return env;
}

const npm = (args: string[], cwd: string) =>
  run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, env: withoutNpmSettings(), maxBuffer: 16 * 1024 * 1024 });

/** `prompts-admin` as the shell finds it on the PATH after the install, run in the empty folder. */
async function promptsAdmin(args: string[], env: Record<string, string> = {}) {
  const PATH = [join(installed, 'bin'), process.env.PATH ?? ''].join(delimiter);
  try {
    const { stdout, stderr } = await run('prompts-admin', args, { cwd: empty, env: { ...withoutNpmSettings(), ...env, PATH } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

beforeAll(async () => {
  folder = await temporaryFolder('cli-package');
  const { stdout } = await npm(['pack', './cli', '--pack-destination', folder.path], REPO_ROOT);
  tarball = join(folder.path, stdout.trim().split('\n').at(-1) ?? '');
  // `npm install --global`, as docs/install.md says, into a prefix of the test's own rather than the machine's.
  installed = join(folder.path, 'global');
  empty = join(folder.path, 'empty');
  await mkdir(empty);
  await npm(['install', '--global', '--prefix', installed, '--offline', tarball], folder.path);
  store = await startLocalStore('prompts-cli-package');
}, 180_000);

afterAll(async () => {
  await store?.close();
  await folder?.remove();
});

test('npm pack makes @prompt-retrieval/cli: one bundled file, its manifest and README, and no dependencies to fetch', async () => {
  const { stdout } = await run('tar', ['-tzf', tarball]);

  expect(stdout.trim().split('\n').sort()).toEqual(['package/README.md', 'package/dist/prompts-admin.cjs', 'package/package.json']);
  const manifest = JSON.parse(await readFile(join(installed, 'lib/node_modules/@prompt-retrieval/cli/package.json'), 'utf8'));
  expect(manifest).toMatchObject({ name: '@prompt-retrieval/cli', bin: { 'prompts-admin': 'dist/prompts-admin.cjs' }, engines: { node: '>=20' } });
  expect(manifest.dependencies).toBeUndefined();
});

test("cli/package.json declares the esbuild its build script runs, at the repository's version", async () => {
  const cli = JSON.parse(await readFile(join(REPO_ROOT, 'cli/package.json'), 'utf8'));
  const root = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8'));

  expect(cli.scripts.build).toMatch(/^esbuild \.\.\/bin\/admin\.ts --bundle /);
  expect(cli.devDependencies).toEqual({ esbuild: root.devDependencies.esbuild });
});

test("the bundle requires nothing but Node's own modules", async () => {
  const bundle = await readFile(join(installed, 'lib/node_modules/@prompt-retrieval/cli/dist/prompts-admin.cjs'), 'utf8');
  // Not `[require("...")]`: the AWS SDK's error messages quote such lines to tell users what to add.
  const required = new Set([...bundle.matchAll(/(?<!\[)\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((match) => match[1] ?? ''));

  expect(required.size).toBeGreaterThan(0);
  expect([...required].filter((name) => !builtinModules.includes(name.replace(/^node:/, '')))).toEqual([]);
});

test('prompts-admin --help exits 0 in an empty folder, listing the commands', async () => {
  const result = await promptsAdmin(['--help']);

  expect(result.code).toBe(0);
  expect(result.stdout).toContain('Usage: ');
  expect(result.stdout).toMatch(/^ {2}accounts create\b/m);
  expect(result.stderr).toBe('');
});

test('the installed prompts-admin works against a store: an account it creates is the one it lists', async () => {
  const env = { DYNAMODB_ENDPOINT: store.endpoint, TABLE_NAME: store.tableName, AWS_REGION: 'us-east-1' };

  const created = await promptsAdmin(['accounts', 'create', '--name', 'Packed Ltd', '--plan', 'free', '--id', 'packed', '--json'], env);
  const listed = await promptsAdmin(['accounts', 'list', '--json'], env);

  expect(created).toMatchObject({ code: 0, stderr: '' });
  expect(listed.code).toBe(0);
  expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ accountId: 'packed', name: 'Packed Ltd' })]);
});
