import { BreakGlassNotAllowedError, planLabelMoveOrChangeRequest, readApprovalGate } from '../../../lambda/features/change-requests/approval-gate';
import { ExpressionNames } from '../../../lambda/table/update-expression';
import { prompt, version } from '../../support/fixtures';
import { featureTable, OPERATOR, person } from '../../support/feature-table';

/**
 * The approval gate (docs/management-api.md "Change requests", "Where it is decided", "The operator's break-glass";
 * lambda/features/change-requests/approval-gate.ts): inside every change that may move a label, whether the move is
 * asked for rather than made, decided on the account's settings as the change reads them and held by its transaction.
 */
const features = featureTable();
const admin = person('ada');

/** `production` at 1.0.0; 1.1.0 published. */
const greet = () => prompt('greet', [version('1.0.0'), version('1.1.0')], { labels: { production: '1.0.0' } });

/** An account whose `production` moves only through a change request. */
async function underApproval(required = 1): Promise<string> {
  const accountId = await features.account(greet());
  await features.approvals(accountId, ['production'], required);
  return accountId;
}

test('a move of a label under approval is asked for: a request opens, and the label stays where it points', async () => {
  const accountId = await underApproval();
  const outcome = await features.operations(admin).labels.set(accountId, 'greet', 'production', '1.1.0', { note: 'ship it' });
  expect(outcome).toEqual({
    changeRequest: expect.objectContaining({ promptId: 'greet', label: 'production', from: '1.0.0', to: '1.1.0', note: 'ship it', state: 'open' }),
  });
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.0.0' });
  expect((await features.labelItem(accountId, 'greet', 'production'))?.labelled.version).toBe('1.0.0');
  const [entry] = await features.audit(accountId);
  expect(entry).toEqual(expect.objectContaining({ action: 'request.open', outcome: 'succeeded' }));
  expect((await features.events(accountId)).map((event) => event.type)).toEqual(['request.opened']);
});

test('a removal of a label under approval is asked for too, as a request to no version', async () => {
  const accountId = await underApproval();
  const outcome = await features.operations(admin).labels.remove(accountId, 'greet', 'production');
  expect(outcome).toEqual({ changeRequest: expect.objectContaining({ from: '1.0.0', to: null, state: 'open' }) });
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.0.0' });
});

test('a label the account does not put under approval moves at once, in the same account', async () => {
  const accountId = await underApproval();
  const outcome = await features.operations(admin).labels.set(accountId, 'greet', 'staging', '1.1.0');
  expect(outcome).toEqual({ moved: expect.objectContaining({ label: 'staging', version: '1.1.0', changed: true }) });
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.0.0', staging: '1.1.0' });
});

test('a request needs the approvals the account asks for at the moment it is opened', async () => {
  const accountId = await underApproval(2);
  const outcome = await features.operations(admin).labels.set(accountId, 'greet', 'production', '1.1.0');
  expect(outcome).toEqual({ changeRequest: expect.objectContaining({ required: 2 }) });
});

test('a move to where a label under approval already points asks nothing and moves nothing', async () => {
  const accountId = await underApproval();
  const before = await features.state(accountId);
  const outcome = await features.operations(admin).labels.set(accountId, 'greet', 'production', '1.0.0');
  expect(outcome).toEqual({ moved: expect.objectContaining({ version: '1.0.0', changed: false }) });
  expect(await features.state(accountId)).toEqual(before);
});

test("break-glass is the operator's alone: a member asking for it is refused (403), and nothing changes", async () => {
  const accountId = await underApproval();
  const before = await features.state(accountId);
  await expect(features.operations(admin).labels.set(accountId, 'greet', 'production', '1.1.0', { breakGlass: true })).rejects.toEqual(
    expect.any(BreakGlassNotAllowedError),
  );
  await expect(features.operations(admin).labels.remove(accountId, 'greet', 'production', { breakGlass: true })).rejects.toEqual(
    expect.any(BreakGlassNotAllowedError),
  );
  expect(await features.state(accountId)).toEqual(before);
  expect(await features.lastEntries(accountId, 2)).toEqual([
    ['label.remove', 'refused', 'FORBIDDEN'],
    ['label.set', 'refused', 'FORBIDDEN'],
  ]);
});

