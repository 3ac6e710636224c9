import { unittestSuite } from './support/python';

/**
 * The Python client against `npm start` (started by the Python tests themselves): get, list, labels, a
 * key revoked with the admin CLI, a used-up quota, and the stack stopped mid-run.
 */
unittestSuite('the Python client against npm start', 'tests/stack', 900_000);
