import type { AddressInfo, Server } from 'node:net';

/** The benchmark's store: dynalite in memory on a free loopback port, counting the requests it serves. */
const dynalite = require('dynalite') as (options: { createTableMs: number; updateTableMs: number }) => Server;

/** Added to every request, to stand for the network between a Lambda and DynamoDB; 0 for none. */
const latencyMs = Number(process.argv[2] ?? 0);

const server = dynalite({ createTableMs: 0, updateTableMs: 0 });
let requests = 0;
const serve = server.listeners('request')[0] as (...args: unknown[]) => void;
server.removeAllListeners('request');
server.on('request', (...args: unknown[]) => {
  requests += 1;
  // The request body waits, buffered, until dynalite reads it.
  if (latencyMs > 0) setTimeout(() => serve(...args), latencyMs);
  else serve(...args);
});
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
process.on('message', () => process.send?.({ requests }));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
