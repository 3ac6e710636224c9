import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Operations } from '../../lambda/operations';
import { createGuardAlarmHandler } from '../../lambda/rollout-automation/guard-alarm-handler';
import { createRolloutStepsHandler } from '../../lambda/rollout-automation/rollout-steps-handler';
import type { AutomationDependencies } from '../../lambda/rollout-automation/automation';
import { listAudit } from '../../lambda/table/audit-log';
import { findRollout, type Rollout } from '../../lambda/features/rollouts/rollouts';
import { keys } from '../../lambda/table/schema';
import type { PromptLabelItem } from '../../lambda/table/item-types';
import { Table } from '../../lambda/table/table';
import { createTelemetry } from '../../lambda/telemetry';
import { lambdaContext } from '../support/events';
import { FixtureStore } from '../support/fixture-store';
import { version } from '../support/fixtures';
import { type FaultProxy, startFaultProxy } from '../support/fault-proxy';
import { type LocalStore, startLocalStore } from '../support/local-store';
import { createStoreClients, type StoreClients } from '../../lambda/table/client';

/**
 * The rollout automation's two handlers (docs/rollouts.md "Steps and a guard alarm (deployed)"), invoked with exactly the files of
 * sample-events/ that `sam local invoke -e` would pass, against a real store; each effect is read back from the store.
 */

const EVENTS_DIR = path.join(__dirname, '../../sample-events');
const eventFile = (name: string): unknown => JSON.parse(readFileSync(path.join(EVENTS_DIR, name), 'utf8'));
const GUARD_EVENT = eventFile('guard-alarm.json') as { detail: { alarmName: string }; resources: string[] };
const ALARM = GUARD_EVENT.detail.alarmName;

const STARTED = new Date('2026-11-27T06:00:00.000Z');
const minutesAfterStart = (minutes: number): Date => new Date(STARTED.getTime() + minutes * 60_000);

let local: LocalStore;
let now: Date;
let table: Table;
let deps: AutomationDependencies;
let person: Operations;
let fixtures: FixtureStore;

beforeAll(async () => {
  local = await startLocalStore('rollout-automation-test');
  table = new Table(local.clients.reads, local.tableName, () => now, { writeClient: local.clients.writes });
  deps = { table, logger: createTelemetry({ serviceName: 'rollout-automation-test', logLevel: 'INFO' }).logger };
  person = new Operations({ table, actor: { type: 'cli', operator: 'release-manager' } });
  const promptsOf = (...ids: string[]) =>
    ids.map((promptId) => ({ promptId, promptName: promptId, versions: [version('1.0.0'), version('2.0.0')], labels: { production: '1.0.0' } }));
  fixtures = new FixtureStore(local.client, local.tableName);
  await fixtures.importAccounts([
    {
      accountId: 'acme',
      name: 'Acme',
      plan: 'free',
      keys: [],
      prompts: promptsOf('due', 'not-yet', 'guarded', 'by-arn', 'other-alarm', 'unguarded', 'calm', 'steady', 'flaky', 'replaced', 'restarted'),
    },
    { accountId: 'globex', name: 'Globex', plan: 'free', keys: [], prompts: promptsOf('guarded-too') },
  ]);
});

afterAll(async () => local.close());

async function startRollout(accountId: string, promptId: string, options: { steps?: { percent: number; afterMinutes: number }[]; guardAlarm?: string }) {
  now = STARTED;
  const started = await person.rollouts.start(accountId, promptId, 'production', { to: '2.0.0', percent: 10, ...options });
  if (!('rollout' in started)) throw new Error('the rollout went to a change request');
  return started.rollout;
}

const rolloutOf = (accountId: string, promptId: string) => findRollout(table, accountId, promptId, 'production');
const auditCount = async (accountId: string) => (await listAudit(table, accountId)).entries.length;

