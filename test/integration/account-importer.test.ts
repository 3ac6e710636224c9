import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { AccountImporter } from '../../admin/table/account-importer';
import { publishVersion } from '../../admin/publish-version';
import { Operations } from '../../lambda/operations';
import { findAccount, listAccounts } from '../../lambda/features/accounts/accounts';
import { Table } from '../../lambda/table/table';
import { listAudit } from '../../lambda/table/audit-log';
import { ensureTable, TableSchemaError } from '../../admin/table/ensure-table';
import { ConflictError, NotFoundError } from '../../lambda/table/errors';
import type { AccountImport, ImportSummary, PromptImport } from '../../admin/table/import-plan';
import { keyUsage, listApiKeys } from '../../lambda/features/keys/keys';
import { listPromptSummaries } from '../../lambda/features/prompts/deletion';
import { DynamoStore } from '../../lambda/read-api/store/dynamo-store';
import { hashApiKey } from '../../lambda/domain/api-key';
import { version } from '../support/fixtures';
import { type LocalStore, startLocalStore } from '../support/local-store';
import { noDeadline, readerOf } from '../support/readers';

/**
 * The operators' bulk import (AccountImporter), and the operations the CLI changes everything else through (accounts,
 * keys, deletes), against a real DynamoDB-compatible store (dynalite).
 */

let local: LocalStore;
let admin: AccountImporter;
let table: Table;
let ops: Operations;
let api: DynamoStore;
const ACTOR = { type: 'cli', operator: 'account-importer-test' } as const;

beforeAll(async () => {
  local = await startLocalStore('account-importer-test');
  const now = () => new Date('2026-11-15T12:00:00Z');
  admin = new AccountImporter(local.client, local.tableName, now);
  table = new Table(local.client, local.tableName, now);
  ops = new Operations({ table, actor: ACTOR });
  api = new DynamoStore(local.clients, local.tableName);
});

afterAll(async () => local.close());

const prompts = (count: number, prefix: string): PromptImport[] =>
  Array.from({ length: count }, (_, i) => ({
    promptId: `${prefix}-${String(i).padStart(3, '0')}`,
    promptName: `Prompt ${i}`,
    versions: [version('1.0.0'), version('1.1.0'), version('2.0.0', { published: false })],
  }));

const unchangedOnly = (summary: ImportSummary) => Object.values(summary).every((count) => count.created === 0 && count.updated === 0);

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
    expect(await findAccount(table, 'dry')).toBeUndefined();
  });

  it('refuses the whole import when one version of one prompt would change, in either read path', async () => {
    for (const [accountId, count] of [
      ['few', 2],
      ['many', 15],
    ] as const) {
      const original = prompts(count, accountId);
      await admin.importAccounts([{ accountId, name: accountId, plan: 'free', keys: [], prompts: original }]);
      const changed = original.map((prompt, i) => (i === count - 1 ? { ...prompt, versions: [version('1.0.0', { userMessage: 'changed' })] } : prompt));
      const added = { promptId: `${accountId}-new`, promptName: 'New', versions: [version('1.0.0')] };

      await expect(admin.importAccounts([{ accountId, keys: [], prompts: [added, ...changed] }])).rejects.toThrow(
        `version 1.0.0 of prompt ${accountId}-${String(count - 1).padStart(3, '0')} of account ${accountId} is published and cannot change`,
      );
      expect(await listPromptSummaries(table, accountId)).toHaveLength(count);
    }
  });

  it("with the CLI's actor, is one entry in each account it names, settled with what the whole import changed", async () => {
    const audited = new AccountImporter(local.client, local.tableName, () => new Date(), ACTOR);
    const input = (accountId: string) => ({ accountId, name: accountId, plan: 'free' as const, keys: [], prompts: prompts(1, accountId) });
    await audited.importAccounts([input('audited-a'), input('audited-b')], { dryRun: true });
    expect((await listAudit(table, 'audited-a')).entries).toEqual([]);

    await audited.importAccounts([input('audited-a'), input('audited-b')]);
    const changed = { promptId: 'audited-a-000', versions: [version('1.0.0', { userMessage: 'changed' })] };
    await expect(audited.importAccounts([{ accountId: 'audited-a', keys: [], prompts: [changed] }])).rejects.toThrow(ConflictError);

    for (const accountId of ['audited-a', 'audited-b']) {
      const { entries } = await listAudit(table, accountId);
      expect(entries.filter((entry) => String(entry.outcome) === 'pending')).toEqual([]);
      expect(entries.filter((entry) => entry.outcome === 'succeeded')).toEqual([
        expect.objectContaining({
          action: 'import',
          actor: ACTOR,
          target: { accountId },
          after: expect.objectContaining({ accounts: { created: 2, updated: 0, unchanged: 0 } }),
        }),
      ]);
    }
    expect((await listAudit(table, 'audited-a')).entries[0]).toMatchObject({ action: 'import', outcome: 'failed', reason: { code: 'CONFLICT' } });
  });
});

