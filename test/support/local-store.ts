import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AddressInfo, Server } from 'node:net';
import { createDocumentClient, createStoreClients, type StoreClients } from '../../lambda/table/client';
import { createActiveTable } from './active-table';
import { LOCAL_STORE_SOCKETS } from '../../local/invocation-slots';

// dynalite ships no types; this is the part of it the tests use.
const dynalite = require('dynalite') as (options: { createTableMs: number; updateTableMs: number }) => Server;

export interface LocalStore {
  readonly endpoint: string;
  readonly tableName: string;
  /** The operator tools' client, as the admin CLI makes it. */
  readonly client: DynamoDBDocumentClient;
  /** The API's clients, as a Lambda makes them. */
  readonly clients: StoreClients;
  close(): Promise<void>;
}

/** A real DynamoDB-compatible store (dynalite, in memory) on a free loopback port, with the table created. */
export async function startLocalStore(tableName = 'prompts-test'): Promise<LocalStore> {
  const server = dynalite({ createTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const raw = new DynamoDBClient({
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await createActiveTable(raw, tableName);
  raw.destroy();
  const client = createDocumentClient({ region: 'us-east-1', endpoint });
  // As the local stack sizes them: the harness runs as many requests at once as it does.
  const clients = createStoreClients({ region: 'us-east-1', endpoint, maxSockets: LOCAL_STORE_SOCKETS });
  return {
    endpoint,
    tableName,
    client,
    clients,
    close: async () => {
      client.destroy();
      clients.destroy();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
