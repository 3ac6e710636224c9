import { hashApiKey } from '../../../lambda/domain/api-key';
import { UnapprovedRolloutError } from '../../../lambda/features/change-requests/approval-gate';
import { OpenChangeRequestExistsError } from '../../../lambda/features/change-requests/open-change-requests';
import { InvalidRolloutError, RolloutActiveError } from '../../../lambda/features/errors';
import { NoRolloutError, OtherRolloutError, type Rollout } from '../../../lambda/features/rollouts/rollouts';
import { ConflictError, NotFoundError } from '../../../lambda/table/errors';
import type { ApiKeyItem } from '../../../lambda/table/item-types';
import { keys, servedAttribute } from '../../../lambda/table/schema';
import { buildUpdate } from '../../../lambda/table/update-expression';
import { prompt, version } from '../../support/fixtures';
import { featureTable, OPERATOR, person } from '../../support/feature-table';

/**
 * Rollouts (docs/rollouts.md "Managing a rollout (management API)", "Served counts", "Steps and a guard alarm (deployed)"; lambda/features/rollouts/):
 * a label moved to `to` for a share of subjects, its share changed by hand or by its steps, then completed (the label
 * moves) or aborted (it stays). Each is one transaction with its history entry; each refusal changes nothing.
 */
const features = featureTable();
const admin = person('ada');

/** `production` at 1.0.0 and `staging` nowhere; 1.1.0 published, 1.2.0 a draft. */
const greet = () => prompt('greet', [version('1.0.0'), version('1.1.0'), version('1.2.0', { published: false })], { labels: { production: '1.0.0' } });

async function start(accountId: string, input: { to?: string; percent?: number; steps?: { percent: number; afterMinutes: number }[] } = {}): Promise<Rollout> {
  const outcome = await features.operations(admin).rollouts.start(accountId, 'greet', 'production', { to: '1.1.0', percent: 10, ...input });
  if (!('rollout' in outcome)) throw new Error('the rollout was asked for rather than started');
  return outcome.rollout;
}

const rolloutItems = async (accountId: string) => (await features.state(accountId)).filter((item) => String(item.sk).startsWith('ROLLOUT#'));

test('a start names the rollout ro_<instant>_<hex>, carries its share and a copy of `to` on the label item, and leaves the label on `from`', async () => {
  const accountId = await features.account(greet());
  const rollout = await start(accountId, { percent: 10 });
  expect(rollout).toEqual({
    rolloutId: expect.stringMatching(/^ro_\d{17}_[0-9a-f]{8}$/),
    promptId: 'greet',
    label: 'production',
    from: '1.0.0',
    to: '1.1.0',
    percent: 10,
    startedAt: expect.any(String),
    startedBy: 'ada@example.com',
    note: null,
    served: { from: 0, to: 0 },
    steps: [],
    guardAlarm: null,
    state: 'active',
  });
  expect(rollout.rolloutId.slice(3, 20)).toBe(rollout.startedAt.replace(/\D/g, ''));
  const item = await features.labelItem(accountId, 'greet', 'production');
  expect(item?.labelled.version).toBe('1.0.0');
  expect(item?.rollout).toEqual({ rolloutId: rollout.rolloutId, percent: 10, to: expect.objectContaining({ version: '1.1.0' }) });
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.0.0' });
  const [started] = await features.history(accountId, 'greet', 'production');
  expect(started).toEqual(
    expect.objectContaining({
      from: '1.0.0',
      to: '1.0.0',
      reason: `rollout ${rollout.rolloutId}`,
      rollout: { rolloutId: rollout.rolloutId, event: 'started', percent: 10, to: '1.1.0' },
    }),
  );
  expect((await features.events(accountId)).map((event) => event.type)).toEqual(['rollout.started']);
});

