import { unittest } from './support/python';

/** One snapshot format: each client serves a snapshot the other wrote (the TypeScript one run with tsx). */
test('a snapshot written by either client serves in the other: tests/cross', async () => {
  await unittest('tests/cross');
}, 300_000);
