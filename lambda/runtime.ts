import { loadConfig } from './config';
import { createDocumentClient } from './data/dynamo-client';
import { CachedPromptStore } from './data/cached-prompt-store';
import { DynamoStore } from './data/dynamo-store';
import type { ApiDependencies } from './handlers/api-handler';
import { stdoutLogSink } from './middleware/request-log';

/** Built once per cold start: configuration read, client and its connections kept warm between requests. */
export function productionDependencies(env: NodeJS.ProcessEnv = process.env): ApiDependencies {
  const config = loadConfig(env);
  const client = createDocumentClient({ region: config.region, endpoint: config.storeEndpoint });
  const store = new DynamoStore(client, config.tableName);
  return {
    usage: store,
    prompts: new CachedPromptStore(store),
    upgradeUrl: config.upgradeUrl,
    now: () => new Date(),
    log: stdoutLogSink,
  };
}
