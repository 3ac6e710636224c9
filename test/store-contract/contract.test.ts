import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedStore } from '../../local/embedded-store';
import { createActiveTable, waitUntilActive } from '../support/active-table';
import { javaVersion, startDynamoDbLocal } from '../support/dynamodb-local';
import { startLocalStore } from '../support/local-store';
import { type ContractCase, type StoreUnderTest, singleItemCases, transactionCases } from './cases';

/**
 * The store contract (cases.ts), the same cases against each store: dynalite as the tests start it
 * (in memory), dynalite as `npm start` runs it (LevelDB in a folder), and AWS's DynamoDB Local. Then,
 * case by case, each dynalite's outcome must equal DynamoDB Local's. DynamoDB Local needs Java: without
 * it that half is skipped with a test that says so, and in CI (CI=true) it fails instead.
 */

const TABLE = 'prompts-contract';
const STARTUP_MS = 90_000;
const CASE_MS = 30_000;

const CASES: readonly ContractCase[] = [...transactionCases, ...singleItemCases];

interface RunningStore extends StoreUnderTest {
  close(): Promise<void>;
}

/** A client that reports every answer as it is: no retries, so a refusal is seen as the store sent it. */
function clientFor(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'contract', secretAccessKey: 'contract' },
    maxAttempts: 1,
  });
}

async function withTable(endpoint: string, close: () => Promise<void>, create: boolean): Promise<RunningStore> {
  const client = clientFor(endpoint);
  if (create) await createActiveTable(client, TABLE);
  else await waitUntilActive(client, TABLE);
  return {
    client,
    table: TABLE,
    close: async () => {
      client.destroy();
      await close();
    },
  };
}

const STORES = {
  'dynalite in memory': async () => {
    // The tests' own helper creates the table from createTableInput.
    const local = await startLocalStore(TABLE);
    return withTable(local.endpoint, () => local.close(), false);
  },
  'dynalite on LevelDB, as npm start': async () => {
    const folder = await mkdtemp(join(tmpdir(), 'store-contract-'));
    const store = await startEmbeddedStore({ dataDir: folder, port: 0 });
    return withTable(
      store.endpoint,
      async () => {
        await store.close();
        await rm(folder, { recursive: true, force: true });
      },
      true,
    );
  },
  'DynamoDB Local': async () => {
    const local = await startDynamoDbLocal();
    return withTable(local.endpoint, () => local.close(), true);
  },
} as const;

type StoreName = keyof typeof STORES;
const EMBEDDED: StoreName[] = ['dynalite in memory', 'dynalite on LevelDB, as npm start'];
const REFERENCE: StoreName = 'DynamoDB Local';

const java = javaVersion();
const outcomes = new Map<StoreName, Map<string, unknown>>();

function runCases(storeName: StoreName): void {
  describe(storeName, () => {
    let store: RunningStore | undefined;
    const seen = new Map<string, unknown>();
    outcomes.set(storeName, seen);

    beforeAll(async () => {
      store = await STORES[storeName]();
    }, STARTUP_MS);
    afterAll(async () => store?.close());

    CASES.forEach((contractCase, index) => {
      test(
        contractCase.name,
        async () => {
          if (!store) throw new Error(`${storeName} did not start`);
          const outcome = await contractCase.run({ ...store, account: `contract-${index}` });
          seen.set(contractCase.name, outcome);
          contractCase.check(outcome);
        },
        CASE_MS,
      );
    });
  });
}

for (const storeName of EMBEDDED) runCases(storeName);

if (java) {
  runCases(REFERENCE);

  describe.each(EMBEDDED)('%s answers as DynamoDB Local does', (storeName) => {
    test.each(CASES.map((contractCase) => contractCase.name))('%s', (name) => {
      const reference = outcomes.get(REFERENCE)?.get(name);
      const embedded = outcomes.get(storeName)?.get(name);
      if (reference === undefined || embedded === undefined) {
        throw new Error(`no outcome to compare: the case failed to run on ${reference === undefined ? REFERENCE : storeName}`);
      }
      expect(embedded).toEqual(reference);
    });
  });
} else if (process.env.CI === 'true') {
  test('DynamoDB Local half: java is required in CI', () => {
    throw new Error('java not found: CI must run both halves of the store contract; .ci/run installs default-jre-headless');
  });
} else {
  const message = 'DynamoDB Local half skipped: java not found; install default-jre-headless (or any Java 17+)';
  console.warn(message);
  test.skip(message, () => undefined);
}
