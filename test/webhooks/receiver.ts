import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What a loopback receiver was sent: one entry per request. */
export interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface Receiver {
  readonly port: number;
  readonly received: Received[];
  /** Connections made to it, answered or not: none means nothing reached it. */
  readonly connections: () => number;
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 (the only address tests send to); `answer` decides each response. */
export async function startReceiver(answer: (request: Received, response: ServerResponse) => void = (_, response) => response.end('ok')): Promise<Receiver> {
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(entry);
      answer(entry, response);
    });
  });
  server.on('connection', (socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    connections: () => connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port nothing listens on (one a server just let go of). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The receiver's check, written from the specification rather than with signature.ts: which of the header's
 * `v1` signatures the secret makes over `<webhook-id>.<webhook-timestamp>.<body>`.
 */
export function signaturesMadeWith(secret: string, request: Received): number {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signed = `${request.headers['webhook-id']}.${request.headers['webhook-timestamp']}.${request.body}`;
  const expected = createHmac('sha256', key).update(signed).digest('base64');
  return String(request.headers['webhook-signature'] ?? '')
    .split(' ')
    .filter((entry) => entry === `v1,${expected}`).length;
}
