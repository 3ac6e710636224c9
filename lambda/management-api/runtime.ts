import { loadManagementConfig } from '../config';
import { createStoreClients } from '../table/client';
import { Table } from '../table/table';
import { createTelemetry, storeCallRecorder } from '../telemetry';
import { directoryFor } from '../users/directory-from-config';
import { webhookToolsFromConfig } from '../webhook-delivery/sealer-from-config';
import { createManagementHandler, type ManagementDependencies } from './management-handler';
import { routesOf } from './routes';

/** Built once per cold start: configuration, the store's clients (the read API's timeouts), the user pool's client. */
export function managementDependencies(env: NodeJS.ProcessEnv = process.env, { maxSockets }: { readonly maxSockets?: number } = {}): ManagementDependencies {
  const config = loadManagementConfig(env);
  const telemetry = createTelemetry(config);
  const clients = createStoreClients({
    region: config.region,
    endpoint: config.storeEndpoint,
    maxSockets,
    observe: storeCallRecorder(telemetry),
  });
  const webhooks = webhookToolsFromConfig(config.webhooks);
  return {
    // Reads retry what the store could not answer; writes only what it provably never applied.
    table: new Table(clients.reads, config.tableName, () => new Date(), { writeClient: clients.writes }),
    directory: directoryFor(config.userPool),
    telemetry,
    ...(webhooks ? { webhooks } : {}),
  };
}

/** One management function's handler: its routes (routes.ts) over the shared dependencies. */
export const managementFunction = (functionId: string, deps: ManagementDependencies = managementDependencies()) =>
  createManagementHandler(deps, routesOf(functionId));
