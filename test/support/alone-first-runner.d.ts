import TestRunner from 'jest-runner';

/** jest's runner: the files marked `@run-alone` first, one at a time, then the rest on every worker. */
declare class AloneFirstRunner extends TestRunner {}

/** Whether a test file's leading docblock says `@run-alone`. */
export declare function runsAlone(path: string): boolean;

export default AloneFirstRunner;
