import { listAudit } from '../../lambda/table/audit-log';
import { prompt, version } from '../support/fixtures';
import { ManagementHarness } from '../support/management-harness';

/**
 * docs/cli.md "Rollouts": `prompts rollout start|show|set|complete|abort` run a label's rollout through the
 * operations the management API's routes make, audited as the operator's (`cli`), with the API's refusals as
 * exit statuses (2 bad input, 1 refused); while a label rolls out, `prompts label` and `unlabel` refuse it.
 */
const api = new ManagementHarness();
const OPERATOR = 'release-bot';
const ACCOUNT = 'cli-rollouts';

interface Rollout {
  rolloutId: string;
  from: string;
  to: string;
  percent: number;
  startedBy: string;
  served: { from: number; to: number };
  steps: { percent: number; afterMinutes: number }[];
  guardAlarm: string | null;
  note: string | null;
  state: string;
}

const cli = (...argv: string[]) => api.cli(OPERATOR, ...argv);
const on = (promptId: string, label = 'production') => ['--account', ACCOUNT, '--prompt', promptId, '--label', label];
async function json<T>(...argv: string[]): Promise<T> {
  const result = await cli(...argv, '--json');
  if (result.code !== 0) throw new Error(`admin ${argv.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

beforeAll(async () => {
  await api.start();
  await api.fixtures.account(ACCOUNT, 'pro');
  await api.fixtures.account('cli-gated', 'pro');
  const versions = [version('1.0.0'), version('1.1.0'), version('1.2.0')];
  await api.fixtures.prompts(
    ACCOUNT,
    ...['welcome', 'aborted', 'refused', 'held', 'replaced'].map((id) => prompt(id, versions, { labels: { production: '1.0.0' } })),
  );
  await api.fixtures.prompts('cli-gated', prompt('welcome', versions, { labels: { production: '1.0.0' } }));
  await api.operations().accounts.updateSettings('cli-gated', { approvals: { labels: ['production'] } });
});
afterAll(() => api.stop());

test('start, show, set and complete: the label moves to --to at the end; each step audited as the operator', async () => {
  const started = await json<{ rollout: Rollout }>(
    'prompts',
    'rollout',
    'start',
    ...on('welcome'),
    '--to',
    '1.1.0',
    '--percent',
    '10',
    '--steps',
    '25@60,50@120',
    '--guard-alarm',
    'errors-high',
    '--note',
    'warmer',
  );
  expect(started.rollout).toMatchObject({
    from: '1.0.0',
    to: '1.1.0',
    percent: 10,
    startedBy: `cli:${OPERATOR}`,
    steps: [
      { percent: 25, afterMinutes: 60 },
      { percent: 50, afterMinutes: 120 },
    ],
    guardAlarm: 'errors-high',
    note: 'warmer',
    state: 'active',
  });

  const shown = await cli('prompts', 'rollout', 'show', ...on('welcome'));
  expect(shown.code).toBe(0);
  expect(shown.stdout).toContain(`Rollout ${started.rollout.rolloutId} of label production of prompt welcome:`);
  expect(shown.stdout).toContain('10% of subjects get 1.1.0, the rest 1.0.0');
  expect(shown.stdout).toContain('steps ahead: 25% after 60 min, 50% after 120 min');

  const set = await json<{ rollout: Rollout }>('prompts', 'rollout', 'set', ...on('welcome'), '--percent', '30');
  expect(set.rollout).toMatchObject({ percent: 30, steps: [{ percent: 50, afterMinutes: 120 }] });

  const completed = await cli('prompts', 'rollout', 'complete', ...on('welcome'));
  expect(completed.code).toBe(0);
  expect(completed.stdout).toContain('Label production now points at 1.1.0');
  const history = await json<{ entries: { from: string; to: string; by: string; reason: string }[] }>('prompts', 'label-history', ...on('welcome'));
  expect(history.entries[0]).toMatchObject({ from: '1.0.0', to: '1.1.0', by: `cli:${OPERATOR}`, reason: `rollout ${started.rollout.rolloutId}` });
  const { entries } = await listAudit(api.table, ACCOUNT);
  expect(
    entries
      .filter((entry) => entry.target.promptId === 'welcome')
      .reverse()
      .map(({ action, outcome, actor }) => ({ action, outcome, actor })),
  ).toEqual(
    // The completion moved the label: its move is recorded in the same transaction, as every move is.
    ['rollout.start', 'rollout.change', 'rollout.complete', 'label.set'].map((action) => ({
      action,
      outcome: 'succeeded',
      actor: { type: 'cli', operator: OPERATOR },
    })),
  );
});

test('abort keeps the label on from, with the reason audited', async () => {
  await json('prompts', 'rollout', 'start', ...on('aborted'), '--to', '1.2.0', '--percent', '5');
  const aborted = await cli('prompts', 'rollout', 'abort', ...on('aborted'), '--reason', 'error rate up');
  expect(aborted.code).toBe(0);
  expect(aborted.stdout).toContain('Label production stays on 1.0.0');
  const { entries } = await listAudit(api.table, ACCOUNT);
  expect(entries.find((entry) => entry.action === 'rollout.abort' && entry.target.promptId === 'aborted')?.after).toMatchObject({ reason: 'error rate up' });
  expect((await cli('prompts', 'rollout', 'show', ...on('aborted'))).code).toBe(1);
});

test('set, complete and abort with --rollout change only that rollout: one that ended, with another on the label since, exits 1 naming both and changes nothing', async () => {
  const first = (await json<{ rollout: Rollout }>('prompts', 'rollout', 'start', ...on('replaced'), '--to', '1.1.0', '--percent', '10')).rollout;
  expect((await cli('prompts', 'rollout', 'abort', ...on('replaced'), '--rollout', first.rolloutId)).code).toBe(0);
  const second = (await json<{ rollout: Rollout }>('prompts', 'rollout', 'start', ...on('replaced'), '--to', '1.2.0', '--percent', '20')).rollout;
  for (const argv of [
    ['set', '--percent', '90', '--rollout', first.rolloutId],
    ['complete', '--rollout', first.rolloutId],
    ['abort', '--reason', 'from a script that started the first', '--rollout', first.rolloutId],
  ]) {
    const [action, ...rest] = argv;
    const refused = await cli('prompts', 'rollout', action as string, ...on('replaced'), ...rest);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`has rollout ${second.rolloutId}, not ${first.rolloutId}`);
  }
  expect((await json<{ rollout: Rollout }>('prompts', 'rollout', 'show', ...on('replaced'))).rollout).toEqual(second);
  const listed = await json<{ promptId: string; labels: Record<string, string> }[]>('prompts', 'list', '--account', ACCOUNT);
  expect(listed.find((entry) => entry.promptId === 'replaced')?.labels).toEqual({ production: '1.0.0' });
  const set = await json<{ rollout: Rollout }>('prompts', 'rollout', 'set', ...on('replaced'), '--percent', '40', '--rollout', second.rolloutId);
  expect(set.rollout).toMatchObject({ rolloutId: second.rolloutId, percent: 40 });
});

test.each([
  [['set', '--percent', '10', '--rollout', 'the-first-one'], '--rollout must be a rollout id'],
  [['start', '--to', '1.1.0', '--percent', '10', '--rollout', 'ro_20261124100211120_1a2b3c4d'], 'prompts rollout start takes no --rollout'],
  [['start', '--to', '1.1.0', '--percent', '101'], '--percent must be a number from 0 to 100 with at most two decimals'],
  [['start', '--to', 'v2', '--percent', '10'], '--to must be MAJOR.MINOR.PATCH'],
  [['start', '--to', '1.1.0', '--percent', '10', '--steps', '25at60'], '--steps must be <percent>@<minutes>'],
  [['start', '--to', '1.1.0', '--percent', '10', '--steps', '5@60'], 'steps.0.percent: must be above 10'],
  [['set', '--percent', '10', '--to', '1.1.0'], 'prompts rollout set takes no --to'],
  [['begin'], 'the action must be one of start, show, set, complete, abort'],
])('bad input exits 2 and changes nothing: %j', async (argv, message) => {
  const [action, ...rest] = argv;
  const result = await cli('prompts', 'rollout', action as string, ...on('refused'), ...rest);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(message);
  expect((await cli('prompts', 'rollout', 'show', ...on('refused'))).code).toBe(1);
});

test('refusals of the store exit 1: a version that does not exist, a second rollout', async () => {
  const missing = await cli('prompts', 'rollout', 'start', ...on('refused'), '--to', '9.9.9', '--percent', '10');
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain('has no version 9.9.9');
  await json('prompts', 'rollout', 'start', ...on('held'), '--to', '1.1.0', '--percent', '10');
  const second = await cli('prompts', 'rollout', 'start', ...on('held'), '--to', '1.2.0', '--percent', '10');
  expect(second.code).toBe(1);
  expect(second.stderr).toContain('is rolling out');
});

test('while the label rolls out, prompts label and unlabel refuse it (exit 1, naming the rollout), and it stays', async () => {
  const moved = await cli('prompts', 'label', ...on('held'), '--version', '1.2.0');
  expect(moved.code).toBe(1);
  expect(moved.stderr).toContain('complete or abort the rollout first');
  const removed = await cli('prompts', 'unlabel', ...on('held'));
  expect(removed.code).toBe(1);
  const listed = await json<{ promptId: string; labels: Record<string, string> }[]>('prompts', 'list', '--account', ACCOUNT);
  expect(listed.find((entry) => entry.promptId === 'held')?.labels).toEqual({ production: '1.0.0' });
});

test('a label under approval: start asks for it in a change request that carries the rollout', async () => {
  const asked = await json<{ request: { requestId: string; state: string; rollout: { percent: number } } }>(
    'prompts',
    'rollout',
    'start',
    '--account',
    'cli-gated',
    '--prompt',
    'welcome',
    '--label',
    'production',
    '--to',
    '1.1.0',
    '--percent',
    '20',
  );
  expect(asked.request).toMatchObject({ state: 'open', rollout: { percent: 20 } });
  expect((await cli('prompts', 'rollout', 'show', '--account', 'cli-gated', '--prompt', 'welcome', '--label', 'production')).code).toBe(1);
});
