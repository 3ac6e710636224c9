/**
 * The rule that no API key is ever logged, checked over a whole jest run: every log line the run
 * captured (log-capture.ts) against every key its tests used. Plain JavaScript: jest loads reporters
 * without transforming them.
 */
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

/** Where the run's capture folder is, for the test workers and the reporter alike. */
const CAPTURE_DIR_VARIABLE = 'PRS_LOG_CAPTURE_DIR';

/** Each line that contains one of the keys, with the key it contains. */
function findKeyLeaks(lines, keys) {
  const leaks = [];
  const unique = [...new Set(keys)].filter((key) => key.length > 0);
  for (const line of lines) {
    for (const key of unique) {
      if (line.includes(key)) leaks.push({ key, line });
    }
  }
  return leaks;
}

/** Everything the run's workers wrote to the capture folder. */
function readCapture(dir) {
  const lines = [];
  const keys = [];
  for (const name of readdirSync(dir)) {
    const text = readFileSync(join(dir, name), 'utf8');
    const entries = text.split('\n').filter((entry) => entry !== '');
    if (name.startsWith('lines-')) lines.push(...entries);
    else if (name.startsWith('keys-')) keys.push(...entries);
  }
  return { lines, keys };
}

module.exports = { CAPTURE_DIR_VARIABLE, findKeyLeaks, readCapture };
