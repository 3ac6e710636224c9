import { NotFoundError } from '../../../lambda/table/errors';
import { InvalidCursorError, InvalidLabelError, PromptDeletedError, RolloutActiveError, VersionNotPublishedError } from '../../../lambda/features/errors';
import { readLabelHistory } from '../../../lambda/features/labels/history';
import { planLabelMoves } from '../../../lambda/features/labels/label-move';
import { planRemoveLabel, planSetLabel } from '../../../lambda/features/labels/labels';
import type { LabelHistoryItem, StoredContent } from '../../../lambda/table/item-types';
import type { TransactionWrite } from '../../../lambda/table/transaction';
import { prompt, version } from '../../support/fixtures';
import { featureTable, OPERATOR, person } from '../../support/feature-table';

/**
 * Labels (docs/management-api.md "The management API", "Label history"; lambda/features/labels/): a label points at one published
 * version; each move or removal is one transaction with the label's history entry, and a refusal changes nothing.
 */
const features = featureTable();
const editor = person('edith');

/** A prompt with 1.0.0 and 1.1.0 published, 1.2.0 a draft, `production` at 1.0.0. */
const greet = () => prompt('greet', [version('1.0.0'), version('1.1.0'), version('1.2.0', { published: false })], { labels: { production: '1.0.0' } });

test('a label set for the first time points at the version, and its history says from nowhere to it, by whom, with the note', async () => {
  const accountId = await features.account(greet());
  const outcome = await features.operations(editor).labels.set(accountId, 'greet', 'staging', '1.1.0', { note: 'try it' });
  expect(outcome).toEqual({ moved: { accountId, promptId: 'greet', label: 'staging', version: '1.1.0', changed: true } });
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.0.0', staging: '1.1.0' });
  expect((await features.labelItem(accountId, 'greet', 'staging'))?.labelled.version).toBe('1.1.0');
  expect(await features.history(accountId, 'greet', 'staging')).toEqual([
    { at: expect.any(String), by: 'edith@example.com', from: null, to: '1.1.0', reason: 'try it' },
  ]);
});

test('a move points the label elsewhere, its item serves the new version, and its history and event say from where to where', async () => {
  const accountId = await features.account(greet());
  const revision = await features.promptsRevision(accountId);
  const outcome = await features.operations(editor).labels.set(accountId, 'greet', 'production', '1.1.0');
  expect(outcome).toEqual({ moved: expect.objectContaining({ previousVersion: '1.0.0', version: '1.1.0', changed: true }) });
  expect((await features.labelItem(accountId, 'greet', 'production'))?.labelled.version).toBe('1.1.0');
  const [moved] = await features.history(accountId, 'greet', 'production');
  expect(moved).toEqual({ at: expect.any(String), by: 'edith@example.com', from: '1.0.0', to: '1.1.0', reason: null });
  expect(await features.events(accountId)).toEqual([
    expect.objectContaining({ type: 'prompt.label.moved', data: { promptId: 'greet', label: 'production', from: '1.0.0', to: '1.1.0', reason: null } }),
  ]);
  // The read API sees the move from its next request: the account's prompt revision went up.
  expect(await features.promptsRevision(accountId)).toBe(revision + 1);
});

test('a move to where the label already points changes nothing: no history entry, no event, the revision as it was', async () => {
  const accountId = await features.account(greet());
  const before = await features.state(accountId);
  const outcome = await features.operations(editor).labels.set(accountId, 'greet', 'production', '1.0.0');
  expect(outcome).toEqual({ moved: expect.objectContaining({ version: '1.0.0', previousVersion: '1.0.0', changed: false }) });
  expect(await features.state(accountId)).toEqual(before);
  expect(await features.history(accountId, 'greet', 'production')).toEqual([expect.objectContaining({ reason: 'import' })]);
});

test('a removal takes the label off the prompt and its item, and its history says to nowhere', async () => {
  const accountId = await features.account(greet());
  const outcome = await features.operations(editor).labels.remove(accountId, 'greet', 'production');
  expect(outcome).toEqual({ moved: { accountId, promptId: 'greet', label: 'production', previousVersion: '1.0.0', changed: true } });
  expect(await features.labels(accountId, 'greet')).toEqual({});
  expect(await features.labelItem(accountId, 'greet', 'production')).toBeUndefined();
  const [removed] = await features.history(accountId, 'greet', 'production');
  expect(removed).toEqual(expect.objectContaining({ from: '1.0.0', to: null, by: 'edith@example.com' }));
  expect((await features.events(accountId)).map((event) => event.type)).toEqual(['prompt.label.removed']);
});

test('removing a label the prompt does not carry is refused as not found, and changes nothing', async () => {
  const accountId = await features.account(greet());
  const before = await features.state(accountId);
  await expect(features.operations(editor).labels.remove(accountId, 'greet', 'staging')).rejects.toThrow(NotFoundError);
  expect(await features.state(accountId)).toEqual(before);
  const [refusal] = await features.audit(accountId);
  expect(refusal).toEqual(expect.objectContaining({ action: 'label.remove', outcome: 'refused', reason: expect.objectContaining({ code: 'NOT_FOUND' }) }));
});