describe('the steps function, on sample-events/rollout-steps.json', () => {
  const handler = () => createRolloutStepsHandler(deps);

  beforeAll(async () => {
    await startRollout('acme', 'due', {
      steps: [
        { percent: 25, afterMinutes: 5 },
        { percent: 50, afterMinutes: 60 },
      ],
    });
    await startRollout('acme', 'not-yet', { steps: [{ percent: 50, afterMinutes: 30 }] });
  });

  it('applies a step that is due and leaves one that is not yet due as it was', async () => {
    now = minutesAfterStart(6);
    const summary = await handler()(eventFile('rollout-steps.json'), lambdaContext());

    expect(summary).toEqual({ applied: 1, skipped: 0, failed: 0 });
    expect(await rolloutOf('acme', 'due')).toMatchObject({ percent: 25, steps: [{ percent: 50, afterMinutes: 60 }] });
    expect(await rolloutOf('acme', 'not-yet')).toMatchObject({ percent: 10, steps: [{ percent: 50, afterMinutes: 30 }] });
  });

  it('audits the step as the system actor rollout-steps', async () => {
    const [latest] = (await listAudit(table, 'acme')).entries;
    expect(latest).toMatchObject({
      action: 'rollout.change',
      outcome: 'succeeded',
      actor: { type: 'system', name: 'rollout-steps' },
      target: { promptId: 'due' },
    });
  });

  it('run again in the same minute, changes nothing and writes no audit entry', async () => {
    const entries = await auditCount('acme');
    expect(await handler()(eventFile('rollout-steps.json'), lambdaContext())).toEqual({ applied: 0, skipped: 0, failed: 0 });
    expect(await rolloutOf('acme', 'due')).toMatchObject({ percent: 25 });
    expect(await auditCount('acme')).toBe(entries);
  });

  it('applies the last due step only, when the function could not run for a while', async () => {
    now = minutesAfterStart(90);
    expect(await handler()(eventFile('rollout-steps.json'), lambdaContext())).toEqual({ applied: 2, skipped: 0, failed: 0 });
    expect(await rolloutOf('acme', 'due')).toMatchObject({ percent: 50 });
    expect((await rolloutOf('acme', 'due'))?.steps ?? []).toEqual([]);
    expect(await rolloutOf('acme', 'not-yet')).toMatchObject({ percent: 50 });
  });
});

describe('the guard alarm function', () => {
  const handler = () => createGuardAlarmHandler(deps);
  let guardedToo: string;

  beforeAll(async () => {
    await startRollout('acme', 'guarded', { guardAlarm: ALARM });
    guardedToo = (await startRollout('globex', 'guarded-too', { guardAlarm: ALARM })).rolloutId;
    await startRollout('acme', 'by-arn', { guardAlarm: GUARD_EVENT.resources[0] as string });
    await startRollout('acme', 'other-alarm', { guardAlarm: 'payments-latency' });
    await startRollout('acme', 'unguarded', {});
    now = minutesAfterStart(10);
  });

  it('changes nothing on sample-events/guard-alarm-ok.json, the alarm going back to OK', async () => {
    const entries = await auditCount('acme');
    const summary = await handler()(eventFile('guard-alarm-ok.json'), lambdaContext());

    expect(summary).toEqual({ ignored: `alarm ${ALARM} went to OK` });
    expect(await rolloutOf('acme', 'guarded')).toMatchObject({ percent: 10 });
    expect(await rolloutOf('globex', 'guarded-too')).toMatchObject({ percent: 10 });
    expect(await auditCount('acme')).toBe(entries);
  });

  it('ignores an event that is not an alarm state change, without throwing, and changes nothing', async () => {
    const entries = await auditCount('acme');
    const summary = await handler()({ 'detail-type': 'CloudWatch Alarm State Change', source: 'aws.cloudwatch', detail: {} }, lambdaContext());

    expect(summary).toEqual({ ignored: expect.stringContaining('detail.alarmName') });
    expect(await handler()('not an event', lambdaContext())).toEqual({ ignored: expect.any(String) });
    expect(await rolloutOf('acme', 'guarded')).toBeDefined();
    expect(await auditCount('acme')).toBe(entries);
  });

  it('on sample-events/guard-alarm.json, aborts every rollout that alarm guards, in every account, by its name or its ARN', async () => {
    const summary = await handler()(eventFile('guard-alarm.json'), lambdaContext());

    expect(summary).toEqual({ alarmName: ALARM, aborted: 3, skipped: 0, failed: 0 });
    expect(await rolloutOf('acme', 'guarded')).toBeUndefined();
    expect(await rolloutOf('globex', 'guarded-too')).toBeUndefined();
    expect(await rolloutOf('acme', 'by-arn')).toBeUndefined();
    // An abort leaves the label where it pointed.
    expect(await fixtures.listLabels('acme', 'guarded')).toEqual({ production: '1.0.0' });
  });

  it('leaves the rollouts another alarm guards, and those no alarm guards', async () => {
    expect(await rolloutOf('acme', 'other-alarm')).toMatchObject({ percent: 10 });
    expect(await rolloutOf('acme', 'unguarded')).toMatchObject({ percent: 10 });
    expect(await rolloutOf('acme', 'calm')).toBeUndefined();
  });

  it('audits each abort as the system actor guard-alarm, with the reason naming the alarm and the rollout it was meant for', async () => {
    const aborts = (await listAudit(table, 'globex')).entries.filter((entry) => entry.action === 'rollout.abort');
    expect(aborts).toEqual([
      expect.objectContaining({
        outcome: 'succeeded',
        actor: { type: 'system', name: 'guard-alarm' },
        requested: { reason: `alarm ${ALARM}`, rolloutId: guardedToo },
      }),
    ]);
  });
});