describe('accounts (Operations, as the CLI calls them)', () => {
  it('are created once, listed, and change plan, each change audited as the operator', async () => {
    await ops.accounts.create({ accountId: 'acme', name: 'Acme', plan: 'free' });
    await expect(ops.accounts.create({ accountId: 'acme', name: 'Other', plan: 'pro' })).rejects.toThrow(ConflictError);

    await ops.accounts.setPlan('acme', 'pro');

    expect(await listAccounts(table)).toContainEqual({ accountId: 'acme', name: 'Acme', plan: 'pro', createdAt: '2026-11-15T12:00:00.000Z' });
    await expect(ops.accounts.setPlan('nobody', 'pro')).rejects.toThrow(NotFoundError);
    expect((await listAudit(table, 'nobody')).entries).toEqual([]);
    const { entries } = await listAudit(table, 'acme');
    expect(entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          action: 'account.create',
          actor: ACTOR,
          target: { accountId: 'acme' },
          requested: { name: 'Acme', plan: 'free' },
          outcome: 'succeeded',
        }),
        expect.objectContaining({
          action: 'account.create',
          requested: { name: 'Other', plan: 'pro' },
          outcome: 'refused',
          reason: expect.objectContaining({ code: 'CONFLICT' }),
        }),
        expect.objectContaining({ action: 'account.set-plan', actor: ACTOR, before: { plan: 'free' }, after: { plan: 'pro' }, outcome: 'succeeded' }),
      ]),
    );
    expect(entries).toHaveLength(3);
  });
});