test('a restore is a move back to a past version, its history saying restore (with the note after it)', async () => {
  const accountId = await features.account(greet());
  const ops = features.operations(editor);
  await ops.labels.set(accountId, 'greet', 'production', '1.1.0');
  await ops.labels.set(accountId, 'greet', 'production', '1.0.0', { restore: true, note: '1.1.0 is slow' });
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.0.0' });
  const [restored] = await features.history(accountId, 'greet', 'production');
  expect(restored).toEqual(expect.objectContaining({ from: '1.1.0', to: '1.0.0', reason: 'restore: 1.1.0 is slow' }));
  const [entry] = await features.audit(accountId);
  expect(entry).toEqual(expect.objectContaining({ action: 'label.set', requested: { version: '1.0.0', note: '1.1.0 is slow', restore: true } }));
});

test('only a published version can be labelled: a draft is refused (409), one never stored is not found, and nothing changes', async () => {
  const accountId = await features.account(greet());
  const before = await features.state(accountId);
  const ops = features.operations(editor);
  await expect(ops.labels.set(accountId, 'greet', 'production', '1.2.0')).rejects.toEqual(expect.any(VersionNotPublishedError));
  await expect(ops.labels.set(accountId, 'greet', 'production', '9.9.9')).rejects.toThrow('has no version 9.9.9');
  expect(await features.state(accountId)).toEqual(before);
  expect(await features.lastEntries(accountId, 2)).toEqual([
    ['label.set', 'refused', 'CONFLICT'],
    ['label.set', 'refused', 'NOT_FOUND'],
  ]);
});

test('a deleted prompt takes no new label, and nothing changes', async () => {
  const accountId = await features.account(greet());
  await features.fixtures.admin.deletePrompt(accountId, 'greet');
  const before = await features.state(accountId);
  await expect(features.operations(editor).labels.set(accountId, 'greet', 'staging', '1.0.0')).rejects.toEqual(expect.any(PromptDeletedError));
  expect(await features.state(accountId)).toEqual(before);
});

test('latest is no label one may set, and a name outside the label rule is refused before anything is read', async () => {
  const accountId = await features.account(greet());
  const before = await features.state(accountId);
  const ops = features.operations(editor);
  await expect(ops.labels.set(accountId, 'greet', 'latest', '1.0.0')).rejects.toEqual(expect.any(InvalidLabelError));
  await expect(ops.labels.set(accountId, 'greet', 'Prod#1', '1.0.0')).rejects.toEqual(expect.any(InvalidLabelError));
  expect(await features.state(accountId)).toEqual(before);
  expect(await features.lastEntries(accountId, 2)).toEqual([
    ['label.set', 'refused', 'BAD_REQUEST'],
    ['label.set', 'refused', 'BAD_REQUEST'],
  ]);
});

test('a label that rolls out moves only through its rollout: a move and a removal are refused naming it, and nothing changes', async () => {
  const accountId = await features.account(greet());
  const started = await features.operations().rollouts.start(accountId, 'greet', 'production', { to: '1.1.0', percent: 10 });
  const rolloutId = 'rollout' in started ? started.rollout.rolloutId : 'none';
  const before = await features.state(accountId);
  const ops = features.operations(editor);
  await expect(ops.labels.set(accountId, 'greet', 'production', '1.1.0')).rejects.toEqual(expect.any(RolloutActiveError));
  await expect(ops.labels.remove(accountId, 'greet', 'production')).rejects.toThrow(`rolling out (${rolloutId})`);
  expect(await features.state(accountId)).toEqual(before);
});

test('a move made by a bulk path (an import) is in the label history as import, with no audit entry of its own', async () => {
  const accountId = await features.account(greet());
  await features.fixtures.admin.setLabel(accountId, 'greet', 'production', '1.1.0');
  const history = await features.history(accountId, 'greet', 'production');
  expect(history.map(({ from, to, by, reason }) => ({ from, to, by, reason }))).toEqual(
    expect.arrayContaining([
      { from: '1.0.0', to: '1.1.0', by: 'import', reason: 'import' },
      { from: null, to: '1.0.0', by: 'import', reason: 'import' },
    ]),
  );
  expect(history).toHaveLength(2);
  expect(await features.audit(accountId)).toEqual([]);
});

