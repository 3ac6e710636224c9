import type { PromptHeadItem, PromptVersionItem } from '../../lambda/table/item-types';
import { type AccountImport, type ApiKeyImport, planImport, promptRef, type PromptVersionInput, type StoredState } from '../../admin/table/import-plan';
import type { AdminApiKey } from '../../lambda/table/item-builders';

/** What an import may change of what is stored, decided before any write. */

const NOW = '2026-11-22T00:00:00.000Z';

const config = { model: 'm', temperature: 0.5, schema: [], inputData: null, inputDataRootName: null };
const version = (number: string, published = true, userMessage = `message ${number}`): PromptVersionInput => ({
  version: number,
  published,
  systemMessage: 's',
  userMessage,
  config,
});
const storedVersion = (number: string, published = true, userMessage?: string): PromptVersionItem => ({
  promptId: 'p',
  ...version(number, published, userMessage),
});

const key: ApiKeyImport = { keyHash: 'hash', keyId: 'key_hash', displayPrefix: 'prs_abcd' };
const storedKey = (overrides: Partial<AdminApiKey> = {}): AdminApiKey => ({
  keyId: 'key_hash',
  accountId: 'acme',
  plan: 'free',
  displayPrefix: 'prs_abcd',
  status: 'active',
  createdAt: '2026-01-01T00:00:00.000Z',
  ...overrides,
});

function stored(parts: { account?: boolean; keys?: AdminApiKey[]; head?: Partial<PromptHeadItem>; versions?: PromptVersionItem[] } = {}): StoredState {
  const ref = promptRef('acme', 'p');
  return {
    accounts: new Map(parts.account === false ? [] : [['acme', { accountId: 'acme', name: 'Acme', plan: 'free', createdAt: NOW }]]),
    keys: new Map((parts.keys ?? []).map((k) => ['hash', k])),
    heads: new Map(parts.head ? [[ref, { promptId: 'p', promptName: 'P', deleted: false, ...parts.head }]] : []),
    versions: new Map([[ref, new Map((parts.versions ?? []).map((v) => [v.version, v]))]]),
    labels: new Map(),
  };
}

const importOf = (overrides: Partial<AccountImport> = {}): AccountImport[] => [{ accountId: 'acme', keys: [], prompts: [], ...overrides }];
const promptImport = (...versions: PromptVersionInput[]) => importOf({ prompts: [{ promptId: 'p', promptName: 'P', versions }] });

test('an identical import writes nothing', () => {
  const latest = { version: '1.0.0', systemMessage: 's', userMessage: 'message 1.0.0', config };
  const plan = planImport(
    promptImport(version('1.0.0'), version('1.1.0', false)),
    stored({ head: { latest }, versions: [storedVersion('1.0.0'), storedVersion('1.1.0', false)] }),
    NOW,
  );
  expect(plan.conflicts).toEqual([]);
  expect(Object.values(plan.writes).flat()).toEqual([]);
  expect(plan.summary.versions).toEqual({ created: 0, updated: 0, unchanged: 2 });
});

test('a published version with other content is refused', () => {
  const plan = planImport(promptImport(version('1.0.0', true, 'changed')), stored({ versions: [storedVersion('1.0.0')] }), NOW);
  expect(plan.conflicts).toEqual([
    { kind: 'immutable', message: 'version 1.0.0 of prompt p of account acme is published and cannot change: publish a new version instead' },
  ]);
});

test('a published version cannot go back to draft', () => {
  const plan = planImport(promptImport(version('1.0.0', false)), stored({ versions: [storedVersion('1.0.0')] }), NOW);
  expect(plan.conflicts.map((conflict) => conflict.kind)).toEqual(['immutable']);
});

test('a draft may change, and may be published', () => {
  const plan = planImport(promptImport(version('1.0.0', true, 'final')), stored({ versions: [storedVersion('1.0.0', false, 'draft')] }), NOW);
  expect(plan.conflicts).toEqual([]);
  expect(plan.writes.versions).toEqual([expect.objectContaining({ version: '1.0.0', published: true, userMessage: 'final' })]);
});

test('the head carries the highest published version by semantic-version order, drafts aside', () => {
  const plan = planImport(promptImport(version('1.9.0'), version('1.10.0'), version('2.0.0', false)), stored(), NOW);
  expect(plan.writes.heads).toEqual([expect.objectContaining({ promptId: 'p', latest: expect.objectContaining({ version: '1.10.0' }) })]);
});

test('what the import leaves out keeps its stored value', () => {
  const plan = planImport(
    importOf({ keys: [key], prompts: [{ promptId: 'p', versions: [] }] }),
    stored({ keys: [storedKey({ monthlyLimit: 5 })], head: { promptName: 'Kept', deleted: true } }),
    NOW,
  );
  expect(plan.conflicts).toEqual([]);
  expect(plan.summary).toMatchObject({ accounts: { unchanged: 1 }, keys: { unchanged: 1 }, prompts: { unchanged: 1 } });
});

test('a new account needs a name and a plan', () => {
  const plan = planImport(importOf(), stored({ account: false }), NOW);
  expect(plan.conflicts).toEqual([{ kind: 'missing', message: 'account acme does not exist, and a name and a plan are needed to create it' }]);
});

test('a new prompt needs a name', () => {
  const plan = planImport(importOf({ prompts: [{ promptId: 'p', versions: [version('1.0.0')] }] }), stored(), NOW);
  expect(plan.conflicts.map((conflict) => conflict.message)).toEqual(['prompt p of account acme does not exist, and a name is needed to create it']);
});

test('a revoked key stays revoked', () => {
  const plan = planImport(importOf({ keys: [{ ...key, revoked: false }] }), stored({ keys: [storedKey({ status: 'revoked' })] }), NOW);
  expect(plan.conflicts.map((conflict) => conflict.message)).toEqual(['API key key_hash of account acme is revoked, and revocation is final']);
});

test('a key of another account is refused', () => {
  const plan = planImport(importOf({ keys: [key] }), stored({ keys: [storedKey({ accountId: 'other' })] }), NOW);
  expect(plan.conflicts.map((conflict) => conflict.message)).toEqual(['API key key_hash belongs to account other, not acme']);
});

test("revoking through an import keeps the key's creation time", () => {
  const plan = planImport(importOf({ keys: [{ ...key, revoked: true }] }), stored({ keys: [storedKey()] }), NOW);
  expect(plan.writes.keys).toEqual([expect.objectContaining({ status: 'revoked', revokedAt: NOW, createdAt: '2026-01-01T00:00:00.000Z' })]);
});

test('the same account, prompt or version twice in one import is refused', () => {
  const twice = [...promptImport(version('1.0.0'), version('1.0.0')), ...importOf()];
  expect(planImport(twice, stored(), NOW).conflicts.map((conflict) => conflict.message)).toEqual([
    'version 1.0.0 of prompt p appears more than once in the import',
    'account acme appears more than once in the import',
  ]);
});
