import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The rule for the stand-ins of what AWS runs (the embedded store, the user pool's administrative API):
 * they answer this machine's programs, never a web page. A browser marks every cross-origin request, and
 * every POST, with `Origin`; and a page that rebinds its own DNS name to 127.0.0.1 still sends that name as
 * `Host`. Programs (the AWS SDK, the CLI, the functions) send neither. docs/security.md says why.
 */
export type ForeignRequest = 'origin' | 'host';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'] as const;

/** The `Host` values this server answers to: a loopback name with the port it listens on. */
export function loopbackHosts(port: number): ReadonlySet<string> {
  return new Set(LOOPBACK_NAMES.map((name) => `${name}:${port}`));
}

/** Why a request is not one of this machine's programs', or undefined when it is. */
export function foreignRequest(
  request: Pick<IncomingMessage, 'headers' | 'rawHeaders'>,
  allowedHosts: ReadonlySet<string>,
  { refuseOrigin }: { readonly refuseOrigin: boolean },
): ForeignRequest | undefined {
  // From the raw headers: any Origin at all, even an empty or repeated one, is a browser's.
  if (refuseOrigin && hasHeader(request.rawHeaders, 'origin')) return 'origin';
  const hosts = headerValues(request.rawHeaders, 'host');
  if (hosts.length !== 1 || !allowedHosts.has((hosts[0] as string).trim().toLowerCase())) return 'host';
  return undefined;
}

export const FOREIGN_REQUEST_MESSAGE: Readonly<Record<ForeignRequest, string>> = {
  origin: 'Requests from web pages (with an Origin header) are refused: this local stand-in serves programs on this machine only.',
  host: 'The Host header must name this server on the loopback address (localhost, 127.0.0.1 or [::1], with its port).',
};

/**
 * Puts the guard in front of a server's own request listeners (dynalite's, for instance): a foreign
 * request gets `refuse`'s answer and never reaches them. Call it once the server listens (its port is
 * part of the rule).
 */
export function guardServer(server: Server, refuse: (response: ServerResponse, reason: ForeignRequest) => void): void {
  const listeners = server.listeners('request') as ((request: IncomingMessage, response: ServerResponse) => void)[];
  server.removeAllListeners('request');
  const allowed = loopbackHosts((server.address() as AddressInfo).port);
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const reason = foreignRequest(request, allowed, { refuseOrigin: true });
    if (reason) {
      // The body is never read: the connection closes after the answer instead.
      response.shouldKeepAlive = false;
      refuse(response, reason);
      request.resume();
      return;
    }
    for (const listener of listeners) listener.call(server, request, response);
  });
}

function hasHeader(rawHeaders: readonly string[], name: string): boolean {
  return headerValues(rawHeaders, name).length > 0;
}

function headerValues(rawHeaders: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] as string).toLowerCase() === name) values.push(rawHeaders[i + 1] as string);
  }
  return values;
}
