import { formatPromptFile, parsePromptFile, type PromptFile } from '../../admin/prompt-files/prompt-file';
import { planFolder } from '../../admin/prompt-files/folder-plan';
import { readServedPrompts } from '../../admin/prompt-files/prompt-folder';
import { pushPrompt } from '../../admin/prompt-files/push';
import { Operations } from '../../lambda/operations';
import { Table } from '../../lambda/table/table';
import { listAudit } from '../../lambda/table/audit-log';
import { createStoreClients, type StoreClients } from '../../lambda/table/client';
import { type FaultProxy, startFaultProxy } from '../support/fault-proxy';
import { ManagementHarness } from '../support/management-harness';
import { prompt, version } from '../support/fixtures';

/**
 * `prompts push` when the store fails part-way (docs/prompts-as-code.md): each prompt's creation, version,
 * labels and details are one transaction, so whatever write the store stops at, the prompt is as its file says
 * or as it was, and the next push finishes the job.
 */

const ACCOUNT = 'folders';
const WRITES = new Set(['TransactWriteItems', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);
let harness: ManagementHarness;
let proxy: FaultProxy;
let clients: StoreClients;
let table: Table;

beforeAll(async () => {
  harness = await new ManagementHarness().start();
  await harness.fixtures.account(ACCOUNT);
  await harness.fixtures.prompts(ACCOUNT, prompt('greeting', [version('1.0.0')], { labels: { production: '1.0.0' } }));
  proxy = await startFaultProxy(harness.local.endpoint);
  clients = createStoreClients({ region: 'us-east-1', endpoint: proxy.endpoint });
  table = new Table(clients.reads, harness.local.tableName, () => new Date(), { writeClient: clients.writes });
});
afterAll(async () => {
  clients.destroy();
  await proxy.close();
  await harness.stop();
});

/** The served greeting as a file, changed: a new version that production follows, and a new name. */
async function changedFile(next: string): Promise<PromptFile> {
  const served = (await readServedPrompts(harness.table, ACCOUNT)).find((each) => each.promptId === 'greeting')?.latest;
  if (!served) throw new Error('greeting is not served');
  const text = formatPromptFile({
    ...served,
    version: next,
    promptName: `Greeting ${next}`,
    userMessage: `New text ${next} for \${name}`,
    labels: { production: next },
  });
  return parsePromptFile('greeting.prompt.yaml', text);
}

const greeting = async () => (await readServedPrompts(harness.table, ACCOUNT)).find((each) => each.promptId === 'greeting');

test.each(['throttle', 'drop-answer'] as const)(
  'an outage from the first write on ("%s"): the prompt is whole or as it was, and the answer says which',
  async (fault) => {
    const file = await changedFile(fault === 'throttle' ? '1.1.0' : '1.2.0');
    const before = await greeting();
    const [plan] = planFolder([file], await readServedPrompts(harness.table, ACCOUNT)).changes;
    let writes = 0;
    proxy.rule = (operation) => {
      if (!WRITES.has(operation)) return 'pass';
      writes += 1;
      return writes === 1 ? fault : 'throttle';
    };
    const ops = new Operations({ table, actor: { type: 'cli', operator: 'test' } });
    const outcome = await pushPrompt(ops, ACCOUNT, plan ?? { promptId: '', create: false, labels: [], pending: [] }, file, 'note');
    proxy.rule = () => 'pass';
    const after = await greeting();
    if (outcome.outcome === 'changed') {
      expect(after?.latest?.version).toBe(file.version);
      expect(after?.labels).toEqual({ production: file.version });
      expect(after?.latest?.promptName).toBe(file.promptName);
    } else {
      expect(after).toEqual(before);
    }
    // A lost answer to a transaction that committed is found by its audit entry: the push says it changed.
    expect(outcome.outcome).toBe(fault === 'drop-answer' ? 'changed' : 'unchanged');
    const { entries } = await listAudit(harness.table, ACCOUNT, { filter: { promptId: 'greeting' } });
    const recorded = entries.filter((entry) => entry.target.version === file.version || entry.requested !== undefined);
    expect(entries.every((entry) => entry.outcome !== ('pending' as string))).toBe(true);
    if (outcome.outcome === 'changed') expect(recorded.map((entry) => entry.action).sort()).toEqual(expect.arrayContaining(['label.set', 'version.publish']));
  },
  30_000,
);

test('a push after a failed one finishes the job: the folder and the account then agree', async () => {
  const file = await changedFile('1.3.0');
  const [plan] = planFolder([file], await readServedPrompts(harness.table, ACCOUNT)).changes;
  expect(plan?.publish?.version).toBe('1.3.0');
  const ops = new Operations({ table: harness.table, actor: { type: 'cli', operator: 'test' } });
  expect(await pushPrompt(ops, ACCOUNT, plan ?? { promptId: '', create: false, labels: [], pending: [] }, file, 'note')).toMatchObject({ outcome: 'changed' });
  expect(planFolder([file], await readServedPrompts(harness.table, ACCOUNT)).unchanged).toEqual(['greeting']);
});

test('each step of one prompt keeps its own audit entry, all written with the change', async () => {
  const file = await changedFile('1.4.0');
  const [plan] = planFolder([file], await readServedPrompts(harness.table, ACCOUNT)).changes;
  const ops = new Operations({ table: harness.table, actor: { type: 'cli', operator: 'test' } });
  await pushPrompt(ops, ACCOUNT, plan ?? { promptId: '', create: false, labels: [], pending: [] }, file, 'note');
  const { entries } = await listAudit(harness.table, ACCOUNT, { limit: 3 });
  expect(entries.map((entry) => [entry.action, entry.outcome]).sort()).toEqual([
    ['label.set', 'succeeded'],
    ['prompt.update', 'succeeded'],
    ['version.publish', 'succeeded'],
  ]);
  expect(entries.find((entry) => entry.action === 'label.set')?.after).toEqual({ version: '1.4.0', was: '1.3.0', reason: 'push' });
});