describe('one rollout the store fails to change', () => {
  let proxy: FaultProxy;
  let clients: StoreClients;
  let faulty: AutomationDependencies;
  /** The store refuses every transaction that writes this prompt's items (throttled, every attempt): nothing is applied. */
  const failWritesOf = (promptId: string | undefined) => {
    proxy.rule = (operation, body) => (promptId !== undefined && operation === 'TransactWriteItems' && body.includes(`#${promptId}#`) ? 'throttle' : 'pass');
  };

  beforeAll(async () => {
    proxy = await startFaultProxy(local.endpoint);
    clients = createStoreClients({ region: 'us-east-1', endpoint: proxy.endpoint });
    faulty = { ...deps, table: new Table(clients.reads, local.tableName, () => now, { writeClient: clients.writes }) };
    await startRollout('acme', 'steady', { steps: [{ percent: 30, afterMinutes: 1 }], guardAlarm: 'search-errors' });
    await startRollout('acme', 'flaky', { steps: [{ percent: 30, afterMinutes: 1 }], guardAlarm: 'search-errors' });
  });
  afterAll(async () => {
    clients.destroy();
    await proxy.close();
  });

  it('keeps no other rollout from its step, fails the run, and the next run applies the step', async () => {
    now = minutesAfterStart(2);
    failWritesOf('flaky');
    await expect(createRolloutStepsHandler(faulty)(eventFile('rollout-steps.json'), lambdaContext())).rejects.toThrow(
      '1 due rollout step(s) could not be applied',
    );
    expect(await rolloutOf('acme', 'steady')).toMatchObject({ percent: 30 });
    expect(await rolloutOf('acme', 'flaky')).toMatchObject({ percent: 10 });

    failWritesOf(undefined);
    expect(await createRolloutStepsHandler(faulty)(eventFile('rollout-steps.json'), lambdaContext())).toEqual({ applied: 1, skipped: 0, failed: 0 });
    expect(await rolloutOf('acme', 'flaky')).toMatchObject({ percent: 30 });
  });

  it('keeps no other guarded rollout from its abort, fails the invocation, and its retry aborts the rest', async () => {
    const event = { ...GUARD_EVENT, resources: [], detail: { ...GUARD_EVENT.detail, alarmName: 'search-errors' } };
    failWritesOf('flaky');
    await expect(createGuardAlarmHandler(faulty)(event, lambdaContext())).rejects.toThrow('1 rollout(s) guarded by alarm search-errors could not be aborted');
    expect(await rolloutOf('acme', 'steady')).toBeUndefined();
    expect(await rolloutOf('acme', 'flaky')).toBeDefined();

    failWritesOf(undefined);
    expect(await createGuardAlarmHandler(faulty)(event, lambdaContext())).toEqual({ alarmName: 'search-errors', aborted: 1, skipped: 0, failed: 0 });
    expect(await rolloutOf('acme', 'flaky')).toBeUndefined();
  });
});

