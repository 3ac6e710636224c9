import { Operations } from '../../lambda/operations';
import { findRollout } from '../../lambda/features/rollouts/rollouts';
import { Table } from '../../lambda/table/table';
import { createTelemetry } from '../../lambda/telemetry';
import { repeatWithoutOverlap, startRolloutSteps } from '../../local/rollout-steps-timer';
import { FixtureStore } from '../support/fixture-store';
import { version } from '../support/fixtures';
import { type LocalStore, startLocalStore } from '../support/local-store';

/** `npm start`'s due steps (local/rollout-steps-timer.ts): the deployed function's code, on a timer that never overlaps itself. */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(10);
  }
}

describe('repeatWithoutOverlap', () => {
  it('starts a run only once the one before has finished, however slow it is', async () => {
    let running = 0;
    let most = 0;
    let runs = 0;
    const repeating = repeatWithoutOverlap(
      async () => {
        running += 1;
        most = Math.max(most, running);
        await sleep(30);
        running -= 1;
        runs += 1;
      },
      5,
      (error) => {
        throw error;
      },
    );
    await sleep(200);
    await repeating.stop();
    expect(runs).toBeGreaterThan(2);
    expect(most).toBe(1);
  });

  it('stops: the run under way finishes before stop resolves, and none starts after', async () => {
    let finished = 0;
    let started = 0;
    const repeating = repeatWithoutOverlap(
      async () => {
        started += 1;
        await sleep(50);
        finished += 1;
      },
      1,
      () => undefined,
    );
    await until(async () => started === 1);
    await repeating.stop();
    expect(finished).toBe(started);
    await sleep(50);
    expect(started).toBe(finished);
  });

  it('reports a run that fails and goes on with the next', async () => {
    const errors: unknown[] = [];
    let runs = 0;
    const repeating = repeatWithoutOverlap(
      async () => {
        runs += 1;
        if (runs === 1) throw new Error('the store could not answer');
      },
      5,
      (error) => errors.push(error),
    );
    await until(async () => runs >= 3);
    await repeating.stop();
    expect(errors).toEqual([new Error('the store could not answer')]);
  });
});

describe('startRolloutSteps', () => {
  let local: LocalStore;
  beforeAll(async () => {
    local = await startLocalStore('rollout-steps-timer-test');
  });
  afterAll(async () => local.close());

  it("applies a rollout's due step in the store on its own, as the deployed function would", async () => {
    const started = new Date('2026-11-27T06:00:00.000Z');
    let now = started;
    const table = new Table(local.clients.reads, local.tableName, () => now, { writeClient: local.clients.writes });
    await new FixtureStore(local.client, local.tableName).importAccounts([
      {
        accountId: 'acme',
        name: 'Acme',
        plan: 'free',
        keys: [],
        prompts: [{ promptId: 'greet', promptName: 'Greet', versions: [version('1.0.0'), version('2.0.0')], labels: { production: '1.0.0' } }],
      },
    ]);
    await new Operations({ table, actor: { type: 'cli', operator: 'release-manager' } }).rollouts.start('acme', 'greet', 'production', {
      to: '2.0.0',
      percent: 10,
      steps: [{ percent: 40, afterMinutes: 1 }],
    });
    const timer = startRolloutSteps(
      { table, logger: createTelemetry({ serviceName: 'rollout-steps-timer-test', logLevel: 'INFO' }).logger },
      {
        intervalMs: 10,
        onError: (error) => {
          throw error;
        },
      },
    );
    try {
      await sleep(50);
      expect(await findRollout(table, 'acme', 'greet', 'production')).toMatchObject({ percent: 10 });
      now = new Date(started.getTime() + 61_000);
      await until(async () => (await findRollout(table, 'acme', 'greet', 'production'))?.percent === 40);
    } finally {
      await timer.stop();
    }
  });
});
