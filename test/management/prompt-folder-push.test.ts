import { formatPromptFile, parsePromptFile, type PromptFile } from '../../admin/prompt-files/prompt-file';
import { planFolder } from '../../admin/prompt-files/folder-plan';
import { readServedPrompts } from '../../admin/prompt-files/prompt-folder';
import { pushPrompt } from '../../admin/prompt-files/push';
import { AccountOperations } from '../../lambda/operations/account-operations';
import { StoreUnavailableError } from '../../lambda/table/read-path/api-store';
import { ManagementHarness } from '../support/management-harness';
import { prompt, version } from '../support/fixtures';

/**
 * `prompts push` when the store fails part-way (docs/prompts-as-code.md): up to the publish, the prompt is left
 * as it was (the draft taken back); after it, the push says what is left, and the next push finishes it.
 */

const ACCOUNT = 'folders';
let harness: ManagementHarness;

beforeAll(async () => {
  harness = await new ManagementHarness().start();
  await harness.fixtures.account(ACCOUNT);
  await harness.fixtures.prompts(ACCOUNT, prompt('greeting', [version('1.0.0')], { labels: { production: '1.0.0' } }));
});
afterAll(() => harness.stop());

/** The served greeting as a file, changed: a new version 1.1.0 that production follows. */
async function changedFile(next: string): Promise<PromptFile> {
  const served = (await readServedPrompts(harness.table, ACCOUNT)).find((each) => each.promptId === 'greeting')?.latest;
  if (!served) throw new Error('greeting is not served');
  const text = formatPromptFile({ ...served, version: next, userMessage: `New text ${next} for \${name}`, labels: { production: next } });
  return parsePromptFile('greeting.prompt.yaml', text);
}

class FailingOperations extends AccountOperations {
  failOn: 'publish' | 'setLabel' | undefined;
  override publish(...args: Parameters<AccountOperations['publish']>) {
    if (this.failOn === 'publish') return Promise.reject(new StoreUnavailableError('the store stopped answering'));
    return super.publish(...args);
  }
  override setLabel(...args: Parameters<AccountOperations['setLabel']>) {
    if (this.failOn === 'setLabel') return Promise.reject(new StoreUnavailableError('the store stopped answering'));
    return super.setLabel(...args);
  }
}

const operations = () => new FailingOperations({ table: harness.table, actor: { type: 'cli', operator: 'test' }, directory: harness.directory });

test('a failure at the publish leaves the prompt as it was: no version, no draft, labels where they were', async () => {
  const file = await changedFile('1.1.0');
  const [plan] = planFolder([file], await readServedPrompts(harness.table, ACCOUNT)).changes;
  const ops = operations();
  ops.failOn = 'publish';
  const outcome = await pushPrompt(ops, ACCOUNT, plan ?? { promptId: '', create: false, labels: [] }, file, 'note');
  expect(outcome).toMatchObject({ promptId: 'greeting', outcome: 'unchanged' });
  const greeting = (await readServedPrompts(harness.table, ACCOUNT)).find((each) => each.promptId === 'greeting');
  expect(greeting?.versions).toEqual([{ version: '1.0.0', published: true }]);
  expect(greeting?.labels).toEqual({ production: '1.0.0' });
});

test('a failure after the publish says what is left, and the next push finishes it', async () => {
  const file = await changedFile('1.2.0');
  const [plan] = planFolder([file], await readServedPrompts(harness.table, ACCOUNT)).changes;
  const ops = operations();
  ops.failOn = 'setLabel';
  const outcome = await pushPrompt(ops, ACCOUNT, plan ?? { promptId: '', create: false, labels: [] }, file, 'note');
  expect(outcome).toMatchObject({ promptId: 'greeting', outcome: 'unfinished', left: 'point label production at 1.2.0' });

  ops.failOn = undefined;
  const [rest] = planFolder([file], await readServedPrompts(harness.table, ACCOUNT)).changes;
  expect(rest?.publish).toBeUndefined();
  expect(rest?.labels).toEqual([{ label: 'production', from: '1.0.0', to: '1.2.0' }]);
  expect(await pushPrompt(ops, ACCOUNT, rest ?? { promptId: '', create: false, labels: [] }, file, 'note')).toMatchObject({ outcome: 'changed' });
  expect(planFolder([file], await readServedPrompts(harness.table, ACCOUNT)).unchanged).toEqual(['greeting']);
});
