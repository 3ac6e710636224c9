import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { GetCommand, type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { listenOnLoopback } from '../local/listen';

export interface BaselineOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  /** The item every request reads: the same prompt version the service's pinned scenario serves. */
  readonly itemKey: Record<string, string>;
}

/**
 * What a plain implementation of a pinned fetch does, with nothing of ours in it: hash the key, one
 * conditional counter update, one item read, JSON out. The yardstick the service is measured against.
 */
export async function startBaselineServer({ client, tableName, itemKey }: BaselineOptions): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    const key = (request.headers.authorization ?? '').replace(/^Bearer /i, '');
    const keyHash = createHash('sha256').update(key).digest('hex');
    const month = new Date().toISOString().slice(0, 7);
    void (async () => {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: `BASELINE#${keyHash}`, sk: `USAGE#${month}` },
            UpdateExpression: 'SET #used = if_not_exists(#used, :zero) + :one',
            ConditionExpression: 'attribute_not_exists(#used) OR #used < :limit',
            ExpressionAttributeNames: { '#used': 'used' },
            ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':limit': 1_000_000_000 },
          }),
        );
        const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: itemKey }));
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify(Item));
      } catch {
        response.writeHead(500, { 'Content-Type': 'application/json' });
        response.end('{"error":"baseline failed"}');
      }
    })();
  });
  const port = await listenOnLoopback(server, 0, 'BASELINE_PORT');
  return { url: `http://127.0.0.1:${port}`, server };
}
