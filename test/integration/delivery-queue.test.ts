import type { AttemptOutcome, DeliveryJob } from '../../lambda/webhooks/delivery-job';
import { MAX_ATTEMPTS, RETRY_DELAYS_SECONDS } from '../../lambda/webhooks/delivery-job';
import { createTelemetry } from '../../lambda/telemetry';
import { InProcessDeliveryQueue } from '../../local/delivery-queue';

/**
 * npm start's delivery queue (docs/local-stack.md "Events and webhooks"): every job on its own, retried on the
 * deployed schedule (here a millisecond per second of it), stopped cleanly. The attempts are stand-ins that record
 * when they ran: what an attempt does is attemptDelivery's, tested with a loopback receiver in test/webhooks/.
 */

const job = (webhookId: string): DeliveryJob => ({
  accountId: 'acme',
  webhookId,
  attempt: 1,
  event: {
    id: 'evt_20261127060000000_00000001',
    type: 'key.created',
    time: '2026-11-27T06:00:00.000Z',
    accountId: 'acme',
    actor: { type: 'cli', operator: 't' },
    data: {},
  },
});
const failed: AttemptOutcome = { delivered: false, status: 500, durationMs: 1 };
const delivered: AttemptOutcome = { delivered: true, status: 200, durationMs: 1 };
const { logger, metrics } = createTelemetry({ serviceName: 'delivery-queue-test', logLevel: 'SILENT' });

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('not in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

it('retries a failed attempt after the schedule’s delays, with the attempt number counting up, until the last', async () => {
  const attempts: { attempt: number; at: number }[] = [];
  const started = Date.now();
  const queue = new InProcessDeliveryQueue({
    attempt: async (each) => {
      attempts.push({ attempt: each.attempt, at: Date.now() - started });
      return failed;
    },
    logger,
    metrics,
    millisPerSecond: 0.001,
  });
  await queue.enqueue([job('wh_0000000000000001')]);
  await until(() => attempts.length === MAX_ATTEMPTS && queue.pending === 0);
  await queue.stop();
  expect(attempts.map((each) => each.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  // Each waited at least its delay (at a millisecond per 1,000 s, the 10 h wait is 36 ms).
  const total = RETRY_DELAYS_SECONDS.reduce((sum, delay) => sum + delay, 0) * 0.001;
  expect(attempts.at(-1)?.at).toBeGreaterThanOrEqual(Math.floor(total));
});

it('delivers one webhook while another is still waiting on its slow receiver', async () => {
  const done: string[] = [];
  let releaseSlow: () => void = () => undefined;
  const queue = new InProcessDeliveryQueue({
    attempt: async (each) => {
      if (each.webhookId === 'wh_00000000000000ff') await new Promise<void>((resolve) => (releaseSlow = resolve));
      done.push(each.webhookId);
      return delivered;
    },
    logger,
    metrics,
  });
  await queue.enqueue([job('wh_00000000000000ff'), job('wh_0000000000000002')]);
  await until(() => done.length === 1);
  expect(done).toEqual(['wh_0000000000000002']);
  releaseSlow();
  await queue.stop();
  expect(done).toEqual(['wh_0000000000000002', 'wh_00000000000000ff']);
});

it('stops cleanly: the attempt under way finishes, the retries waiting are dropped', async () => {
  let calls = 0;
  const queue = new InProcessDeliveryQueue({
    attempt: async () => {
      calls += 1;
      return failed;
    },
    logger,
    metrics,
  });
  await queue.enqueue([job('wh_0000000000000003')]);
  await until(() => calls === 1 && queue.pending === 1);
  await queue.stop();
  expect(queue.pending).toBe(0);
  await queue.enqueue([job('wh_0000000000000004')]);
  expect(calls).toBe(1);
});
