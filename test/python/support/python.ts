import { spawn, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

/** The repository root, and the Python client's folder: its tests run from there, with no install. */
export const REPO_ROOT = resolve(__dirname, '..', '..', '..');
export const CLIENT_PYTHON = join(REPO_ROOT, 'client-python');
/** The oldest Python the client supports (client-python/pyproject.toml, requires-python). */
const OLDEST = [3, 9] as const;

export interface Ran {
  readonly code: number | null;
  readonly output: string;
}

/** A command run to its end, stdout and stderr together as they came; refused if it cannot start. */
export function run(command: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<Ran> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', fail);
    child.once('close', (code) => done({ code, output }));
  });
}

/** The runner that lists and runs one folder of unittest suites for jest, reporting on file descriptor 3. */
const RUNNER = join(__dirname, 'unittest_report.py');
const PYTHON_ENV = { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1' };

type Report =
  | { readonly python: string }
  | { readonly test: string; readonly outcome?: 'passed' | 'failed' | 'skipped'; readonly detail?: string }
  | { readonly fixture: string; readonly detail: string };

const reportsIn = (text: string): Report[] =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Report);

/**
 * The ids of the tests `python3 -m unittest discover` finds in one folder of client-python/tests, read when
 * jest collects the file (test.each needs them then); or why there are none. Python 3 must be there: a
 * machine without it fails, saying so, rather than skipping them.
 */
function listed(folder: string): { ids: string[] } | { problem: string } {
  const listing = spawnSync('python3', [RUNNER, 'list', folder], {
    cwd: CLIENT_PYTHON,
    env: PYTHON_ENV,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    encoding: 'utf8',
    timeout: 60_000,
  });
  const needs = `the Python client's tests need Python ${OLDEST.join('.')} or later`;
  if (listing.error) return { problem: `python3 is not on the PATH (${String(listing.error)}): ${needs}` };
  const reports = reportsIn(String(listing.output[3] ?? ''));
  const version = reports.find((report) => 'python' in report);
  const [major = 0, minor = 0] = (version && 'python' in version ? version.python : '').split('.').map(Number);
  if (major !== OLDEST[0] || minor < OLDEST[1]) return { problem: `python3 is ${version && 'python' in version ? version.python : 'unknown'}: ${needs}` };
  const ids = reports.flatMap((report) => ('test' in report ? [report.test] : []));
  // A folder that lists nothing would pass nothing: it fails too, with Python's report.
  if (listing.status !== 0 || ids.length === 0) {
    return { problem: `python3 -m unittest discover ${folder} listed ${ids.length} tests (exit ${listing.status}):\n${listing.stdout}${listing.stderr}` };
  }
  return { ids };
}

interface Outcomes {
  readonly outcomes: Map<string, { readonly outcome: string; readonly detail: string }>;
  readonly fixtures: readonly string[];
  readonly output: string;
}

/** Runs the folder's tests once, as `python3 -m unittest discover` does, and collects each test's outcome. */
function ranTests(folder: string): Promise<Outcomes> {
  return new Promise((done, fail) => {
    const child = spawn('python3', [RUNNER, 'run', folder], { cwd: CLIENT_PYTHON, env: PYTHON_ENV, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
    let output = '';
    let reported = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => (reported += chunk.toString()));
    child.once('error', fail);
    child.once('close', () => {
      const outcomes = new Map<string, { outcome: string; detail: string }>();
      const fixtures: string[] = [];
      for (const report of reportsIn(reported)) {
        if ('fixture' in report) fixtures.push(`${report.fixture}:\n${report.detail}`);
        else if ('test' in report) outcomes.set(report.test, { outcome: report.outcome ?? 'failed', detail: report.detail ?? '' });
      }
      done({ outcomes, fixtures, output });
    });
  });
}

/**
 * One folder of client-python/tests as jest tests, one per Python test, so that jest's count is theirs: the
 * tests are listed when jest collects the file, run once (as `python3 -m unittest discover` runs them) before
 * the first, and each jest test passes when its Python test passed (a skipped one too, as unittest counts it).
 * A failure shows Python's report of it; a test that did not run shows the whole run's output.
 */
export function unittestSuite(title: string, folder: string, runTimeoutMs: number): void {
  const found = listed(folder);
  describe(`${title}: python3 -m unittest discover ${folder}`, () => {
    if ('problem' in found) {
      test('lists its tests', () => {
        throw new Error(found.problem);
      });
      return;
    }
    let ran: Outcomes;
    beforeAll(async () => {
      ran = await ranTests(folder);
      const unlisted = [...ran.outcomes.keys()].filter((id) => !found.ids.includes(id));
      if (unlisted.length > 0) throw new Error(`ran tests it had not listed: ${unlisted.join(', ')}\n${ran.output}`);
    }, runTimeoutMs);
    const prefix = `${folder.replaceAll('/', '.')}.`;
    test.each(found.ids.map((id) => [id.startsWith(prefix) ? id.slice(prefix.length) : id, id]))('%s', (_, id) => {
      const result = ran.outcomes.get(id);
      if (!result) throw new Error(`${id} did not run${ran.fixtures.length > 0 ? `: ${ran.fixtures.join('\n')}` : ''}\n${ran.output}`);
      if (result.outcome === 'failed') throw new Error(`${id} failed:\n${result.detail}`);
      expect(['passed', 'skipped']).toContain(result.outcome);
    });
  });
}
