import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { setTimeout as delay } from 'node:timers/promises';
import { createTableInput } from '../../lambda/table/schema';

const POLL_MS = 20;
const DEADLINE_MS = 15_000;

/**
 * Creates the service's table and returns once it is ACTIVE. dynalite answers CreateTable with the table
 * CREATING and turns it ACTIVE on a timer, even with `createTableMs: 0`: on a busy machine a write sent
 * right after the answer finds no table (ResourceNotFoundException).
 */
export async function createActiveTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  await waitUntilActive(client, tableName);
}

export async function waitUntilActive(client: DynamoDBClient, tableName: string): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') return;
    if (Date.now() > deadline) throw new Error(`table ${tableName} still ${Table?.TableStatus} after ${DEADLINE_MS} ms`);
    await delay(POLL_MS);
  }
}
