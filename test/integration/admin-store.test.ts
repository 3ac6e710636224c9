import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { AdminStore } from '../../admin/table/admin-store';
import { publishVersion } from '../../admin/publish-version';
import { AccountOperations } from '../../lambda/operations/account-operations';
import { AdminTable } from '../../lambda/table/admin-table';
import { ensureTable, TableSchemaError } from '../../admin/table/ensure-table';
import { ConflictError, NotFoundError } from '../../lambda/table/errors';
import type { AccountImport, ImportSummary, PromptImport } from '../../admin/table/import-plan';
import { DynamoStore } from '../../lambda/table/read-path/dynamo-store';
import { hashApiKey, keyIdFromHash } from '../../lambda/domain/api-key';
import { version } from '../support/fixtures';
import { type LocalStore, startLocalStore } from '../support/local-store';
import { noDeadline, readerOf } from '../support/readers';

/** The operator's write path against a real DynamoDB-compatible store (dynalite). */

let local: LocalStore;
let admin: AdminStore;
let api: DynamoStore;

beforeAll(async () => {
  local = await startLocalStore('admin-store-test');
  admin = new AdminStore(local.client, local.tableName, () => new Date('2026-11-15T12:00:00Z'));
  api = new DynamoStore(local.clients, local.tableName);
});

afterAll(async () => local.close());

const prompts = (count: number, prefix: string): PromptImport[] =>
  Array.from({ length: count }, (_, i) => ({
    promptId: `${prefix}-${String(i).padStart(3, '0')}`,
    promptName: `Prompt ${i}`,
    versions: [version('1.0.0'), version('1.1.0'), version('2.0.0', { published: false })],
  }));

const unchangedOnly = (summary: ImportSummary) =>
  Object.values(summary).every((count) => count.created === 0 && count.updated === 0);

describe('importAccounts', () => {
  it('writes everything in batches, and a second identical import writes nothing', async () => {
    const input = [{ accountId: 'bulk', name: 'Bulk', plan: 'pro' as const, keys: [], prompts: prompts(40, 'bulk') }];

    const first = await admin.importAccounts(input);
    const second = await admin.importAccounts(input);

    expect(first.versions).toEqual({ created: 120, updated: 0, unchanged: 0 });
    expect(unchangedOnly(second)).toBe(true);
    expect(await api.listPrompts(readerOf('bulk'))).toHaveLength(40);
  });

  it('on a dry run, reports the changes and writes nothing', async () => {
    const input = [{ accountId: 'dry', name: 'Dry', plan: 'free' as const, keys: [], prompts: prompts(2, 'dry') }];

    const summary = await admin.importAccounts(input, { dryRun: true });

    expect(summary.prompts.created).toBe(2);
    expect(await admin.findAccount('dry')).toBeUndefined();
  });

  it('refuses the whole import when one version of one prompt would change, in either read path', async () => {
    for (const [accountId, count] of [['few', 2], ['many', 15]] as const) {
      const original = prompts(count, accountId);
      await admin.importAccounts([{ accountId, name: accountId, plan: 'free', keys: [], prompts: original }]);
      const changed = original.map((prompt, i) =>
        i === count - 1 ? { ...prompt, versions: [version('1.0.0', { userMessage: 'changed' })] } : prompt,
      );
      const added = { promptId: `${accountId}-new`, promptName: 'New', versions: [version('1.0.0')] };

      await expect(
        admin.importAccounts([{ accountId, keys: [], prompts: [added, ...changed] }]),
      ).rejects.toThrow(`version 1.0.0 of prompt ${accountId}-${String(count - 1).padStart(3, '0')} of account ${accountId} is published and cannot change`);
      expect(await admin.listPromptSummaries(accountId)).toHaveLength(count);
    }
  });
});

describe('accounts', () => {
  it('are created once, listed, and change plan', async () => {
    await admin.createAccount({ accountId: 'acme', name: 'Acme', plan: 'free' });
    await expect(admin.createAccount({ accountId: 'acme', name: 'Other', plan: 'pro' })).rejects.toThrow(ConflictError);

    await admin.setAccountPlan('acme', 'pro');

    expect(await admin.listAccounts()).toContainEqual({ accountId: 'acme', name: 'Acme', plan: 'pro', createdAt: '2026-11-15T12:00:00.000Z' });
    await expect(admin.setAccountPlan('nobody', 'pro')).rejects.toThrow(NotFoundError);
  });
});

