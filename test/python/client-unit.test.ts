import { unittest } from './support/python';

/**
 * The Python client's own tests (client-python/tests/unit), run by `npm test` with the machine's
 * python3 and nothing installed: the TypeScript client's behaviour against a local HTTP server, with
 * threads and with asyncio. A failure shows Python's report.
 */
test('the Python client behaves as the TypeScript client: python3 -m unittest discover tests/unit', async () => {
  await unittest('tests/unit');
}, 300_000);