test("a set's plan holds the prompt's labels as read: written between its read and its commit, another move makes it plan again", async () => {
  const accountId = await features.account(greet());
  const table = features.racedTable();
  table.beforeNextTransaction(() => features.operations(OPERATOR).labels.set(accountId, 'greet', 'production', '1.1.0'));
  const outcome = await features.operations(editor, { table }).labels.set(accountId, 'greet', 'production', '1.1.0');
  // Planned again, it found the label at 1.1.0 already: nothing more moved, and the history has the one move.
  expect(outcome).toEqual({ moved: expect.objectContaining({ previousVersion: '1.1.0', changed: false }) });
  const history = await features.history(accountId, 'greet', 'production');
  expect(history.map(({ from, to, by }) => ({ from, to, by }))).toEqual(
    expect.arrayContaining([
      { from: '1.0.0', to: '1.1.0', by: 'cli:test' },
      { from: null, to: '1.0.0', by: 'import' },
    ]),
  );
  expect(history).toHaveLength(2);
});

test('the plans take plain arguments and say what they would write, without writing it', async () => {
  const accountId = await features.account(greet());
  const before = await features.state(accountId);
  const cause = { by: 'cli:test', reason: null };
  const set = await planSetLabel(features.table, accountId, 'greet', 'production', '1.1.0', cause);
  const removal = await planRemoveLabel(features.table, accountId, 'greet', 'staging', cause);
  expect(set.result).toEqual({ accountId, promptId: 'greet', label: 'production', version: '1.1.0', previousVersion: '1.0.0', changed: true });
  expect(set.visible).toBe(true);
  expect(removal).toEqual({ writes: [], result: { accountId, promptId: 'greet', label: 'staging', changed: false } });
  expect(await features.state(accountId)).toEqual(before);
});

test('the one label-move builder writes a history entry for each label that moves, and none for one rewritten where it points', () => {
  const content = { version: '1.1.0' } as StoredContent;
  const moves = planLabelMoves(
    features.table,
    'acct',
    { labels: { production: '1.0.0', staging: '1.1.0', old: '1.0.0' }, labelsRevision: 3 },
    { promptId: 'greet', promptName: 'Greet', deleted: false },
    [
      { label: 'production', to: '1.1.0', content, cause: { by: 'a@example.com', reason: 'push' } },
      { label: 'staging', to: '1.1.0', content, cause: { by: 'a@example.com', reason: 'push' } },
      { label: 'old', to: null, cause: { by: 'a@example.com', reason: 'push' } },
    ],
  );
  expect(Object.fromEntries(moves.labels)).toEqual({ production: '1.1.0', staging: '1.1.0' });
  expect(moves.revision).toBe(4);
  expect(Object.fromEntries(moves.was)).toEqual({ production: '1.0.0', staging: '1.1.0', old: '1.0.0' });
  expect(moves.adds).toBe(true);
  const isHistory = (write: TransactionWrite) => 'Put' in write && write.Put.Item?.type === 'labelHistory';
  const histories = moves.writes.flatMap((write) => ('Put' in write && isHistory(write) ? [write.Put.Item as LabelHistoryItem] : []));
  expect(histories.map(({ label, from, to, reason }) => ({ label, from, to, reason }))).toEqual([
    { label: 'production', from: '1.0.0', to: '1.1.0', reason: 'push' },
    { label: 'old', from: '1.0.0', to: null, reason: 'push' },
  ]);
  // Each label's item is written (or deleted) on the condition that it carries no rollout.
  const itemWrites = moves.writes.filter((write) => !isHistory(write));
  expect(itemWrites.map((write) => ('Put' in write ? 'put' : 'Delete' in write ? 'delete' : 'other'))).toEqual(['put', 'put', 'delete']);
  for (const write of itemWrites) {
    const action = 'Put' in write ? write.Put : 'Delete' in write ? write.Delete : undefined;
    expect(Object.values(action?.ExpressionAttributeNames ?? {})).toContain('rollout');
    expect(action?.ConditionExpression).toMatch(/^attribute_not_exists\(/);
  }
});

test("a label's history is read a page at a time below a cursor that history gave; another label's cursor is refused naming before, and a prompt the account lacks is not found", async () => {
  const accountId = await features.account(greet());
  const labels = features.operations(editor).labels;
  await labels.set(accountId, 'greet', 'production', '1.1.0');
  await labels.set(accountId, 'greet', 'staging', '1.1.0');
  const first = await readLabelHistory(features.table, accountId, 'greet', 'production', { limit: 1 });
  expect(first.entries).toEqual([expect.objectContaining({ from: '1.0.0', to: '1.1.0' })]);
  const next = first.next ?? '';
  expect(await readLabelHistory(features.table, accountId, 'greet', 'production', { before: next })).toEqual({
    entries: [expect.objectContaining({ from: null, to: '1.0.0', reason: 'import' })],
  });
  const staging = await readLabelHistory(features.table, accountId, 'greet', 'staging', { before: next }).catch((error: unknown) => error);
  expect(staging).toEqual(expect.any(InvalidCursorError));
  expect(staging).toEqual(expect.objectContaining({ field: 'before', message: 'before: must be a cursor from a previous page of this label history' }));
  await expect(readLabelHistory(features.table, accountId, 'nobody', 'production')).rejects.toEqual(expect.any(NotFoundError));
});
