/**
 * The run's one test over all of it: no log line that any test caused contains any API key a test
 * used. It is counted with the others (so the closing `jest: N passed, N failed` line includes it), and
 * a leak fails the run, naming the key's first characters and the line.
 */
const { rmSync } = require('node:fs');
const { CAPTURE_DIR_VARIABLE, findKeyLeaks, readCapture } = require('./key-leak-check');

const TITLE = 'no log line of this run contains an API key a test used';

class KeyLeakReporter {
  constructor() {
    this.error = undefined;
  }

  onRunComplete(_contexts, results) {
    const dir = process.env[CAPTURE_DIR_VARIABLE];
    if (!dir) return;
    // In band, the tests ran in this process: what their capture still holds is written now.
    process.stdout[Symbol.for('prompt-service.log-capture')]?.flush();
    const { lines, keys } = readCapture(dir);
    rmSync(dir, { recursive: true, force: true });
    if (keys.length === 0 && lines.length === 0) return;
    const leaks = findKeyLeaks(lines, keys);
    if (leaks.length === 0) {
      results.numPassedTests += 1;
      results.numTotalTests += 1;
      process.stdout.write(`✓ ${TITLE} (${lines.length} lines, ${new Set(keys).size} keys)\n`);
      return;
    }
    results.numFailedTests += 1;
    results.numTotalTests += 1;
    results.success = false;
    const details = leaks.slice(0, 10).map(({ key, line }) => `${key.slice(0, 8)}... in: ${line.slice(0, 300)}`);
    process.stdout.write(`✕ ${TITLE}\n${details.map((detail) => `    ${detail}`).join('\n')}\n`);
    this.error = new Error(`${TITLE}: ${leaks.length} leak(s)`);
  }

  getLastError() {
    return this.error;
  }
}

module.exports = KeyLeakReporter;