test('a start is refused, changing nothing, for a version the label points at, a draft, a label pointing nowhere, a bad share, or a label already rolling out', async () => {
  const accountId = await features.account(greet());
  const first = await start(accountId);
  const before = await features.state(accountId);
  const ops = features.operations(admin);
  const attempt = (label: string, to: string, percent: number) => ops.rollouts.start(accountId, 'greet', label, { to, percent });
  await expect(attempt('production', '1.1.0', 20)).rejects.toThrow(first.rolloutId);
  await expect(attempt('production', '1.1.0', 20)).rejects.toEqual(expect.any(RolloutActiveError));
  await expect(attempt('staging', '1.1.0', 20)).rejects.toEqual(expect.any(NotFoundError));
  await expect(attempt('production', '1.2.0', 20)).rejects.toThrow('is a draft');
  await expect(attempt('production', '1.1.0', 100.001)).rejects.toEqual(expect.any(InvalidRolloutError));
  expect(await features.state(accountId)).toEqual(before);

  const other = await features.account(greet());
  const untouched = await features.state(other);
  await expect(ops.rollouts.start(other, 'greet', 'production', { to: '1.0.0', percent: 20 })).rejects.toThrow('points at 1.0.0 already');
  expect(await features.state(other)).toEqual(untouched);
});

test('a label with an open change request takes no rollout', async () => {
  const accountId = await features.account(greet());
  await features.approvals(accountId, ['production']);
  await features.operations(admin).labels.set(accountId, 'greet', 'production', '1.1.0');
  await features.approvals(accountId, []);
  const before = await features.state(accountId);
  await expect(start(accountId)).rejects.toEqual(expect.any(OpenChangeRequestExistsError));
  expect(await features.state(accountId)).toEqual(before);
});

test("a change of share is written to the rollout and the label item's copy, keeps the steps above the new share, and has its history entry", async () => {
  const accountId = await features.account(greet());
  const rollout = await start(accountId, {
    percent: 5,
    steps: [
      { percent: 20, afterMinutes: 60 },
      { percent: 50, afterMinutes: 120 },
    ],
  });
  const changed = await features.operations(admin).rollouts.change(accountId, 'greet', 'production', { percent: 30 });
  expect(changed).toEqual(expect.objectContaining({ rolloutId: rollout.rolloutId, percent: 30, steps: [{ percent: 50, afterMinutes: 120 }] }));
  expect((await features.labelItem(accountId, 'greet', 'production'))?.rollout?.percent).toBe(30);
  const [entry] = await features.history(accountId, 'greet', 'production');
  expect(entry).toEqual(expect.objectContaining({ from: '1.0.0', to: '1.0.0', rollout: expect.objectContaining({ event: 'changed', percent: 30 }) }));
  const [audit] = await features.audit(accountId);
  expect(audit).toEqual(expect.objectContaining({ action: 'rollout.change', after: expect.objectContaining({ percent: 30, was: 5 }) }));
});

test('the latest due step applies its share and leaves the steps not yet due; with nothing due, nothing is written', async () => {
  const accountId = await features.account(greet());
  const rollout = await start(accountId, {
    percent: 5,
    steps: [
      { percent: 10, afterMinutes: 5 },
      { percent: 25, afterMinutes: 10 },
      { percent: 50, afterMinutes: 60 },
    ],
  });
  const steps = features.operations({ type: 'system', name: 'rollout-steps' }).rollouts;
  const target = { promptId: 'greet', label: 'production', rolloutId: rollout.rolloutId };
  const startedAt = Date.parse(rollout.startedAt);
  const before = await features.state(accountId);
  expect(await steps.applyDueStep(accountId, target, new Date(startedAt + 4 * 60_000))).toEqual({ applied: false, why: expect.stringContaining('no step') });
  expect(await features.state(accountId)).toEqual(before);
  const applied = await steps.applyDueStep(accountId, target, new Date(startedAt + 11 * 60_000));
  expect(applied).toEqual({ applied: true, rollout: expect.objectContaining({ percent: 25, steps: [{ percent: 50, afterMinutes: 60 }] }) });
  const [audit] = await features.audit(accountId);
  expect(audit).toEqual(expect.objectContaining({ action: 'rollout.change', actor: { type: 'system', name: 'rollout-steps' } }));
});