describe('API keys (Operations, as the CLI calls them)', () => {
  let apiKey: string;
  let keyId: string;

  beforeAll(async () => {
    await ops.accounts.create({ accountId: 'keyed', name: 'Keyed', plan: 'free' });
    ({
      apiKey,
      key: { keyId },
    } = await ops.keys.create('keyed', { name: 'Keyed key', monthlyLimit: 10 }));
  });

  it('need an existing account', async () => {
    await expect(ops.keys.create('nobody', { name: 'x' })).rejects.toThrow(NotFoundError);
  });

  it('are listed by id through the admin index, without the key or its hash', async () => {
    const keys = await listApiKeys(table, 'keyed');
    expect(keys).toEqual([
      {
        keyId,
        accountId: 'keyed',
        plan: 'free',
        name: 'Keyed key',
        displayPrefix: apiKey.slice(0, 8),
        status: 'active',
        monthlyLimit: 10,
        createdAt: '2026-11-15T12:00:00.000Z',
        createdBy: 'cli:account-importer-test',
      },
    ]);
    expect(JSON.stringify(keys)).not.toContain(hashApiKey(apiKey));
  });

  it('report their usage for a month', async () => {
    await api.admit({ keyHash: hashApiKey(apiKey), month: '2026-11', day: '15', at: new Date('2026-11-15T12:00:00Z') }, noDeadline);
    expect(await keyUsage(table, 'keyed', keyId, '2026-11')).toMatchObject({ used: 1, plan: 'free', month: '2026-11' });
    expect(await keyUsage(table, 'keyed', keyId, '2026-10')).toMatchObject({ used: 0 });
  });

  it('are revoked by id, once', async () => {
    expect((await ops.keys.revoke('keyed', keyId)).alreadyRevoked).toBe(false);
    expect((await ops.keys.revoke('keyed', keyId)).alreadyRevoked).toBe(true);
    expect(await api.admit({ keyHash: hashApiKey(apiKey), month: '2026-11', day: '15', at: new Date('2026-11-15T12:00:00Z') }, noDeadline)).toEqual({
      admitted: false,
      reason: 'invalid-key',
    });
    await expect(ops.keys.revoke('other', keyId)).rejects.toThrow(NotFoundError);
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
    expect((await ops.prompts.delete('pub', 'q')).alreadyDeleted).toBe(false);

    expect(await listPromptSummaries(table, 'pub')).toEqual([
      {
        promptId: 'p',
        promptName: 'P',
        deleted: false,
        latestVersion: '1.0.0',
        versions: [
          { version: '1.0.0', published: true },
          { version: '1.1.0', published: false },
        ],
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
    await ops.prompts.delete('gone', 'greet');
  });

  it('refuse an import that publishes to them, unless it restores them', async () => {
    const publishing = { promptId: 'greet', versions: [version('3.0.0')] };
    await expect(admin.importAccounts([{ accountId: 'gone', keys: [], prompts: [publishing] }])).rejects.toThrow(/is deleted: restore it first/);
    expect(await api.findLatestPrompt(readerOf('gone'), 'greet')).toEqual({ found: false, reason: 'prompt-not-found' });
  });

  it('come back with restore, with every version they had published', async () => {
    expect(await ops.prompts.restore('gone', 'greet')).toEqual({ alreadyVisible: false });
    expect(await ops.prompts.restore('gone', 'greet')).toEqual({ alreadyVisible: true });
    expect(await api.findLatestPrompt(readerOf('gone'), 'greet')).toMatchObject({ prompt: { version: '1.0.0' } });
    await expect(ops.prompts.restore('gone', 'never-was')).rejects.toThrow(NotFoundError);
  });

  it('change the prompt revision that every key of the account carries', async () => {
    const keyHash = hashApiKey((await ops.keys.create('gone', { name: 'gone' })).apiKey);
    const before = await api.admit({ keyHash: keyHash, month: '2026-11', day: '15', at: new Date('2026-11-15T12:00:00Z') }, noDeadline);
    await ops.prompts.delete('gone', 'greet');
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
    await publishVersion(ops, table, 'seeded', { promptId: 'w', version: '1.2.0', note: 'published by an operator' });
    await ops.keys.revoke('seeded', 'key_seeded');
    await ops.prompts.delete('seeded', 'x');

    const again = await admin.importAccounts([seedAccount()], { mode: 'create-missing' });

    expect(unchangedOnly(again)).toBe(true);
    expect(await api.findLatestPrompt(readerOf('seeded'), 'w')).toMatchObject({ prompt: { version: '1.2.0' } });
    expect(await api.findLatestPrompt(readerOf('seeded'), 'x')).toEqual({ found: false, reason: 'prompt-not-found' });
    expect(await api.admit({ keyHash: 'd'.repeat(64), month: '2026-11', day: '15', at: new Date('2026-11-15T12:00:00Z') }, noDeadline)).toEqual({
      admitted: false,
      reason: 'invalid-key',
    });
  });

  it('creates what is missing, a new version of an existing prompt included', async () => {
    const grown = seedAccount();
    grown.prompts[0]?.versions.push(version('2.0.0'));
    const summary = await admin.importAccounts([grown], { mode: 'create-missing' });
    expect(summary.versions.created).toBe(1);
    expect(await api.findLatestPrompt(readerOf('seeded'), 'w')).toMatchObject({ prompt: { version: '2.0.0' } });
  });
});
