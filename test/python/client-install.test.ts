import { unittest } from './support/python';

/** `pip install ./client-python` into new virtual environments, offline, with and without build isolation. */
test('pip installs the Python client offline, and what it installs is the typed package: tests/install', async () => {
  const result = await unittest('tests/install');

  if (result.code !== 0 || result.ran === 0) throw new Error(`python3 -m unittest exited ${result.code}:\n${result.output}`);
  expect(result.output).toMatch(/^OK$/m);
}, 600_000);