describe('a rollout a person ended, and replaced by another on its label, while the automation was under way', () => {
  /** A person's change made right after the automation has listed the active rollouts, before it changes any. */
  let afterListing: (() => Promise<void>) | undefined;
  /** The automation's table: its list of the active rollouts (the one batch read of rollout items) is followed by afterListing. */
  class RacedTable extends Table {
    override async batchGet<T>(keys: readonly Record<string, string>[], attributes?: readonly string[]): Promise<T[]> {
      const items = await super.batchGet<T>(keys, attributes);
      const race = afterListing;
      if (race && keys.some((key) => key.sk?.startsWith('ROLLOUT#'))) {
        afterListing = undefined;
        await race();
      }
      return items;
    }
  }
  let raced: AutomationDependencies;

  beforeAll(() => {
    raced = { ...deps, table: new RacedTable(local.clients.reads, local.tableName, () => now, { writeClient: local.clients.writes }) };
  });

  /** The person aborts the listed rollout and starts another on the same label (started at STARTED, as startRollout does). */
  const replace = (promptId: string, next: { percent: number; steps?: { percent: number; afterMinutes: number }[] }) => {
    let replacement: Rollout | undefined;
    afterListing = async () => {
      const runAt = now;
      await person.rollouts.abort('acme', promptId, 'production', { reason: 'by hand' });
      replacement = await startRollout('acme', promptId, next);
      now = runAt;
    };
    return () => {
      if (!replacement) throw new Error('the person did not replace the rollout');
      return replacement;
    };
  };

  const labelRolloutOf = async (promptId: string) =>
    (await table.get<PromptLabelItem>('labelRolloutOf', keys.promptLabel('acme', 'production', promptId)))?.rollout;

  it('the guard alarm of the aborted one leaves the new one as it is (the alarm does not guard it), as a skip, not a failure', async () => {
    const first = await startRollout('acme', 'replaced', { guardAlarm: 'replaced-errors' });
    const replacement = replace('replaced', { percent: 40 });
    now = minutesAfterStart(30);
    const event = { ...GUARD_EVENT, resources: [], detail: { ...GUARD_EVENT.detail, alarmName: 'replaced-errors' } };

    expect(await createGuardAlarmHandler(raced)(event, lambdaContext())).toEqual({ alarmName: 'replaced-errors', aborted: 0, skipped: 1, failed: 0 });

    const second = replacement();
    expect(await rolloutOf('acme', 'replaced')).toMatchObject({ rolloutId: second.rolloutId, percent: 40, revision: 1 });
    expect(await labelRolloutOf('replaced')).toMatchObject({ rolloutId: second.rolloutId, percent: 40 });
    const [attempt] = (await listAudit(table, 'acme', { filter: { actor: 'guard-alarm' } })).entries.filter(({ target }) => target.promptId === 'replaced');
    expect(attempt).toMatchObject({
      action: 'rollout.abort',
      outcome: 'refused',
      requested: { reason: 'alarm replaced-errors', rolloutId: first.rolloutId },
      reason: { code: 'CONFLICT', message: expect.stringContaining(`has rollout ${second.rolloutId}, not ${first.rolloutId}`) },
    });
  });

  it('a due step of the aborted one is not applied to the new one, whose own schedule the next run applies', async () => {
    await startRollout('acme', 'restarted', { steps: [{ percent: 30, afterMinutes: 1 }] });
    const replacement = replace('restarted', { percent: 10, steps: [{ percent: 60, afterMinutes: 1 }] });
    now = minutesAfterStart(2);

    expect(await createRolloutStepsHandler(raced)(eventFile('rollout-steps.json'), lambdaContext())).toEqual({ applied: 0, skipped: 1, failed: 0 });

    const second = replacement();
    expect(await rolloutOf('acme', 'restarted')).toMatchObject({
      rolloutId: second.rolloutId,
      percent: 10,
      steps: [{ percent: 60, afterMinutes: 1 }],
      revision: 1,
    });
    expect(await labelRolloutOf('restarted')).toMatchObject({ rolloutId: second.rolloutId, percent: 10 });

    expect(await createRolloutStepsHandler(deps)(eventFile('rollout-steps.json'), lambdaContext())).toEqual({ applied: 1, skipped: 0, failed: 0 });
    expect(await rolloutOf('acme', 'restarted')).toMatchObject({ rolloutId: second.rolloutId, percent: 60 });
  });
});
