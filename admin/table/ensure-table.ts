import { CreateTableCommand, DescribeTableCommand, type TableDescription } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ADMIN_INDEX, createTableInput, PARTITION_KEY, SORT_KEY } from '../../lambda/table/schema';

export class TableSchemaError extends Error {
  override readonly name = 'TableSchemaError';
}

const POLL_INTERVAL_MS = 200;

/**
 * For local stores (dynalite, DynamoDB Local): creates the table when it is missing and waits until
 * it is usable. A table that exists with other keys is refused rather than written into.
 * Deployed tables come from the CDK stack, with the same keys.
 */
export async function ensureTable(client: DynamoDBDocumentClient, tableName: string, timeoutMs = 60_000): Promise<'created' | 'existing'> {
  let outcome: 'created' | 'existing' = 'existing';
  let table = await describe(client, tableName);
  if (!table) {
    try {
      await client.send(new CreateTableCommand(createTableInput(tableName)));
      outcome = 'created';
    } catch (error) {
      // Someone else created it between our look and our create: theirs will do.
      if (!(error instanceof Error && error.name === 'ResourceInUseException')) throw error;
    }
    table = await describe(client, tableName);
  }
  const deadline = Date.now() + timeoutMs;
  while (table?.TableStatus !== 'ACTIVE') {
    if (Date.now() > deadline) throw new Error(`Table ${tableName} did not become ACTIVE within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
    table = await describe(client, tableName);
  }
  assertServiceSchema(tableName, table);
  return outcome;
}

async function describe(client: DynamoDBDocumentClient, tableName: string): Promise<TableDescription | undefined> {
  try {
    const result = await client.send(new DescribeTableCommand({ TableName: tableName }));
    return result.Table;
  } catch (error) {
    if (error instanceof Error && error.name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}

function assertServiceSchema(tableName: string, table: TableDescription): void {
  const keyOf = (type: 'HASH' | 'RANGE') => table.KeySchema?.find((key) => key.KeyType === type)?.AttributeName;
  const hasIndex = table.GlobalSecondaryIndexes?.some((index) => index.IndexName === ADMIN_INDEX) ?? false;
  if (keyOf('HASH') !== PARTITION_KEY || keyOf('RANGE') !== SORT_KEY || !hasIndex) {
    throw new TableSchemaError(
      `Table ${tableName} exists but is not this service's table (expected keys ${PARTITION_KEY}/${SORT_KEY} and index ${ADMIN_INDEX})`,
    );
  }
}
