import { unittest } from './support/python';

/** One snapshot format: each client serves a snapshot the other wrote (the TypeScript one run with tsx). */
test('a snapshot written by either client serves in the other: tests/cross', async () => {
  const result = await unittest('tests/cross');

  if (result.code !== 0 || result.ran === 0) throw new Error(`python3 -m unittest exited ${result.code}:\n${result.output}`);
  expect(result.output).toMatch(/^OK$/m);
}, 300_000);
