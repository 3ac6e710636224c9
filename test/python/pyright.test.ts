import { join } from 'node:path';
import { CLIENT_PYTHON, REPO_ROOT, run } from './support/python';

/**
 * The Python client, its tests and its build backend are clean under pyright's strict mode, for the
 * oldest Python it supports (client-python/pyrightconfig.json): no syntax or library call newer than 3.9.
 */
test('pyright --strict finds nothing in client-python (Python 3.9)', async () => {
  const pyright = join(REPO_ROOT, 'node_modules', 'pyright', 'index.js');

  const result = await run(process.execPath, [pyright, '--project', CLIENT_PYTHON], { cwd: REPO_ROOT });

  if (result.code !== 0) throw new Error(`pyright exited ${result.code}:\n${result.output}`);
  expect(result.output).toMatch(/^0 errors, 0 warnings, 0 informations/m);
}, 300_000);
