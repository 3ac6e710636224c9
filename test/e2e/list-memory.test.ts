import { DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { startEmbeddedStore } from '../../local/embedded-store';
import { createActiveTable } from '../support/active-table';
import { StackSet, type StackProcess, temporaryFolder } from './support/processes';

/**
 * The local stack left under list traffic holds its memory: every list request is a store Query, and
 * dynalite once kept each Query's LevelDB iterator open for good (patches/dynalite+4.0.0.patch). Memory is
 * shown by `npm run soak`; this checks, with a generous margin, that it no longer climbs. Unpatched, the
 * measured batch below added 96 MB; patched, 1 to 5 MB.
 */

jest.setTimeout(120_000);

const API_KEY = 'prs_e2e_list_memory_key';
/** Answered list requests: the first batch warms the process up (V8's heap sizing, sockets, caches). */
const WARM_UP = 1_000;
const MEASURED = 800;
const CONCURRENCY = 16;
/** level's databases track each open iterator (`attachResource`) until it is closed (`detachResource`). */
interface TrackedDatabase {
  attachResource(resource: object): void;
  detachResource(resource: object): void;
}
const { AbstractLevel } = require('abstract-level') as { AbstractLevel: { prototype: TrackedDatabase } };

/** How much RSS may still grow over the second batch: heap steps and allocator noise, not a leak. */
const MARGIN_MB = 40;

const seed = {
  accounts: [
    {
      accountId: 'memory',
      name: 'List memory',
      plan: 'pro',
      keys: [{ apiKey: API_KEY, monthlyLimit: 1_000_000 }],
      prompts: Array.from({ length: 10 }, (_, i) => ({
        promptId: `prompt-${i}`,
        promptName: `Prompt ${i}`,
        versions: ['1.0.0', '1.1.0', '1.2.0'].map((version) => ({
          version,
          published: true,
          systemMessage: `System message ${i} ${version} `.repeat(20),
          userMessage: `Hello \${name}, this is prompt ${i} at ${version}`,
          config: { model: 'gpt-4o-mini', temperature: 0.5 },
        })),
      })),
    },
  ],
};

const stacks = new StackSet();
let folder: { path: string; remove(): Promise<void> };
let stack: StackProcess;

beforeAll(async () => {
  folder = await temporaryFolder('list-memory-e2e');
  const seedPath = join(folder.path, 'seed.json');
  await writeFile(seedPath, JSON.stringify(seed));
  stack = await stacks.start({ DATA_DIR: join(folder.path, 'data'), SEED_FILE: seedPath });
}, 90_000);

afterAll(async () => {
  await stacks.stopAll();
  await folder.remove();
});

function rssMb(pid: number): number {
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024;
}

/** `count` answered list requests (a 503 from a loaded machine is sent again), CONCURRENCY at a time. */
async function listRequests(count: number): Promise<void> {
  let answered = 0;
  const client = async () => {
    while (answered < count) {
      const response = await fetch(`${stack.apiUrl}/prompts?include_versions=true`, {
        headers: { Authorization: `Bearer ${API_KEY}` },
      });
      await response.arrayBuffer();
      if (response.status === 200) answered += 1;
      else expect(response.status).toBe(503);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
}

test("list requests leave the local stack's RSS on a plateau once warm", async () => {
  await listRequests(WARM_UP);
  const warm = rssMb(stack.pid);

  await listRequests(MEASURED);
  const after = rssMb(stack.pid);

  expect(after - warm).toBeLessThan(MARGIN_MB);
});

test('every store Query closes the LevelDB iterator it opened', async () => {
  const attached = jest.spyOn(AbstractLevel.prototype, 'attachResource');
  const detached = jest.spyOn(AbstractLevel.prototype, 'detachResource');
  const store = await startEmbeddedStore({ dataDir: join(folder.path, 'store'), port: 0 });
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: store.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    await createActiveTable(client, 'prompts-iterators');
    const opened = attached.mock.calls.length;
    for (let i = 0; i < 20; i += 1) {
      await client.send(
        new QueryCommand({
          TableName: 'prompts-iterators',
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: 'ACCOUNT#memory' } },
        }),
      );
    }
    // The answer may leave before the iterator's close has finished.
    await delay(100);

    const closed = new Set(detached.mock.calls.map(([resource]) => resource));
    const stillOpen = attached.mock.calls.map(([resource]) => resource).filter((resource) => !closed.has(resource));
    expect(attached.mock.calls.length).toBeGreaterThan(opened);
    expect(stillOpen.length).toBe(0);
  } finally {
    client.destroy();
    await store.close();
    attached.mockRestore();
    detached.mockRestore();
  }
});
