import { spawn } from 'node:child_process';
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

/**
 * `python3 -m unittest discover` over one folder of client-python/tests, which must pass, with Python's
 * report as the failure. Python 3 must be there: a machine without it fails these tests, saying so,
 * rather than skipping them.
 */
export async function unittest(folder: string): Promise<void> {
  let version: Ran;
  try {
    version = await run('python3', ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { cwd: CLIENT_PYTHON });
  } catch (error) {
    throw new Error(`python3 is not on the PATH (${String(error)}): the Python client's tests need Python ${OLDEST.join('.')} or later`);
  }
  const [major = 0, minor = 0] = version.output.trim().split('.').map(Number);
  if (version.code !== 0 || major !== OLDEST[0] || minor < OLDEST[1]) {
    throw new Error(`python3 is ${version.output.trim()}: the Python client's tests need Python ${OLDEST.join('.')} or later`);
  }
  const ran = await run('python3', ['-m', 'unittest', 'discover', '--start-directory', folder, '--top-level-directory', '.', '--pattern', 'test_*.py'], {
    cwd: CLIENT_PYTHON,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1' },
  });
  const count = Number(/^Ran (\d+) tests? in/m.exec(ran.output)?.[1] ?? 0);
  // A run that tested nothing has passed nothing: it fails too, with Python's report.
  if (ran.code !== 0 || count === 0 || !/^OK/m.test(ran.output)) {
    throw new Error(`python3 -m unittest discover ${folder} exited ${ran.code} after ${count} tests:\n${ran.output}`);
  }
}
