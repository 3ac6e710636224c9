import { loadAutomationConfig } from '../config';
import { createStoreClients } from '../table/client';
import { Table } from '../table/table';
import { createTelemetry, storeCallRecorder } from '../telemetry';
import type { AutomationDependencies } from './automation';

/** Built once per cold start: configuration, the store's clients, the logger. */
export function automationDependencies(env: NodeJS.ProcessEnv = process.env): AutomationDependencies {
  const config = loadAutomationConfig(env);
  const telemetry = createTelemetry(config);
  const clients = createStoreClients({ region: config.region, endpoint: config.storeEndpoint, observe: storeCallRecorder(telemetry) });
  return {
    // Reads retry what the store could not answer; writes only what it provably never applied.
    table: new Table(clients.reads, config.tableName, () => new Date(), { writeClient: clients.writes }),
    logger: telemetry.logger,
  };
}
