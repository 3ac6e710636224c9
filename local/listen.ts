import type { AddressInfo, Server } from 'node:net';

/** A port someone else holds: the message names the setting that moves us elsewhere. */
export class PortInUseError extends Error {
  override readonly name = 'PortInUseError';
  constructor(
    readonly port: number,
    readonly variable: string,
  ) {
    super(`port ${port} is in use: set ${variable} to a free port (e.g. ${variable}=${port + 1})`);
  }
}

/** Listens on the loopback interface only: a development stack has no business on the network. */
export async function listenOnLoopback(server: Server, port: number, variable: string, host = '127.0.0.1'): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(error.code === 'EADDRINUSE' || error.code === 'EACCES' ? new PortInUseError(port, variable) : error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
  return (server.address() as AddressInfo).port;
}