describe('API keys', () => {
  const apiKey = 'prs_admin_store_test_key_0001';
  const keyHash = hashApiKey(apiKey);
  const keyId = keyIdFromHash(keyHash);

  beforeAll(async () => {
    await admin.createAccount({ accountId: 'keyed', name: 'Keyed', plan: 'free' });
    await admin.createApiKey({ keyHash, keyId, accountId: 'keyed', displayPrefix: 'prs_admi', monthlyLimit: 10 });
  });

  it('need an existing account', async () => {
    await expect(
      admin.createApiKey({ keyHash: hashApiKey('prs_x_0123456789abcdef'), keyId: 'key_x', accountId: 'nobody', displayPrefix: 'prs_x' }),
    ).rejects.toThrow(NotFoundError);
  });

  it('are listed by id through the admin index, without the key or its hash', async () => {
    const keys = await admin.listApiKeys('keyed');
    expect(keys).toEqual([
      {
        keyId,
        accountId: 'keyed',
        plan: 'free',
        displayPrefix: 'prs_admi',
        status: 'active',
        monthlyLimit: 10,
        createdAt: '2026-11-15T12:00:00.000Z',
      },
    ]);
    expect(JSON.stringify(keys)).not.toContain(keyHash);
  });

  it('report their usage for a month', async () => {
    await api.admit({ keyHash: keyHash, month: '2026-11', day: '15', at: new Date('2026-11-15T12:00:00Z') }, noDeadline);
    expect(await admin.keyUsage('keyed', keyId, '2026-11')).toMatchObject({ used: 1, plan: 'free', month: '2026-11' });
    expect(await admin.keyUsage('keyed', keyId, '2026-10')).toMatchObject({ used: 0 });
  });

  it('are revoked by id, once', async () => {
    expect((await admin.revokeApiKeyById('keyed', keyId)).alreadyRevoked).toBe(false);
    expect((await admin.revokeApiKeyById('keyed', keyId)).alreadyRevoked).toBe(true);
    expect(await api.admit({ keyHash: keyHash, month: '2026-11', day: '15', at: new Date('2026-11-15T12:00:00Z') }, noDeadline)).toEqual({ admitted: false, reason: 'invalid-key' });
    await expect(admin.revokeApiKeyById('other', keyId)).rejects.toThrow(NotFoundError);
  });
});

describe('publishing and deleting', () => {
  beforeAll(async () => {
    await admin.importAccounts([
      {
        accountId: 'pub',
        name: 'Pub',
        plan: 'free',
        keys: [],
        prompts: [{ promptId: 'p', promptName: 'P', versions: [version('1.0.0'), version('1.1.0', { published: false })] }],
      },
    ]);
  });

  it('lists drafts and deleted prompts to the operator', async () => {
    await admin.importAccounts([{ accountId: 'pub', keys: [], prompts: [{ promptId: 'q', promptName: 'Q', versions: [version('0.1.0')] }] }]);
    expect((await admin.deletePrompt('pub', 'q')).alreadyDeleted).toBe(false);

    expect(await admin.listPromptSummaries('pub')).toEqual([
      {
        promptId: 'p',
        promptName: 'P',
        deleted: false,
        latestVersion: '1.0.0',
        versions: [{ version: '1.0.0', published: true }, { version: '1.1.0', published: false }],
        labels: {},
      },
      { promptId: 'q', promptName: 'Q', deleted: true, latestVersion: '0.1.0', versions: [{ version: '0.1.0', published: true }], labels: {} },
    ]);
    expect(await api.findLatestPrompt(readerOf('pub'), 'q')).toEqual({ found: false, reason: 'prompt-not-found' });
  });
});

describe('ensureTable', () => {
  it('leaves the service table as it is', async () => {
    expect(await ensureTable(local.client, local.tableName)).toBe('existing');
  });

  it('creates a missing table', async () => {
    expect(await ensureTable(local.client, 'created-by-ensure')).toBe('created');
  });

  it('refuses a table with other keys', async () => {
    await local.client.send(
      new CreateTableCommand({
        TableName: 'someone-elses',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      }),
    );
    await expect(ensureTable(local.client, 'someone-elses')).rejects.toThrow(TableSchemaError);
  });
});