test('a completion moves the label to `to`, its item serving `to` without the rollout, and ends the rollout', async () => {
  const accountId = await features.account(greet());
  const rollout = await start(accountId);
  const completed = await features.operations(admin).rollouts.complete(accountId, 'greet', 'production', { rolloutId: rollout.rolloutId });
  expect(completed).toEqual(expect.objectContaining({ state: 'completed', endedBy: 'ada@example.com', endedAt: expect.any(String) }));
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.1.0' });
  const item = await features.labelItem(accountId, 'greet', 'production');
  expect(item?.labelled.version).toBe('1.1.0');
  expect(item?.rollout).toBeUndefined();
  expect(await rolloutItems(accountId)).toEqual([]);
  const [entry] = await features.history(accountId, 'greet', 'production');
  expect(entry).toEqual(
    expect.objectContaining({ from: '1.0.0', to: '1.1.0', rollout: expect.objectContaining({ event: 'completed', served: { from: 0, to: 0 } }) }),
  );
  expect((await features.events(accountId)).map((event) => event.type)).toEqual(['rollout.started', 'rollout.completed', 'prompt.label.moved']);
  await expect(features.operations(admin).rollouts.read(accountId, 'greet', 'production')).rejects.toEqual(expect.any(NoRolloutError));
});

test('an abort leaves the label on `from`, takes the rollout off its item, and keeps the reason', async () => {
  const accountId = await features.account(greet());
  const rollout = await start(accountId);
  const aborted = await features.operations({ type: 'system', name: 'guard-alarm' }).rollouts.abort(accountId, 'greet', 'production', {
    reason: 'alarm checkout-errors',
    rolloutId: rollout.rolloutId,
  });
  expect(aborted).toEqual(expect.objectContaining({ state: 'aborted', endedBy: 'system:guard-alarm' }));
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.0.0' });
  const item = await features.labelItem(accountId, 'greet', 'production');
  expect([item?.labelled.version, item?.rollout]).toEqual(['1.0.0', undefined]);
  expect(await rolloutItems(accountId)).toEqual([]);
  const [entry] = await features.history(accountId, 'greet', 'production');
  expect(entry).toEqual(expect.objectContaining({ from: '1.0.0', to: '1.0.0', rollout: expect.objectContaining({ event: 'aborted' }) }));
  const [audit] = await features.audit(accountId);
  expect(audit).toEqual(expect.objectContaining({ action: 'rollout.abort', after: expect.objectContaining({ reason: 'alarm checkout-errors' }) }));
});

test('a change, completion or abort meant for another rollout than the label has now is refused naming both, and changes nothing', async () => {
  const accountId = await features.account(greet());
  const ended = await start(accountId);
  await features.operations(admin).rollouts.abort(accountId, 'greet', 'production');
  const current = await start(accountId, { percent: 40 });
  const before = await features.state(accountId);
  const rollouts = features.operations(admin).rollouts;
  const meant = { rolloutId: ended.rolloutId };
  await expect(rollouts.change(accountId, 'greet', 'production', { percent: 50, ...meant })).rejects.toEqual(expect.any(OtherRolloutError));
  await expect(rollouts.complete(accountId, 'greet', 'production', meant)).rejects.toThrow(`has rollout ${current.rolloutId}, not ${ended.rolloutId}`);
  await expect(rollouts.abort(accountId, 'greet', 'production', meant)).rejects.toEqual(expect.any(ConflictError));
  expect(await features.state(accountId)).toEqual(before);
  // Without a rolloutId, a change acts on whichever rollout the label has.
  expect(await rollouts.change(accountId, 'greet', 'production', { percent: 50 })).toEqual(expect.objectContaining({ rolloutId: current.rolloutId }));
});

