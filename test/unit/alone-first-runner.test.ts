import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import TestRunner from 'jest-runner';
import AloneFirstRunner, { runsAlone } from '../support/alone-first-runner';

/**
 * The suite's runner (jest.config.js): the files marked `@run-alone` run first, one at a time, and only then
 * the rest on every worker, so no other test file's CPU is in a timed file's numbers.
 */

const ROOT = resolve(__dirname, '..', '..');
const folder = mkdtempSync(join(tmpdir(), 'alone-first-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function testFile(name: string, text: string): { path: string } {
  const path = join(folder, name);
  writeFileSync(path, text);
  return { path };
}

const timed = testFile('timed.test.ts', "/**\n * @run-alone answers within 5 s\n */\nimport { x } from './x';\n");
const plain = testFile('plain.test.ts', "/** A file's own description, with no pragma. */\nimport { x } from './x';\n");
const later = testFile('later.test.ts', "import { x } from './x';\n/**\n * @run-alone not the leading docblock, so not read\n */\n");
const other = testFile('other.test.ts', "test('x', () => undefined);\n");

test('a file runs alone when its leading docblock says @run-alone, and only then', () => {
  expect([timed, plain, later, other].map(({ path }) => runsAlone(path))).toEqual([true, false, false, false]);
});

test('the timed suites are marked to run alone: the burst, the fault suites, the MCP stalled-store answer and the rollout reads', () => {
  const marked = [
    'test/e2e/burst.test.ts',
    'test/faults/store-faults.test.ts',
    'test/faults/start-up-faults.test.ts',
    'test/management/store-faults.test.ts',
    'test/e2e/mcp.test.ts',
    'test/integration/rollout-reads.test.ts',
  ];
  expect(marked.filter((path) => !runsAlone(join(ROOT, path)))).toEqual([]);
});

test('a file of a folder that starts services and counts answers runs alone; the stack, unit and OpenAPI files share the workers', () => {
  const alone = ['test/e2e/local-stack.test.ts', 'test/integration/quota.test.ts', 'test/management/names-and-depth.test.ts', 'test/browser/dashboard.test.ts'];
  const sharing = ['test/stack/cdk-nag.test.ts', 'test/unit/alone-first-runner.test.ts', 'test/openapi/openapi-document.test.ts'];
  expect(alone.map((path) => runsAlone(join(ROOT, path)))).toEqual(alone.map(() => true));
  expect(sharing.map((path) => runsAlone(join(ROOT, path)))).toEqual(sharing.map(() => false));
});

describe('a run on several workers', () => {
  const calls: { paths: string[]; serial: boolean }[] = [];
  beforeEach(() => {
    calls.length = 0;
    jest.spyOn(TestRunner.prototype, 'runTests').mockImplementation(async (tests, _watcher, options) => {
      calls.push({ paths: tests.map((test) => test.path), serial: options.serial });
    });
  });
  afterEach(() => jest.restoreAllMocks());

  const run = (tests: { path: string }[], serial: boolean) =>
    new AloneFirstRunner({ maxWorkers: 2 } as never, {}).runTests(tests as never, {} as never, { serial });

  test('runs the files marked @run-alone first, in band, then every other file on the workers', async () => {
    await run([plain, timed, other], false);
    expect(calls).toEqual([
      { paths: [timed.path], serial: true },
      { paths: [plain.path, other.path], serial: false },
    ]);
  });

  test('with nothing marked, is jest’s own parallel run', async () => {
    await run([plain, other], false);
    expect(calls).toEqual([{ paths: [plain.path, other.path], serial: false }]);
  });

  test('in band (one worker) runs everything as jest orders it, in one pass', async () => {
    await run([plain, timed, other], true);
    expect(calls).toEqual([{ paths: [plain.path, timed.path, other.path], serial: true }]);
  });
});
