import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDocumentClient } from '../../../lambda/table/client';
import { hashApiKey, keyIdFromHash } from '../../../lambda/domain/api-key';
import type { RequestLogRecord } from '../../../lambda/read-api/middleware/request-telemetry';
import { loadLocalConfig } from '../../../local/local-config';
import { type LocalStack, startLocalStack } from '../../../local/local-stack';
import { Fixtures } from '../../support/fixtures';

export const UPGRADE_URL = 'https://prompts.example.test/upgrade';

/**
 * `npm start`'s stack (embedded dynalite on a throwaway DATA_DIR, the real handlers behind the HTTP
 * API stand-in) on free ports, with every request it serves recorded from its request log.
 */
export class ClientStack {
  /** One record per request the stack answered, in order. */
  readonly requests: RequestLogRecord[] = [];
  readonly failures: string[] = [];
  fixtures!: Fixtures;
  storeEndpoint!: string;
  readonly tableName = 'prompts-client-tests';
  #stack: LocalStack | undefined;
  #dataDir = '';
  #documentClient: ReturnType<typeof createDocumentClient> | undefined;

  get url(): string {
    if (!this.#stack) throw new Error('the stack is not running');
    return this.#stack.apiUrl;
  }

  async start(): Promise<this> {
    this.#dataDir = await mkdtemp(join(tmpdir(), 'client-tests-'));
    const config = loadLocalConfig({
      PORT: '0',
      DYNAMODB_PORT: '0',
      DATA_DIR: this.#dataDir,
      SEED_FILE: '',
      TABLE_NAME: this.tableName,
      UPGRADE_URL,
    });
    this.#stack = await startLocalStack(config, {
      log: (record) => {
        this.requests.push(record);
        if (record.level === 'error') this.failures.push(`${record.method} ${record.path ?? ''}: ${record.status ?? 'no response'}`);
      },
      onFunctionError: (name, error) => this.failures.push(`${name} failed: ${String(error)}`),
    });
    this.storeEndpoint = this.#stack.storeEndpoint;
    this.#documentClient = createDocumentClient({ region: 'us-east-1', endpoint: this.storeEndpoint });
    this.fixtures = new Fixtures(this.#documentClient, this.tableName);
    return this;
  }

  /** The requests made with one key: each test has its own, so counts never mix. */
  requestsOf(apiKey: string): RequestLogRecord[] {
    const keyId = keyIdFromHash(hashApiKey(apiKey));
    return this.requests.filter((record) => record.keyId === keyId);
  }

  /** Stops the API and its store: from now on nothing answers at the URL. */
  async stop(): Promise<void> {
    this.#documentClient?.destroy();
    this.#documentClient = undefined;
    await this.#stack?.stop();
    this.#stack = undefined;
  }

  async remove(): Promise<void> {
    await this.stop();
    await rm(this.#dataDir, { recursive: true, force: true });
  }
}