describe('deleted prompts', () => {
  beforeAll(async () => {
    await admin.importAccounts([
      { accountId: 'gone', name: 'Gone', plan: 'free', keys: [], prompts: [{ promptId: 'greet', promptName: 'Greet', versions: [version('1.0.0')] }] },
    ]);
    await admin.deletePrompt('gone', 'greet');
  });

  it('refuse an import that publishes to them, unless it restores them', async () => {
    const publishing = { promptId: 'greet', versions: [version('3.0.0')] };
    await expect(admin.importAccounts([{ accountId: 'gone', keys: [], prompts: [publishing] }])).rejects.toThrow(
      /is deleted: restore it first/,
    );
    expect(await api.findLatestPrompt(readerOf('gone'), 'greet')).toEqual({ found: false, reason: 'prompt-not-found' });
  });

  it('come back with restore, with every version they had published', async () => {
    expect(await admin.restorePrompt('gone', 'greet')).toEqual({ alreadyVisible: false });
    expect(await admin.restorePrompt('gone', 'greet')).toEqual({ alreadyVisible: true });
    expect(await api.findLatestPrompt(readerOf('gone'), 'greet')).toMatchObject({ prompt: { version: '1.0.0' } });
    await expect(admin.restorePrompt('gone', 'never-was')).rejects.toThrow(NotFoundError);
  });

  it('change the prompt revision that every key of the account carries', async () => {
    const keyHash = 'c'.repeat(64);
    await admin.createApiKey({ keyHash, keyId: 'key_gone', accountId: 'gone', displayPrefix: 'prs_gone' });
    const before = await api.admit({ keyHash: keyHash, month: '2026-11', day: '15', at: new Date('2026-11-15T12:00:00Z') }, noDeadline);
    await admin.deletePrompt('gone', 'greet');
    const after = await api.admit({ keyHash: keyHash, month: '2026-11', day: '15', at: new Date('2026-11-15T12:00:00Z') }, noDeadline);
    expect(before.admitted && after.admitted).toBe(true);
    if (before.admitted && after.admitted) expect(after.key.promptsRevision).toBeGreaterThan(before.key.promptsRevision);
  });
});

describe('the start-up seed (create-missing)', () => {
  const seedAccount = (): AccountImport => ({
    accountId: 'seeded',
    name: 'Seeded',
    plan: 'free',
    keys: [{ keyHash: 'd'.repeat(64), keyId: 'key_seeded', displayPrefix: 'prs_seed' }],
    prompts: [
      { promptId: 'w', promptName: 'W', versions: [version('1.0.0'), version('1.2.0', { published: false })] },
      { promptId: 'x', promptName: 'X', versions: [version('1.0.0')] },
    ],
  });

  it('leaves what an operator did since: a published draft, a revoked key, a deleted prompt', async () => {
    await admin.importAccounts([seedAccount()], { mode: 'create-missing' });
    const table = new AdminTable(local.client, local.tableName, () => new Date());
    await publishVersion(new AccountOperations({ table, actor: { type: 'cli', operator: 'test' } }), table, 'seeded', {
      promptId: 'w',
      version: '1.2.0',
      note: 'published by an operator',
    });
    await admin.revokeApiKeyById('seeded', 'key_seeded');
    await admin.deletePrompt('seeded', 'x');

    const again = await admin.importAccounts([seedAccount()], { mode: 'create-missing' });

    expect(unchangedOnly(again)).toBe(true);
    expect(await api.findLatestPrompt(readerOf('seeded'), 'w')).toMatchObject({ prompt: { version: '1.2.0' } });
    expect(await api.findLatestPrompt(readerOf('seeded'), 'x')).toEqual({ found: false, reason: 'prompt-not-found' });
    expect(await api.admit({ keyHash: 'd'.repeat(64), month: '2026-11', day: '15', at: new Date('2026-11-15T12:00:00Z') }, noDeadline)).toEqual({ admitted: false, reason: 'invalid-key' });
  });

  it('creates what is missing, a new version of an existing prompt included', async () => {
    const grown = seedAccount();
    grown.prompts[0]?.versions.push(version('2.0.0'));
    const summary = await admin.importAccounts([grown], { mode: 'create-missing' });
    expect(summary.versions.created).toBe(1);
    expect(await api.findLatestPrompt(readerOf('seeded'), 'w')).toMatchObject({ prompt: { version: '2.0.0' } });
  });
});
