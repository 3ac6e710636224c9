import type { Logger } from '@aws-lambda-powertools/logger';
import { join } from 'node:path';
import type { EventBody } from '../lambda/domain/events';
import { createStoreClients } from '../lambda/table/client';
import { Table } from '../lambda/table/table';
import { createTelemetry } from '../lambda/telemetry';
import { attemptDelivery } from '../lambda/webhook-delivery/attempt';
import type { DeliveryJob, EventBus } from '../lambda/webhook-delivery/delivery-job';
import { runDeliveryJob } from '../lambda/webhook-delivery/delivery-run';
import { resolveWithDns, type Resolve } from '../lambda/webhook-delivery/destination';
import { LocalSecretSealer } from '../lambda/webhook-delivery/secret-sealer';
import { localKeyFromFile, WEBHOOK_KEY_FILE_NAME } from '../lambda/webhook-delivery/sealer-from-config';
import { InProcessDeliveryQueue } from './delivery-queue';
import { EVENTS_CURSOR_FILE, startEventPoller } from './event-poller';
import type { LocalConfig } from './local-config';

/** Locally there is no bus to publish to: each event is a log line, so the developer sees what would go out. */
class LoggedEventBus implements EventBus {
  constructor(private readonly logger: Logger) {}

  async publish(events: readonly EventBody[]): Promise<void> {
    for (const event of events) this.logger.info({ message: 'event', eventId: event.id, type: event.type, accountId: event.accountId });
  }
}

export interface LocalEvents {
  /** Reads and dispatches the new events now (tests; the timer does it every second). */
  pollNow(): Promise<void>;
  /** No poll or attempt starts after this; resolves once those under way have ended. */
  stop(): Promise<void>;
}

export interface LocalEventsOptions {
  readonly onError: (error: unknown) => void;
  /** DNS unless a test stubs it; locally a webhook may point at 127.0.0.1 or localhost. */
  readonly resolve?: Resolve;
  readonly intervalMs?: number;
  /** Seconds to milliseconds for the retry schedule; a test shortens it. */
  readonly millisPerSecond?: number;
}

/**
 * npm start's events and webhooks (docs/local-stack.md): the poller in place of the stream, the deployed dispatcher,
 * and an in-process queue in place of SQS running the deployed delivery runs (runDeliveryJob) on the deployed
 * schedule, with the secrets sealed by the data folder's key (the one the local management API seals them with).
 */
export function startLocalEvents(config: LocalConfig, storeEndpoint: string, options: LocalEventsOptions): LocalEvents {
  const telemetry = createTelemetry({ serviceName: 'prompt-service-local', logLevel: 'INFO' });
  const clients = createStoreClients({ region: config.region, endpoint: storeEndpoint });
  const table = new Table(clients.reads, config.tableName, () => new Date(), { writeClient: clients.writes });
  const sealer = new LocalSecretSealer(localKeyFromFile(join(config.dataDir, WEBHOOK_KEY_FILE_NAME)));
  const attempt = (job: DeliveryJob) =>
    attemptDelivery(job, { table, sealer, resolve: options.resolve ?? resolveWithDns, mode: 'local', now: () => new Date() });
  const { logger, metrics } = telemetry;
  const queue: InProcessDeliveryQueue = new InProcessDeliveryQueue({
    run: async (job, tries) => {
      const disposition = await runDeliveryJob(job, tries, { attempt, table, queue, logger, metrics });
      // Locally nobody reads the metrics (WebhookDeliveryFailed): its line says it all.
      if (metrics.hasStoredMetrics()) metrics.clearMetrics();
      return disposition;
    },
    ...(options.millisPerSecond === undefined ? {} : { millisPerSecond: options.millisPerSecond }),
  });
  const poller = startEventPoller({
    dispatch: { table, bus: new LoggedEventBus(telemetry.logger), queue },
    cursorFile: join(config.dataDir, EVENTS_CURSOR_FILE),
    onError: options.onError,
    ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
  });
  return {
    pollNow: () => poller.pollNow(),
    stop: async () => {
      await poller.stop();
      await queue.stop();
      clients.destroy();
    },
  };
}
