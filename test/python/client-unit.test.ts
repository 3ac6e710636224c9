import { unittestSuite } from './support/python';

/**
 * The Python client's own tests (client-python/tests/unit), run by `npm test` with the machine's
 * python3 and nothing installed: the TypeScript client's behaviour against a local HTTP server, with
 * threads and with asyncio. One jest test per Python test; a failure shows Python's report.
 */
unittestSuite('the Python client behaves as the TypeScript client', 'tests/unit', 300_000);
