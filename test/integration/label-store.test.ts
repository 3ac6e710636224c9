import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { FixtureStore } from '../support/fixture-store';
import type { PromptImport } from '../../admin/table/import-plan';
import { importSeed } from '../../admin/import-seed';
import { DynamoStore } from '../../lambda/read-api/store/dynamo-store';
import type { PromptHeadItem, PromptLabelItem } from '../../lambda/table/item-types';
import { keys } from '../../lambda/table/schema';
import { version } from '../support/fixtures';
import { type LocalStore, startLocalStore } from '../support/local-store';
import { noDeadline, readerOf } from '../support/readers';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PromptMissingError, PromptDeletedError, VersionNotPublishedError, InvalidLabelError } from '../../lambda/features/errors';

/** lambda/table/labels.ts and label imports, against a real DynamoDB-compatible store (dynalite). */

let local: LocalStore;
let admin: FixtureStore;
let api: DynamoStore;
const NOW = new Date('2026-11-15T12:00:00Z');

beforeAll(async () => {
  local = await startLocalStore('label-store-test');
  admin = new FixtureStore(local.client, local.tableName, () => NOW);
  api = new DynamoStore(local.clients, local.tableName);
  await admin.importAccounts([
    {
      accountId: 'acme',
      name: 'Acme',
      plan: 'free',
      keys: [],
      prompts: [
        { promptId: 'greet', promptName: 'Greet', versions: [version('1.0.0'), version('1.1.0'), version('2.0.0', { published: false })] },
        { promptId: 'other', promptName: 'Other', versions: [version('1.0.0')] },
      ],
    },
  ]);
});

afterAll(async () => local.close());

const item = async <T>(key: Record<string, string>) =>
  (await local.client.send(new GetCommand({ TableName: local.tableName, Key: key }))).Item as T | undefined;
const revisionOf = async (accountId: string) => Number((await item<{ promptsRevision?: number }>(keys.account(accountId)))?.promptsRevision ?? 0);
const atLabel = async (promptId: string, label: string, accountId = 'acme') => api.findLabelledPrompt(readerOf(accountId), promptId, label);

