import { loadConfig } from '../config';
import { createStoreClients } from '../table/client';
import { CachedPromptStore } from './store/cached-prompt-store';
import { DynamoStore } from './store/dynamo-store';
import type { ApiDependencies } from './handlers/api-handler';
import { createTelemetry, storeCallRecorder } from '../telemetry';

/** Built once per cold start: configuration read, client and its connections kept warm between requests. */
export function productionDependencies(env: NodeJS.ProcessEnv = process.env, { maxSockets }: { readonly maxSockets?: number } = {}): ApiDependencies {
  const config = loadConfig(env);
  const telemetry = createTelemetry(config);
  const clients = createStoreClients({
    region: config.region,
    endpoint: config.storeEndpoint,
    maxSockets,
    observe: storeCallRecorder(telemetry),
  });
  const store = new DynamoStore(clients, config.tableName);
  const prompts = new CachedPromptStore(store);
  return {
    usage: store,
    prompts,
    remembered: prompts,
    upgradeUrl: config.upgradeUrl,
    now: () => new Date(),
    telemetry,
  };
}
