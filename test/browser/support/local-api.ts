import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Seed } from '../../../admin/seed-file';
import { loadLocalConfig } from '../../../local/local-config';
import { startLocalStack } from '../../../local/local-stack';

const UPGRADE_URL = 'https://prompts.example.test/upgrade';

export interface LocalApi {
  readonly url: string;
  readonly upgradeUrl: string;
  /** The seed as loaded, keys in plaintext: what the tests type into the page. */
  readonly seed: Seed;
  /** Every function failure and 5xx the stack logged: a browser test expects none. */
  readonly failures: string[];
  close(): Promise<void>;
}

/**
 * `npm start`'s stack (embedded dynalite, the seed, the real handlers behind the REST API stand-in),
 * configured as its environment would configure it, on free ports and a throwaway data folder.
 */
export async function startLocalApi(seedPath: string): Promise<LocalApi> {
  const dataDir = await mkdtemp(join(tmpdir(), 'playground-browser-tests-'));
  const failures: string[] = [];
  const config = loadLocalConfig({
    PORT: '0',
    DYNAMODB_PORT: '0',
    DATA_DIR: dataDir,
    SEED_FILE: seedPath,
    TABLE_NAME: 'prompts-browser-tests',
    UPGRADE_URL,
  });
  const stack = await startLocalStack(config, {
    log: (record) => {
      if (record.level === 'error') failures.push(`${record.method} ${record.path ?? ''}: ${record.status ?? 'no response'}`);
    },
    onFunctionError: (functionName, error) => failures.push(`${functionName} failed: ${String(error)}`),
  });
  if (!stack.seed) throw new Error(`the local stack loaded no seed from ${seedPath}`);
  return {
    url: stack.apiUrl,
    upgradeUrl: UPGRADE_URL,
    seed: stack.seed.seed,
    failures,
    close: async () => {
      await stack.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