describe('setLabel', () => {
  test('sets a label, and says it was not there before', async () => {
    expect(await admin.setLabel('acme', 'greet', 'production', '1.0.0')).toEqual({
      accountId: 'acme',
      promptId: 'greet',
      label: 'production',
      version: '1.0.0',
      changed: true,
    });
    expect(await atLabel('greet', 'production')).toMatchObject({ found: true, prompt: { version: '1.0.0' } });
  });

  test('moves a label, and says from where', async () => {
    expect(await admin.setLabel('acme', 'greet', 'production', '1.1.0')).toMatchObject({ previousVersion: '1.0.0', version: '1.1.0', changed: true });
    expect(await atLabel('greet', 'production')).toMatchObject({ prompt: { version: '1.1.0', systemMessage: 'System message of 1.1.0' } });
    expect(await admin.listLabels('acme', 'greet')).toEqual({ production: '1.1.0' });
  });

  test('run again, changes nothing and raises no revision', async () => {
    const before = await revisionOf('acme');
    expect(await admin.setLabel('acme', 'greet', 'production', '1.1.0')).toMatchObject({ previousVersion: '1.1.0', changed: false });
    expect(await revisionOf('acme')).toBe(before);
  });

  test("raises the account's prompt revision, copied to its keys: the next request reads again", async () => {
    const keyHash = 'd'.repeat(64);
    await admin.createApiKey({ keyHash, keyId: 'key_labels', accountId: 'acme', displayPrefix: 'prs_lbl' });
    const admit = () => api.admit({ keyHash, month: '2026-11', day: String(NOW.getUTCDate()).padStart(2, '0'), at: NOW }, noDeadline);
    const before = await admit();
    await admin.setLabel('acme', 'greet', 'staging', '1.0.0');
    const after = await admit();
    expect(before.admitted && after.admitted).toBe(true);
    if (before.admitted && after.admitted) expect(after.key.promptsRevision).toBeGreaterThan(before.key.promptsRevision);
  });

  test('refuses a draft, naming it as one', async () => {
    const refused = admin.setLabel('acme', 'greet', 'production', '2.0.0');
    await expect(refused).rejects.toThrow(VersionNotPublishedError);
    await expect(refused).rejects.toMatchObject({ draft: true, version: '2.0.0' });
    await expect(refused).rejects.toThrow('version 2.0.0 of prompt greet (account acme) is a draft: only a published version can be labelled');
    expect(await admin.listLabels('acme', 'greet')).toMatchObject({ production: '1.1.0' });
  });

  test('refuses a version that is not stored', async () => {
    await expect(admin.setLabel('acme', 'greet', 'production', '9.0.0')).rejects.toMatchObject({ name: 'VersionNotPublishedError', draft: false });
  });

  test('refuses a prompt that does not exist, in the account or at all', async () => {
    await expect(admin.setLabel('acme', 'never-was', 'production', '1.0.0')).rejects.toThrow(PromptMissingError);
    await expect(admin.setLabel('nobody', 'greet', 'production', '1.0.0')).rejects.toThrow(PromptMissingError);
  });

  test.each(['latest', 'Production', '1st', '', `p${'x'.repeat(32)}`, 'a#b'])('refuses the label name %j', async (label) => {
    await expect(admin.setLabel('acme', 'greet', label, '1.0.0')).rejects.toThrow(InvalidLabelError);
  });

  test('refuses a deleted prompt, and a restore brings its labels back', async () => {
    await admin.setLabel('acme', 'other', 'production', '1.0.0');
    await admin.deletePrompt('acme', 'other');
    await expect(admin.setLabel('acme', 'other', 'staging', '1.0.0')).rejects.toThrow(PromptDeletedError);
    expect(await atLabel('other', 'production')).toEqual({ found: false, reason: 'prompt-not-found' });
    expect(await api.listLabelledPrompts(readerOf('acme'), 'production')).not.toContainEqual(expect.objectContaining({ promptId: 'other' }));
    const labelItem = await item<PromptLabelItem>(keys.promptLabel('acme', 'production', 'other'));
    expect(labelItem?.deleted).toBe(true);

    await admin.restorePrompt('acme', 'other');
    expect(await atLabel('other', 'production')).toMatchObject({ found: true, prompt: { version: '1.0.0' } });
    expect((await api.listLabelledPrompts(readerOf('acme'), 'production')).map((p) => p.promptId)).toContain('other');
  });

  test('racing moves of one label all land, and the head and the label item agree on the last', async () => {
    await Promise.all(['1.0.0', '1.1.0', '1.0.0', '1.1.0'].map((target) => admin.setLabel('acme', 'greet', 'race', target)));
    const head = await item<PromptHeadItem>(keys.promptHead('acme', 'greet'));
    const labelItem = await item<PromptLabelItem>(keys.promptLabel('acme', 'race', 'greet'));
    expect(labelItem?.labelled.version).toBe(head?.labels?.race);
    expect(labelItem?.labelsRevision).toBe(head?.labelsRevision);
  });
});

describe('removeLabel', () => {
  test('removes it, says where it pointed, and a second time changes nothing', async () => {
    await admin.setLabel('acme', 'greet', 'canary', '1.0.0');
    expect(await admin.removeLabel('acme', 'greet', 'canary')).toEqual({
      accountId: 'acme',
      promptId: 'greet',
      label: 'canary',
      previousVersion: '1.0.0',
      changed: true,
    });
    expect(await atLabel('greet', 'canary')).toEqual({ found: false, reason: 'label-not-found' });
    expect(await item(keys.promptLabel('acme', 'canary', 'greet'))).toBeUndefined();
    expect(await admin.removeLabel('acme', 'greet', 'canary')).toEqual({ accountId: 'acme', promptId: 'greet', label: 'canary', changed: false });
  });

  test('refuses a prompt that does not exist, and a bad name', async () => {
    await expect(admin.removeLabel('acme', 'never-was', 'canary')).rejects.toThrow(PromptMissingError);
    await expect(admin.removeLabel('acme', 'greet', 'latest')).rejects.toThrow(InvalidLabelError);
  });
});

