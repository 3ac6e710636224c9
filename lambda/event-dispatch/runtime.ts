import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { loadDispatcherConfig } from '../config';
import { createStoreClients } from '../table/client';
import { Table } from '../table/table';
import { createTelemetry, storeCallRecorder } from '../telemetry';
import { createSqsClient, SqsDeliveryQueue } from '../webhook-delivery/sqs-delivery-queue';
import type { DispatchHandlerDependencies } from './dispatch-handler';
import { EventBridgeBus } from './eventbridge-bus';

/** Built once per cold start: configuration, the store's clients, the bus, the delivery queue, the logger. */
export function dispatcherDependencies(env: NodeJS.ProcessEnv = process.env): DispatchHandlerDependencies {
  const config = loadDispatcherConfig(env);
  const telemetry = createTelemetry(config);
  const clients = createStoreClients({ region: config.region, endpoint: config.storeEndpoint, observe: storeCallRecorder(telemetry) });
  return {
    table: new Table(clients.reads, config.tableName, () => new Date(), { writeClient: clients.writes }),
    bus: new EventBridgeBus(new EventBridgeClient({ region: config.region }), config.eventBusName),
    queue: new SqsDeliveryQueue(createSqsClient(config.region), config.deliveryQueueUrl),
    logger: telemetry.logger,
  };
}