test("the operator's break-glass moves a label under approval at once, its history and audit entry saying break-glass", async () => {
  const accountId = await underApproval();
  const outcome = await features.operations(OPERATOR).labels.set(accountId, 'greet', 'production', '1.1.0', { breakGlass: true, note: 'outage' });
  expect(outcome).toEqual({ moved: expect.objectContaining({ version: '1.1.0', changed: true }), breakGlass: true });
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.1.0' });
  const [moved] = await features.history(accountId, 'greet', 'production');
  expect(moved).toEqual(expect.objectContaining({ from: '1.0.0', to: '1.1.0', by: 'cli:test', reason: 'break-glass: outage' }));
  const [entry] = await features.audit(accountId);
  expect(entry).toEqual(
    expect.objectContaining({
      action: 'label.set',
      actor: OPERATOR,
      requested: { version: '1.1.0', note: 'outage', breakGlass: true },
      after: expect.objectContaining({ breakGlass: true, reason: 'break-glass: outage' }),
    }),
  );
});

test('break-glass on a label under no approval is an ordinary move: its history says nothing of it', async () => {
  const accountId = await underApproval();
  const outcome = await features.operations(OPERATOR).labels.set(accountId, 'greet', 'staging', '1.1.0', { breakGlass: true });
  expect(outcome).toEqual({ moved: expect.objectContaining({ changed: true }) });
  const [moved] = await features.history(accountId, 'greet', 'staging');
  expect(moved?.reason).toBeNull();
});

test("approvals turned on between a move's read and its write make it decided again, and it asks", async () => {
  const accountId = await features.account(greet());
  const table = features.racedTable();
  table.beforeNextTransaction(() => features.approvals(accountId, ['production']));
  const outcome = await features.operations(admin, { table }).labels.set(accountId, 'greet', 'production', '1.1.0');
  expect(outcome).toEqual({ changeRequest: expect.objectContaining({ from: '1.0.0', to: '1.1.0', state: 'open' }) });
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.0.0' });
  expect(await features.history(accountId, 'greet', 'production')).toHaveLength(1);
});

test("approvals turned off between a request's read and its write make it decided again, and the label moves", async () => {
  const accountId = await underApproval();
  const table = features.racedTable();
  table.beforeNextTransaction(() => features.approvals(accountId, []));
  const outcome = await features.operations(admin, { table }).labels.set(accountId, 'greet', 'production', '1.1.0');
  expect(outcome).toEqual({ moved: expect.objectContaining({ changed: true }) });
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.1.0' });
});

test('a no-op move of a label under approval holds where it found the label: moved meanwhile, the move is decided again, and asks', async () => {
  const accountId = await underApproval();
  const table = features.racedTable();
  // The operator moves the label away between the no-op's read and its write.
  table.beforeNextTransaction(() => features.operations(OPERATOR).labels.set(accountId, 'greet', 'production', '1.1.0', { breakGlass: true }));
  const outcome = await features.operations(admin, { table }).labels.set(accountId, 'greet', 'production', '1.0.0');
  expect(outcome).toEqual({ changeRequest: expect.objectContaining({ from: '1.1.0', to: '1.0.0', state: 'open' }) });
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.1.0' });
});

test('a rollout start on a label under approval is asked for: the request carries the rollout, and nothing rolls out', async () => {
  const accountId = await underApproval();
  const outcome = await features.operations(admin).rollouts.start(accountId, 'greet', 'production', { to: '1.1.0', percent: 10 });
  expect(outcome).toEqual({ changeRequest: expect.objectContaining({ from: '1.0.0', to: '1.1.0', rollout: { percent: 10, steps: [], guardAlarm: null } }) });
  expect((await features.labelItem(accountId, 'greet', 'production'))?.rollout).toBeUndefined();
  expect((await features.state(accountId)).filter((item) => String(item.sk).startsWith('ROLLOUT#'))).toEqual([]);
});

test('the gate says which labels ask and which break the glass, and the plan it decides carries the settings it read', async () => {
  const accountId = await underApproval(2);
  const gate = await readApprovalGate(features.table, accountId, { actor: OPERATOR, by: 'cli:test', breakGlass: true });
  expect([gate.asks('production'), gate.breaks('production'), gate.asks('staging'), gate.breaks('staging')]).toEqual([false, true, false, false]);
  expect(gate.required).toBe(2);
  const asking = await readApprovalGate(features.table, accountId, { actor: admin, by: admin.email });
  expect([asking.asks('production'), asking.breaks('production')]).toEqual([true, false]);
  const planned = await planLabelMoveOrChangeRequest(
    features.table,
    accountId,
    { promptId: 'greet', label: 'staging', to: '1.1.0' },
    { actor: admin, by: admin.email },
  );
  // The settings were changed once (approvals turned on): the plan holds them at that revision.
  const e = new ExpressionNames();
  expect(planned.accountHolds?.(e)).toBe('#n0 = :v0');
  expect(e.attributes).toEqual({ ExpressionAttributeNames: { '#n0': 'settingsRevision' }, ExpressionAttributeValues: { ':v0': 1 } });
});