test('changing, completing or aborting a label with no rollout is not found, and changes nothing', async () => {
  const accountId = await features.account(greet());
  const before = await features.state(accountId);
  const rollouts = features.operations(admin).rollouts;
  await expect(rollouts.change(accountId, 'greet', 'production', { percent: 50 })).rejects.toEqual(expect.any(NoRolloutError));
  await expect(rollouts.complete(accountId, 'greet', 'production')).rejects.toEqual(expect.any(NoRolloutError));
  await expect(rollouts.abort(accountId, 'greet', 'production')).rejects.toEqual(expect.any(NoRolloutError));
  expect(await features.state(accountId)).toEqual(before);
});

test('on a label put under approval since it started, a rollout no change request started is refused completion; it may be aborted', async () => {
  const accountId = await features.account(greet());
  await start(accountId);
  await features.approvals(accountId, ['production']);
  const before = await features.state(accountId);
  await expect(features.operations(OPERATOR).rollouts.complete(accountId, 'greet', 'production')).rejects.toEqual(expect.any(UnapprovedRolloutError));
  expect(await features.state(accountId)).toEqual(before);
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.0.0' });
  expect((await features.operations(admin).rollouts.abort(accountId, 'greet', 'production')).state).toBe('aborted');
});

test('on a label under approval, a rollout a change request started completes without a second approval', async () => {
  const accountId = await features.account(greet());
  const approver = person('approver');
  await features.member(accountId, approver, 'admin');
  await features.approvals(accountId, ['production']);
  const asked = await features.operations(admin).rollouts.start(accountId, 'greet', 'production', { to: '1.1.0', percent: 10 });
  if (!('changeRequest' in asked)) throw new Error('the rollout started without its request');
  await features.operations(approver).changeRequests.approve(accountId, asked.changeRequest);
  expect((await features.operations(admin).rollouts.complete(accountId, 'greet', 'production')).state).toBe('completed');
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.1.0' });
});

test("an end freezes what each side served, summed over the account's keys, in the history and the audit entry, and clears the keys' counters", async () => {
  const accountId = await features.account(greet());
  const [first, second] = [await features.fixtures.apiKey(accountId), await features.fixtures.apiKey(accountId)].map(hashApiKey);
  const rollout = await start(accountId);
  const count = async (keyHash: string | undefined, from: number, to: number) =>
    features.table.update('count', {
      Key: keys.apiKey(String(keyHash)),
      ...buildUpdate({ add: { [servedAttribute(rollout.rolloutId, 'from')]: from, [servedAttribute(rollout.rolloutId, 'to')]: to } }),
    });
  await count(first, 7, 2);
  await count(second, 1, 3);
  expect((await features.operations(admin).rollouts.read(accountId, 'greet', 'production')).served).toEqual({ from: 8, to: 5 });

  const completed = await features.operations(admin).rollouts.complete(accountId, 'greet', 'production');
  expect(completed.served).toEqual({ from: 8, to: 5 });
  const [entry] = await features.history(accountId, 'greet', 'production');
  expect(entry?.rollout?.served).toEqual({ from: 8, to: 5 });
  const audit = (await features.audit(accountId)).find((candidate) => candidate.action === 'rollout.complete');
  expect(audit?.after).toEqual(expect.objectContaining({ served: { from: 8, to: 5 } }));
  // The counters leave the keys' items, which carry the revision the end gave the account: no count lands after it.
  const revision = await features.promptsRevision(accountId);
  for (const keyHash of [first, second]) {
    const item = await features.get<Record<string, unknown> & ApiKeyItem>(keys.apiKey(String(keyHash)));
    expect(Object.keys(item ?? {}).filter((name) => name.includes(rollout.rolloutId))).toEqual([]);
    expect(Number(item?.promptsRevision)).toBe(revision);
  }
});
