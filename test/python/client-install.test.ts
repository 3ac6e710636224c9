import { unittestSuite } from './support/python';

/** `pip install ./client-python` into new virtual environments, offline, with and without build isolation. */
unittestSuite('pip installs the Python client offline, and what it installs is the typed package', 'tests/install', 600_000);
