import { unittestSuite } from './support/python';

/** One snapshot format: each client serves a snapshot the other wrote (the TypeScript one run with tsx). */
unittestSuite('a snapshot written by either client serves in the other', 'tests/cross', 300_000);
