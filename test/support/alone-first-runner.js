/**
 * jest's own runner in two phases. First, one at a time with no other test file running, every file that
 * starts a service and counts its answers (the folders not named in SHARING_FOLDERS), and any file whose
 * leading docblock has `@run-alone <why>`: their assertions are about time and exact counts (an answer within
 * 5 s under a stalled store, none of 1,000 requests a 503), and another file's CPU would be in their numbers.
 * Then the files of SHARING_FOLDERS, whose tests time nothing (templates, linters, pure functions), on all of
 * jest's workers (maxWorkers in jest.config.js): the stack's synth, cdk-nag, cfn-guard and cfn-lint are most
 * of the suite's CPU.
 */
const { readFileSync } = require('node:fs');
const { relative, resolve, sep } = require('node:path');
const { extract, parse } = require('jest-docblock');
const TestRunner = require('jest-runner').default;

const PRAGMA = 'run-alone';
const ROOT = resolve(__dirname, '..', '..');
const SHARING_FOLDERS = ['test/stack', 'test/unit', 'test/openapi'];

/** Whether a test file of this repository's test/ sits outside the folders that share the workers. */
function outsideSharingFolders(path) {
  const inRepo = relative(ROOT, path).split(sep).join('/');
  if (inRepo.startsWith('..') || !inRepo.startsWith('test/')) return false;
  return !SHARING_FOLDERS.some((folder) => inRepo.startsWith(`${folder}/`));
}

/** Whether a test file runs with no other test file beside it. */
function runsAlone(path) {
  return Object.hasOwn(parse(extract(readFileSync(path, 'utf8'))), PRAGMA) || outsideSharingFolders(path);
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
module.exports.SHARING_FOLDERS = SHARING_FOLDERS;
