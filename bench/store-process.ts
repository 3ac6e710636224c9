import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import { PassThrough } from 'node:stream';

/**
 * The benchmark's store: dynalite in memory on a free loopback port, counting the requests it serves and
 * the capacity units DynamoDB would bill for them. Each request reaches dynalite with
 * `ReturnConsumedCapacity: TOTAL`, so it sizes every item read or written by DynamoDB's rules (reads per
 * 4 KB, half for an eventually consistent read; writes per 1 KB); its answer goes back unchanged, so the
 * body still matches the CRC32 the SDK checks.
 */
const dynalite = require('dynalite') as (options: { createTableMs: number; updateTableMs: number }) => Server;

/** Added to every request, to stand for the network between a Lambda and DynamoDB; 0 for none. */
const latencyMs = Number(process.argv[2] ?? 0);

const READ_OPERATIONS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem']);
const usage = { requests: 0, readUnits: 0, writeUnits: 0 };

function bodyOf(message: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    message.on('data', (chunk: Buffer) => chunks.push(chunk));
    message.on('end', () => resolve(Buffer.concat(chunks)));
    message.on('error', reject);
  });
}

function withCapacityAsked(raw: Buffer): Buffer {
  try {
    const input: unknown = JSON.parse(raw.toString('utf8'));
    if (typeof input !== 'object' || input === null || 'ReturnConsumedCapacity' in input) return raw;
    return Buffer.from(JSON.stringify({ ...input, ReturnConsumedCapacity: 'TOTAL' }));
  } catch {
    return raw;
  }
}

/** The units of one answer; only its `ConsumedCapacity` is read, as a Query page may be a megabyte. */
function unitsOf(body: string): number {
  const at = body.lastIndexOf('"ConsumedCapacity"');
  if (at === -1) return 0;
  return Number(/"CapacityUnits":([0-9.]+)/.exec(body.slice(at, at + 200))?.[1] ?? 0);
}

const server = dynalite({ createTableMs: 0, updateTableMs: 0 });
const serve = server.listeners('request')[0] as (request: IncomingMessage, response: ServerResponse) => void;
server.removeAllListeners('request');
server.on('request', async (request: IncomingMessage, response: ServerResponse) => {
  usage.requests += 1;
  const operation =
    String(request.headers['x-amz-target'] ?? '')
      .split('.')
      .pop() ?? '';
  const sent = withCapacityAsked(await bodyOf(request));
  const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
  response.end = ((...args: unknown[]) => {
    const [body] = args;
    if (typeof body === 'string') {
      if (READ_OPERATIONS.has(operation)) usage.readUnits += unitsOf(body);
      else usage.writeUnits += unitsOf(body);
    }
    return end(...args);
  }) as typeof response.end;
  // dynalite reads the request as a stream: it gets the same one, with the body it is to see.
  const replay = Object.assign(new PassThrough(), {
    headers: { ...request.headers, 'content-length': String(sent.length) },
    method: request.method,
    url: request.url,
  }) as unknown as IncomingMessage;
  const handle = () => {
    serve(replay, response);
    (replay as unknown as PassThrough).end(sent);
  };
  if (latencyMs > 0) setTimeout(handle, latencyMs);
  else handle();
});
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
process.on('message', () => process.send?.({ usage }));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
