import { ConfigError, loadDeliveryConfig } from '../config';
import { createStoreClients } from '../table/client';
import { Table } from '../table/table';
import { createTelemetry, storeCallRecorder } from '../telemetry';
import { attemptDelivery } from './attempt';
import { resolveWithDns } from './destination';
import type { DeliveryHandlerDependencies } from './delivery-handler';
import { sealerFromConfig } from './sealer-from-config';
import { createSqsClient, SqsDeliveryQueue } from './sqs-delivery-queue';

/** Built once per cold start: configuration, the store's clients, the sealer (decrypt only), the queue, logs and metrics. */
export function deliveryDependencies(env: NodeJS.ProcessEnv = process.env): DeliveryHandlerDependencies {
  const config = loadDeliveryConfig(env);
  const telemetry = createTelemetry(config);
  const clients = createStoreClients({ region: config.region, endpoint: config.storeEndpoint, observe: storeCallRecorder(telemetry) });
  const table = new Table(clients.reads, config.tableName, () => new Date(), { writeClient: clients.writes });
  const sealer = sealerFromConfig(config.webhooks);
  if (!sealer) throw new ConfigError('Missing required environment variable WEBHOOK_KEY_ID');
  const queue = new SqsDeliveryQueue(createSqsClient(config.region), config.deliveryQueueUrl);
  return {
    attempt: (job) => attemptDelivery(job, { table, sealer, resolve: resolveWithDns, mode: config.webhooks.destinations, now: () => new Date() }),
    table,
    queue,
    hide: (receiptHandle, seconds) => queue.hide(receiptHandle, seconds),
    logger: telemetry.logger,
    metrics: telemetry.metrics,
  };
}
