import { unittest } from './support/python';

/** `pip install ./client-python` into new virtual environments, offline, with and without build isolation. */
test('pip installs the Python client offline, and what it installs is the typed package: tests/install', async () => {
  await unittest('tests/install');
}, 600_000);