describe('labels in an import', () => {
  const labelled = (labels: Record<string, string>, extra: Partial<PromptImport> = {}): PromptImport => ({
    promptId: 'imported',
    promptName: 'Imported',
    versions: [version('1.0.0'), version('1.1.0'), version('1.2.0', { published: false })],
    labels,
    ...extra,
  });
  const importPrompt = (prompt: PromptImport) => admin.importAccounts([{ accountId: 'acme', keys: [], prompts: [prompt] }]);

  test('sets them with the versions they point at, and importing again changes nothing', async () => {
    const first = await importPrompt(labelled({ production: '1.0.0', staging: '1.1.0' }));
    expect(first.labels).toEqual({ created: 2, updated: 0, unchanged: 0 });
    expect(await atLabel('imported', 'staging')).toMatchObject({ prompt: { version: '1.1.0' } });
    const revision = await revisionOf('acme');

    const again = await importPrompt(labelled({ production: '1.0.0', staging: '1.1.0' }));
    expect(again).toMatchObject({ labels: { created: 0, updated: 0, unchanged: 2 }, versions: { created: 0, updated: 0 } });
    expect(await revisionOf('acme')).toBe(revision);
  });

  test('moves a label it names elsewhere, and leaves the ones it does not name', async () => {
    const moved = await importPrompt(labelled({ production: '1.1.0' }));
    expect(moved.labels).toEqual({ created: 0, updated: 1, unchanged: 0 });
    expect(await admin.listLabels('acme', 'imported')).toEqual({ production: '1.1.0', staging: '1.1.0' });
  });

  test('refuses a label on a draft or on a version not stored, and writes nothing', async () => {
    await expect(importPrompt(labelled({ production: '1.2.0' }))).rejects.toThrow(
      'label production of prompt imported of account acme: version 1.2.0 of prompt imported is a draft: only a published version can be labelled',
    );
    await expect(importPrompt(labelled({ canary: '7.0.0' }, { promptName: 'Renamed' }))).rejects.toThrow(/canary.*7\.0\.0.*not a stored version/);
    expect(await admin.listLabels('acme', 'imported')).toEqual({ production: '1.1.0', staging: '1.1.0' });
    expect((await admin.listPromptSummaries('acme')).find((p) => p.promptId === 'imported')?.promptName).toBe('Imported');
  });

  test('a label on a version published by the same import is fine', async () => {
    const summary = await importPrompt(labelled({ next: '1.3.0' }, { versions: [version('1.3.0')] }));
    expect(summary.labels.created).toBe(1);
    expect(await atLabel('imported', 'next')).toMatchObject({ prompt: { version: '1.3.0' } });
  });

  test('a rename reaches the copies the label items keep, so the list at a label shows the new name', async () => {
    await importPrompt(labelled({}, { promptName: 'Imported, renamed' }));
    const listed = await api.listLabelledPrompts(readerOf('acme'), 'staging');
    expect(listed.find((p) => p.promptId === 'imported')?.promptName).toBe('Imported, renamed');
  });

  test('a seed file names the file and the field of a label on a version the store has not published', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'label-seed-'));
    try {
      const file = join(folder, 'seed.json');
      const seed = { accounts: [{ accountId: 'acme', prompts: [{ promptId: 'imported', versions: [], labels: { production: '8.0.0' } }] }] };
      await writeFile(file, JSON.stringify(seed));
      await expect(importSeed(admin, file)).rejects.toThrow(
        `${file}: accounts[0].prompts[0].labels.production: version 8.0.0 of prompt imported is not a stored version: only a published version can be labelled`,
      );
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  test('the start-up seed (create-missing) never brings back a label an operator removed', async () => {
    await admin.removeLabel('acme', 'imported', 'staging');
    const input = [{ accountId: 'acme', keys: [], prompts: [labelled({ staging: '1.1.0' })] }];
    const summary = await admin.importAccounts(input, { mode: 'create-missing' });
    expect(summary.labels).toEqual({ created: 0, updated: 0, unchanged: 1 });
    expect((await admin.listLabels('acme', 'imported')).staging).toBeUndefined();
  });

  test('the start-up seed labels a prompt it creates', async () => {
    const input = [{ accountId: 'acme', keys: [], prompts: [labelled({ production: '1.0.0' }, { promptId: 'seeded' })] }];
    await admin.importAccounts(input, { mode: 'create-missing' });
    expect(await atLabel('seeded', 'production')).toMatchObject({ prompt: { version: '1.0.0' } });
  });
});

test('listPromptSummaries shows every label of every prompt, deleted ones included', async () => {
  const summaries = await admin.listPromptSummaries('acme');
  expect(summaries.find((p) => p.promptId === 'greet')?.labels).toMatchObject({ production: '1.1.0', staging: '1.0.0' });
  expect(summaries.find((p) => p.promptId === 'other')?.labels).toEqual({ production: '1.0.0' });
});
