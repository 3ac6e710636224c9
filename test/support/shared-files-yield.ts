import { setPriority } from 'node:os';
import { runsAlone } from './alone-first-runner';

/**
 * A jest worker (never the main process, which runs the files that run alone) that runs the stack's, unit and
 * OpenAPI files lowers its own priority, and the synths, linters and bundlers it starts inherit it: the files that
 * start services and count their answers run meanwhile in the main process, and take the CPU first whenever they
 * want it (test/support/alone-first-runner.js). Once lowered a worker stays so; it runs only such files.
 */
const inWorker = /[\\/]processChild\.js$/.test(process.argv[1] ?? '');
const testPath = expect.getState().testPath;
if (inWorker && testPath !== undefined && !runsAlone(testPath)) setPriority(19);
