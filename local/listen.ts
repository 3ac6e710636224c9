import { type AddressInfo, createServer, type Server } from 'node:net';

/** A port someone else holds: the message names the setting that moves us elsewhere, and a port that is free. */
export class PortInUseError extends Error {
  override readonly name = 'PortInUseError';
  constructor(
    readonly port: number,
    readonly variable: string,
    /** A port found free when the error was made, and not one the stack's other settings will take. */
    readonly suggestion: number | undefined,
  ) {
    super(
      `port ${port} is in use: set ${variable} to a free port ` +
        (suggestion === undefined ? `(or ${variable}=0 to pick any free one)` : `(e.g. ${variable}=${suggestion})`),
    );
  }
}

export interface ListenOptions {
  readonly host?: string;
  /** Ports the stack's other settings name: free now, but about to be taken, so never suggested. */
  readonly reserved?: readonly number[];
}

/** How far past a taken port to look for one to suggest. */
const SUGGESTION_RANGE = 100;

/** Listens on the loopback interface unless told otherwise (HOST): a development stack has no business on the network. */
export async function listenOnLoopback(server: Server, port: number, variable: string, options: ListenOptions = {}): Promise<number> {
  const host = options.host ?? '127.0.0.1';
  try {
    await listen(server, port, host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE' && code !== 'EACCES') throw error;
    throw new PortInUseError(port, variable, await freePortAfter(port, host, options.reserved ?? []));
  }
  return (server.address() as AddressInfo).port;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/**
 * The first port above `port` that can be bound right now: suggesting one unchecked sent people from one
 * taken port to the next. Another process may still take it before the developer does; that is rare.
 */
export async function freePortAfter(port: number, host: string, reserved: readonly number[]): Promise<number | undefined> {
  for (let candidate = port + 1; candidate <= Math.min(port + SUGGESTION_RANGE, 65_535); candidate++) {
    if (reserved.includes(candidate)) continue;
    const probe = createServer();
    const free = await listen(probe, candidate, host).then(
      () => true,
      () => false,
    );
    if (free) {
      await new Promise((resolve) => probe.close(resolve));
      return candidate;
    }
  }
  return undefined;
}
