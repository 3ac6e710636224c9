import { AccountImporter } from '../../admin/table/account-importer';
import { publishVersion, type PublishRequest } from '../../admin/publish-version';
import { Operations } from '../../lambda/operations';
import { Table } from '../../lambda/table/table';
import { listAudit } from '../../lambda/table/audit-log';
import { ConflictError, NotFoundError, StoreUnavailableError } from '../../lambda/table/errors';
import { listPromptSummaries } from '../../lambda/features/prompts/deletion';
import { DynamoStore } from '../../lambda/read-api/store/dynamo-store';
import { version } from '../support/fixtures';
import { type LocalStore, startLocalStore } from '../support/local-store';
import { readerOf } from '../support/readers';
import { ImmutableVersionError } from '../../lambda/features/errors';

/**
 * How the CLI publishes (admin/publish-version.ts: `prompts publish`, `prompts rollback`, `prompts push`): as the
 * management API's operations, a draft then its publish, each audited as the operator's, against dynalite.
 */

let local: LocalStore;
let table: Table;
let ops: Operations;
let api: DynamoStore;
const ACTOR = { type: 'cli', operator: 'publisher' } as const;

beforeAll(async () => {
  local = await startLocalStore('cli-publish-test');
  // A clock that moves a millisecond each time it is read: audit entries sort in the order they were written.
  let tick = 0;
  table = new Table(local.client, local.tableName, () => new Date(Date.UTC(2026, 10, 15, 12) + tick++));
  ops = new Operations({ table, actor: ACTOR });
  api = new DynamoStore(local.clients, local.tableName);
});

afterAll(async () => local.close());

const NOTE = 'a release note';
const content = (text: string) => ({ systemMessage: 's', userMessage: `u ${text}`, config: version('1.0.0').config });
const publish = (accountId: string, request: Omit<PublishRequest, 'note'>, using = ops) => publishVersion(using, table, accountId, { note: NOTE, ...request });
const account = (accountId: string, prompts: Parameters<AccountImporter['importAccounts']>[0][number]['prompts'] = []) =>
  new AccountImporter(local.client, local.tableName).importAccounts([{ accountId, name: accountId, plan: 'free', keys: [], prompts }]);
const entries = async (accountId: string) => (await listAudit(table, accountId)).entries.reverse();
const versionsOf = async (accountId: string, promptId: string) =>
  (await listPromptSummaries(table, accountId)).find((prompt) => prompt.promptId === promptId)?.versions;

describe('a stored draft', () => {
  beforeAll(() =>
    account('drafts', [
      { promptId: 'p', promptName: 'P', versions: [version('1.0.0'), version('1.1.0', { published: false }), version('1.2.0', { published: false })] },
    ]),
  );

  it('is published by the operation the API publishes with, becomes the latest, and once published is left as it is', async () => {
    expect(await publish('drafts', { promptId: 'p', version: '1.1.0' })).toBe('published');
    expect(await publish('drafts', { promptId: 'p', version: '1.1.0' })).toBe('already-published');
    expect(await api.findLatestPrompt(readerOf('drafts'), 'p')).toMatchObject({ found: true, prompt: { version: '1.1.0' } });
    expect(await entries('drafts')).toEqual([
      expect.objectContaining({
        action: 'version.publish',
        actor: ACTOR,
        target: { promptId: 'p', version: '1.1.0' },
        requested: { note: NOTE },
        outcome: 'succeeded',
        after: { published: true, note: NOTE },
      }),
    ]);
  });

  it('given other content, is saved over (draft.save) and then published', async () => {
    expect(await publish('drafts', { promptId: 'p', version: '1.2.0', content: content('new') })).toBe('published');
    expect(await api.findLatestPrompt(readerOf('drafts'), 'p')).toMatchObject({ prompt: { version: '1.2.0', userMessage: 'u new' } });
    expect((await entries('drafts')).slice(1).map(({ action, outcome }) => [action, outcome])).toEqual([
      ['draft.save', 'succeeded'],
      ['version.publish', 'succeeded'],
    ]);
  });

  it('is refused when it is not stored and no content is given, with nothing written or recorded', async () => {
    const before = (await entries('drafts')).length;
    await expect(publish('drafts', { promptId: 'p', version: '9.0.0' })).rejects.toThrow(NotFoundError);
    await expect(publish('drafts', { promptId: 'p', version: '9.0.0' })).rejects.toThrow('give its content to publish it');
    expect(await entries('drafts')).toHaveLength(before);
  });
});

