import { createServer, request as forward, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the proxy does with one store call, by its DynamoDB operation (`UpdateItem`, `GetItem`, `Query`):
 * - `pass`: forward it and return the answer;
 * - `throttle`: answer as DynamoDB does when throttling, without forwarding (nothing is applied);
 * - `drop-answer`: forward it (the store applies it) but never return the answer;
 * - `stall`: hold it without forwarding or answering;
 * - `in-progress`: answer as DynamoDB does a TransactWriteItems whose ClientRequestToken names a transaction
 *   still running (TransactionInProgressException), without forwarding (nothing is applied).
 */
export type Fault = 'pass' | 'throttle' | 'drop-answer' | 'stall' | 'in-progress';

export interface FaultProxy {
  readonly endpoint: string;
  /** Decides each call's fate from its operation and its JSON body; `pass` for all by default. */
  rule: (operation: string, body: string) => Fault;
  /** Operations seen, in order. */
  readonly seen: string[];
  close(): Promise<void>;
}

/** An HTTP proxy in front of a store, for faults a process signal cannot make: throttling, lost answers. */
export async function startFaultProxy(storeEndpoint: string): Promise<FaultProxy> {
  const target = new URL(storeEndpoint);
  const held: ServerResponse[] = [];
  const proxy: FaultProxy = {
    endpoint: '',
    rule: () => 'pass',
    seen: [],
    close: async () => {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer(async (incoming: IncomingMessage, response: ServerResponse) => {
    const operation =
      String(incoming.headers['x-amz-target'] ?? '')
        .split('.')
        .pop() ?? '';
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    proxy.seen.push(operation);
    const fault = proxy.rule(operation, body.toString('utf8'));
    if (fault === 'stall') {
      held.push(response);
      return;
    }
    if (fault === 'throttle' || fault === 'in-progress') {
      response.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(
        JSON.stringify(
          fault === 'throttle'
            ? { __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException', message: 'Rate of requests exceeds the allowed throughput.' }
            : { __type: 'com.amazonaws.dynamodb.v20120810#TransactionInProgressException', message: 'Transaction is ongoing for the idempotent request' },
        ),
      );
      return;
    }
    const upstream = forward(
      // As a proxy does: the store is asked for by its own name (it refuses any other Host).
      { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: { ...incoming.headers, host: target.host } },
      (answer) => {
        if (fault === 'drop-answer') {
          answer.resume();
          held.push(response);
          return;
        }
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    upstream.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  Object.assign(proxy, { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  return proxy;
}
