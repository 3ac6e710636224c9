import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * A maintainer finds every suite: each folder of test/ has its npm script, `npm run test:<folder>`, and
 * docs/testing.md names that script and says what the folder holds; `npm run test:quick` is the inner loop.
 */

const ROOT = resolve(__dirname, '..', '..');
const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const testingDoc = readFileSync(join(ROOT, 'docs', 'testing.md'), 'utf8');

/** Whether a folder holds a test file, at any depth. */
function holdsTests(folder: string): boolean {
  return readdirSync(folder, { withFileTypes: true }).some((entry) =>
    entry.isDirectory() ? holdsTests(join(folder, entry.name)) : entry.name.endsWith('.test.ts'),
  );
}

/** The folders of test/ that hold test files (support/ holds what they share). */
const suites = readdirSync(join(ROOT, 'test'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && holdsTests(join(ROOT, 'test', entry.name)))
  .map((entry) => entry.name)
  .sort();

test('test/ has its suites in folders, and support/ holds no test file', () => {
  expect(suites).toEqual(expect.arrayContaining(['unit', 'integration', 'e2e', 'stack', 'browser']));
  expect(suites).not.toContain('support');
});

test.each(suites)('test/%s has its npm script, which runs that folder and nothing else', (folder) => {
  expect(scripts[`test:${folder}`]).toBe(`jest test/${folder}/`);
});

test('every test: script but test:quick names a folder of test/', () => {
  const named = Object.keys(scripts)
    .filter((name) => name.startsWith('test:') && name !== 'test:quick')
    .map((name) => name.slice('test:'.length));
  expect(named.filter((folder) => !existsSync(join(ROOT, 'test', folder)))).toEqual([]);
  expect(named.sort()).toEqual(suites);
});

test.each(suites)('docs/testing.md names npm run test:%s and has a row saying what the folder holds', (folder) => {
  expect(testingDoc).toContain(`test:${folder}\``);
  expect(testingDoc).toMatch(new RegExp(`^\\| \`test/${folder}\` \\|`, 'm'));
});

test("npm run test:quick runs the unit tests (the features' rules among them) and the webhook tests, in-process", () => {
  expect(scripts['test:quick']).toBe('jest test/unit/ test/webhooks/');
  expect(testingDoc).toContain('npm run test:quick');
});
