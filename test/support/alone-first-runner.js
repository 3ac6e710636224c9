/**
 * jest's own runner in two phases. First, one at a time with no other test file running, the files whose
 * leading docblock has `@run-alone <why>`: their assertions are about time (an answer within 5 s under a
 * stalled store, none of 1,000 requests timing out), and another file's CPU would be in their numbers. Then
 * every other file, on all of jest's workers (maxWorkers in jest.config.js).
 */
const { readFileSync } = require('node:fs');
const { extract, parse } = require('jest-docblock');
const TestRunner = require('jest-runner').default;

const PRAGMA = 'run-alone';

/** Whether a test file asks to run with no other test file beside it. */
function runsAlone(path) {
  return Object.hasOwn(parse(extract(readFileSync(path, 'utf8'))), PRAGMA);
}

class AloneFirstRunner extends TestRunner {
  async runTests(tests, watcher, options) {
    // In band (one worker, or jest's own choice for a small run) every file already runs alone.
    if (options.serial) return super.runTests(tests, watcher, options);
    const alone = tests.filter((test) => runsAlone(test.path));
    const shared = tests.filter((test) => !alone.includes(test));
    if (alone.length > 0) await super.runTests(alone, watcher, { ...options, serial: true });
    if (shared.length > 0) await super.runTests(shared, watcher, options);
  }
}

module.exports = AloneFirstRunner;
module.exports.runsAlone = runsAlone;
