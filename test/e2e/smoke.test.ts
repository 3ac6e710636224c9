import { createServer } from 'node:net';
import { type StackProcess, StackSet, runNpm, temporaryFolder } from './support/processes';

/**
 * `npm run smoke -- --url <ApiUrl> --key <key>` (docs/deploy.md), run as the operator runs it after
 * `cdk deploy`, against `npm start`'s demo: every check holds there, so the command is known to work
 * before anyone deploys; with a wrong key or URL it exits non-zero and says what failed.
 */

const DEMO_KEY = 'prs_demo_local_development_only';
const CHECKS = [
  'list',
  'get latest',
  'get pinned version',
  'list at label production',
  'get at label production',
  'rate-limit headers',
  'MCP',
  'CORS preflight',
  'CORS answer',
  '401 for a bad key',
  '404 for an unknown prompt',
];

const stacks = new StackSet();
let stack: StackProcess;
let removeDataDir: () => Promise<void>;

beforeAll(async () => {
  const dataDir = await temporaryFolder('smoke');
  removeDataDir = dataDir.remove;
  stack = await stacks.start({ DATA_DIR: dataDir.path });
}, 90_000);

afterAll(async () => {
  await stacks.stopAll();
  await removeDataDir();
});

const smoke = (...args: string[]) => runNpm(['run', '--silent', 'smoke', '--', ...args], {});
const lineOf = (stdout: string, check: string) => stdout.split('\n').find((line) => line.slice(2).startsWith(`${check} `));

test('against npm start with the demo key, every check holds, one ✓ line each, and it exits 0', async () => {
  const { code, stdout } = await smoke('--url', stack.apiUrl, '--key', DEMO_KEY);

  for (const check of CHECKS) expect(lineOf(stdout, check)).toMatch(/^✓ /);
  expect(stdout).toContain(`All ${CHECKS.length} checks passed against ${stack.apiUrl}`);
  expect(code).toBe(0);
}, 60_000);

test('the key may come from PROMPTS_API_KEY instead of --key, kept out of the shell history', async () => {
  const { code, stdout } = await runNpm(['run', '--silent', 'smoke', '--', '--url', `${stack.apiUrl}/`], { PROMPTS_API_KEY: DEMO_KEY });

  expect(stdout).toContain(`All ${CHECKS.length} checks passed`);
  expect(code).toBe(0);
}, 60_000);

test('with a key the stack does not know, it exits 1 and each failed check says the API answered 401', async () => {
  const { code, stdout } = await smoke('--url', stack.apiUrl, '--key', 'prs_not_a_key_of_this_stack_0000000000');

  expect(lineOf(stdout, 'list')).toBe(`✗ ${'list'.padEnd(25)}  GET /prompts answered 401 UNAUTHORIZED, expected 200`);
  expect(lineOf(stdout, 'MCP')).toMatch(/^✗ MCP +POST \/mcp initialize answered 401 UNAUTHORIZED, expected 200$/);
  expect(lineOf(stdout, '404 for an unknown prompt')).toMatch(/^✗ .*answered 401 UNAUTHORIZED, expected 404 NOT_FOUND$/);
  expect(stdout).toMatch(/\d+ of 11 checks failed against /);
  expect(code).toBe(1);
}, 60_000);

test('with a URL nothing answers at, it exits 1 and says there was no answer', async () => {
  const nothingThere = `http://127.0.0.1:${await closedPort()}`;
  const { code, stdout } = await smoke('--url', nothingThere, '--key', DEMO_KEY);

  expect(lineOf(stdout, 'list')).toMatch(new RegExp(`^✗ list +no answer from ${nothingThere}: ECONNREFUSED`));
  expect(stdout).toContain(`11 of 11 checks failed against ${nothingThere}`);
  expect(code).toBe(1);
}, 60_000);

test('without --url it exits 2 and prints the usage, checking nothing', async () => {
  const { code, stderr } = await smoke('--key', DEMO_KEY);

  expect(stderr).toContain('smoke: --url is required');
  expect(stderr).toContain('Usage: npm run smoke -- --url <ApiUrl> --key <key>');
  expect(code).toBe(2);
}, 60_000);

/** A loopback port that was free a moment ago and has nothing listening now. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const address = server.address();
  await new Promise((closed) => server.close(closed));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
