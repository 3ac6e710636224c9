import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CAPTURE_DIR_VARIABLE } from './key-leak-check';

/** One capture folder per run, created before the workers start so that they inherit where it is. */
export default function createCaptureDir(): void {
  process.env[CAPTURE_DIR_VARIABLE] = mkdtempSync(join(tmpdir(), 'prompt-service-log-capture-'));
}