describe('a version from its content', () => {
  beforeAll(() => account('fresh'));

  it('creates the prompt when it is new (a name is needed), writes the draft and publishes it, each step audited', async () => {
    await expect(publish('fresh', { promptId: 'q', version: '0.1.0', content: content('q') })).rejects.toThrow(ConflictError);
    expect(await publish('fresh', { promptId: 'q', promptName: 'Q', version: '0.1.0', content: content('q') })).toBe('published');
    expect(await api.findLatestPrompt(readerOf('fresh'), 'q')).toMatchObject({ prompt: { version: '0.1.0', promptName: 'Q' } });
    expect((await entries('fresh')).map(({ action, outcome, actor }) => [action, outcome, actor])).toEqual([
      ['prompt.create', 'succeeded', ACTOR],
      ['draft.create', 'succeeded', ACTOR],
      ['version.publish', 'succeeded', ACTOR],
    ]);
  });

  it('published again with the same content changes nothing; with other content it is refused', async () => {
    const before = (await entries('fresh')).length;
    expect(await publish('fresh', { promptId: 'q', version: '0.1.0', content: content('q') })).toBe('already-published');
    await expect(publish('fresh', { promptId: 'q', version: '0.1.0', content: content('changed') })).rejects.toThrow(ImmutableVersionError);
    await expect(publish('fresh', { promptId: 'q', version: '0.1.0', content: content('changed') })).rejects.toThrow(
      'version 0.1.0 of prompt q of account fresh is published and cannot change: publish a new version instead',
    );
    expect(await entries('fresh')).toHaveLength(before);
  });

  it('renames the prompt with a name, as prompt.update', async () => {
    await publish('fresh', { promptId: 'q', promptName: 'Q renamed', version: '0.2.0', content: content('q2') });
    expect(await api.findLatestPrompt(readerOf('fresh'), 'q')).toMatchObject({ prompt: { version: '0.2.0', promptName: 'Q renamed' } });
    expect((await entries('fresh')).at(-1)).toMatchObject({ action: 'prompt.update', requested: { promptName: 'Q renamed' }, outcome: 'succeeded' });
  });

  it('whose publish fails is taken back: no draft is left, and the failure is in the log', async () => {
    const failing = new Operations({ table, actor: ACTOR });
    jest.spyOn(failing.prompts, 'publish').mockImplementation(() => {
      throw new StoreUnavailableError('the store stopped answering');
    });
    await expect(publish('fresh', { promptId: 'q', version: '0.3.0', content: content('q3') }, failing)).rejects.toThrow(StoreUnavailableError);
    expect(await versionsOf('fresh', 'q')).toEqual([
      { version: '0.1.0', published: true },
      { version: '0.2.0', published: true },
    ]);
    expect((await entries('fresh')).slice(-2).map(({ action, outcome }) => [action, outcome])).toEqual([
      ['draft.create', 'succeeded'],
      ['draft.delete', 'succeeded'],
    ]);
  });
});

describe('publishing under concurrency', () => {
  beforeAll(() => account('race'));

  it('lands every one of many versions published at once, and latest ends as the highest', async () => {
    await publish('race', { promptId: 'r', promptName: 'R', version: '1.0.0', content: content('1.0.0') });
    const versions = Array.from({ length: 12 }, (_, i) => `1.${i + 1}.0`);
    await Promise.all(versions.map((v) => publish('race', { promptId: 'r', version: v, content: content(v) })));
    expect(await versionsOf('race', 'r')).toEqual(['1.0.0', ...versions].map((v) => ({ version: v, published: true })));
    expect(await api.findLatestPrompt(readerOf('race'), 'r')).toMatchObject({ found: true, prompt: { version: '1.12.0', userMessage: 'u 1.12.0' } });
  });

  it('lands two publishes of one new prompt at once: one creates it, the other reads again and publishes into it', async () => {
    const outcomes = await Promise.all(
      ['2.0.0', '2.1.0'].map((v) => publish('race', { promptId: 'both', promptName: 'Both', version: v, content: content(v) })),
    );
    expect(outcomes).toEqual(['published', 'published']);
    expect(await versionsOf('race', 'both')).toEqual([
      { version: '2.0.0', published: true },
      { version: '2.1.0', published: true },
    ]);
  });

  it('never moves latest down: a lower version published after a higher one stays a pinned version', async () => {
    await publish('race', { promptId: 'low', promptName: 'Low', version: '2.0.0', content: content('2.0.0') });
    await publish('race', { promptId: 'low', version: '1.9.0', content: content('1.9.0') });
    expect(await api.findLatestPrompt(readerOf('race'), 'low')).toMatchObject({ prompt: { version: '2.0.0' } });
    expect(await api.findPromptVersion(readerOf('race'), 'low', '1.9.0')).toMatchObject({ found: true });
  });
});

describe('a deleted prompt', () => {
  beforeAll(async () => {
    await account('gone', [{ promptId: 'greet', promptName: 'Greet', versions: [version('1.0.0')] }]);
    await ops.prompts.delete('gone', 'greet');
  });

  it('refuses a publish, naming the way back, before anything is written', async () => {
    const before = (await entries('gone')).length;
    const refused = publish('gone', { promptId: 'greet', version: '3.0.0', content: content('3') });
    await expect(refused).rejects.toThrow(ConflictError);
    await expect(refused).rejects.toThrow('prompt greet of account gone is deleted: restore it first (prompts restore --account gone --prompt greet)');
    expect(await versionsOf('gone', 'greet')).toEqual([{ version: '1.0.0', published: true }]);
    expect(await entries('gone')).toHaveLength(before);
  });
});
