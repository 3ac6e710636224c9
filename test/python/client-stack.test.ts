import { unittest } from './support/python';

/**
 * The Python client against `npm start` (started by the Python tests themselves): get, list, labels, a
 * key revoked with the admin CLI, a used-up quota, and the stack stopped mid-run.
 */
test('the Python client against npm start: tests/stack', async () => {
  const result = await unittest('tests/stack');

  if (result.code !== 0 || result.ran === 0) throw new Error(`python3 -m unittest exited ${result.code}:\n${result.output}`);
  expect(result.output).toMatch(/^OK$/m);
}, 900_000);
