import { spawnSync } from 'node:child_process';
import { CLIENT_PYTHON, run } from './support/python';

/**
 * The Python client and its build backend are clean under `mypy --strict` too, for the oldest Python it
 * supports: users type-check with mypy as often as with pyright. The mypy is Debian's (python3-mypy, run as
 * /usr/bin/python3 -m mypy): nothing is downloaded. Without it the test is skipped, saying so; in CI
 * (CI=true) it fails instead, and .ci/run installs python3-mypy.
 */
const PYTHON = '/usr/bin/python3';
const mypy = spawnSync(PYTHON, ['-m', 'mypy', '--version'], { encoding: 'utf8', timeout: 60_000 });
const mypyVersion = mypy.error || mypy.status !== 0 ? undefined : mypy.stdout.trim();

if (mypyVersion) {
  test(`mypy --strict finds nothing in client-python's package and build backend (Python 3.9; ${mypyVersion})`, async () => {
    const result = await run(PYTHON, ['-m', 'mypy', '--strict', '--python-version', '3.9', '--cache-dir', '/dev/null', 'src', 'build_backend'], {
      cwd: CLIENT_PYTHON,
    });

    if (result.code !== 0) throw new Error(`mypy exited ${result.code}:\n${result.output}`);
    expect(result.output).toMatch(/^Success: no issues found in \d+ source files$/m);
  }, 300_000);
} else if (process.env.CI === 'true') {
  test('mypy is required in CI', () => {
    throw new Error(`${PYTHON} -m mypy not found: CI must type-check the Python client with mypy; .ci/run installs python3-mypy`);
  });
} else {
  const message = `mypy --strict skipped: ${PYTHON} -m mypy not found; install python3-mypy (apt-get install python3-mypy)`;
  console.warn(message);
  test.skip(message, () => undefined);
}
