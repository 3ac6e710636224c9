import { createStoreClients, type StoreCall, type StoreClients } from '../../lambda/table/client';
import { Table } from '../../lambda/table/table';
import { type CatalogModel, localCatalog } from '../../lambda/models/catalog';
import { createModels, type Models } from '../../lambda/models/models';
import type { RetryPolicy } from '../../lambda/models/retry';
import { keys } from '../../lambda/table/schema';
import { type ModelStandIn, startModelStandIn } from '../../local/model-stand-in/server';
import { Fixtures } from './fixtures';
import { type LocalStore, startLocalStore } from './local-store';

/** Quick waits between throttled attempts, so tests are about how many attempts, not how long. */
export const QUICK_RETRIES: RetryPolicy = { attempts: 4, baseMs: 5, capMs: 20, random: () => 1 };

/**
 * What a run needs, real: a DynamoDB-compatible store (dynalite) with the table, the local stand-in model, and the
 * catalog's models pointed at it (the Bedrock code path), the store's calls counted by operation.
 */
export interface RunsWorld {
  readonly store: LocalStore;
  readonly standIn: ModelStandIn;
  readonly clients: StoreClients;
  /** As the management functions hold it: reads retried, writes only when never applied. */
  readonly table: Table;
  readonly models: Models;
  readonly fixtures: Fixtures;
  /** Every store call the table made, in order. */
  readonly calls: StoreCall[];
  close(): Promise<void>;
}

export async function startRunsWorld(catalog: readonly CatalogModel[] = localCatalog()): Promise<RunsWorld> {
  const store = await startLocalStore();
  const standIn = await startModelStandIn();
  const calls: StoreCall[] = [];
  const clients = createStoreClients({ region: 'us-east-1', endpoint: store.endpoint, observe: (call) => calls.push(call) });
  const table = new Table(clients.reads, store.tableName, () => new Date(), { writeClient: clients.writes });
  const models = createModels({ catalog, region: 'us-east-1', standInEndpoint: standIn.url, endpointKeys: new Map() }, QUICK_RETRIES);
  return {
    store,
    standIn,
    clients,
    table,
    models,
    fixtures: new Fixtures(store.client, store.tableName),
    calls,
    close: async () => {
      clients.destroy();
      await Promise.all([store.close(), standIn.close()]);
    },
  };
}

/** The owners' budget of model tokens, as PATCH account sets it (a fixture: unaudited). */
export async function setModelBudget(table: Table, accountId: string, monthlyTokens: number | null): Promise<void> {
  await table.update('setModelBudget', {
    Key: keys.account(accountId),
    ...(monthlyTokens === null
      ? { UpdateExpression: 'REMOVE #models', ExpressionAttributeNames: { '#models': 'models' } }
      : {
          UpdateExpression: 'SET #models = :models',
          ExpressionAttributeNames: { '#models': 'models' },
          ExpressionAttributeValues: { ':models': { monthlyTokens } },
        }),
  });
}
