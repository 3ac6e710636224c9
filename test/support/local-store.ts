import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AddressInfo, Server } from 'node:net';
import { createDocumentClient, createStoreClients, type StoreClients } from '../../lambda/data/dynamo-client';
import { createTableInput } from '../../lambda/data/table-schema';

// dynalite ships no types; this is the part of it the tests use.
const dynalite = require('dynalite') as (options: { createTableMs: number; updateTableMs: number }) => Server;

const HARNESS_ATTEMPT_TIMEOUT_MS = 3_000;

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
  await raw.send(new CreateTableCommand(createTableInput(tableName)));
  raw.destroy();
  const client = createDocumentClient({ region: 'us-east-1', endpoint });
  // Hundreds of handlers and the store share this one process and its event loop; with Lambda's 1 s per
  // attempt, a busy test machine would time them out (503s) and the tests would measure the machine. The
  // request's own deadline (3.5 s) still bounds every call, and timeouts are tested on their own (test/faults).
  const clients = createStoreClients({ region: 'us-east-1', endpoint, attemptTimeoutMs: HARNESS_ATTEMPT_TIMEOUT_MS });
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
