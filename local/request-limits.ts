import type { IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';

/**
 * What every local server takes from a client, and for how long
 * (docs/behaviour-rules.md, "The local stack is a guest on the developer's machine"):
 * a declared body over the limit is refused before a byte of it is read, a chunked one is cut off at the limit, and a connection whose request does not arrive in time is closed. What is never
 * read is never buffered: a web page can send the local stack large bodies, but cannot make it hold them.
 */

/** API Gateway's own limit on a request payload: the local gateways take what the deployed ones take. */
export const GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface ConnectionTimeouts {
  /** From a request's first byte to the end of its headers. */
  readonly headersMs: number;
  /** From a request's first byte to the end of its body: a client that trickles it is cut off. */
  readonly requestMs: number;
}

/**
 * A client on this machine sends a request in milliseconds; a minute would still see the largest body through
 * a slow link. Idle keep-alive connections are not requests: their own timeout applies (http-gateway.ts).
 */
export const CONNECTION_TIMEOUTS: ConnectionTimeouts = { headersMs: 10_000, requestMs: 60_000 };

/** Node checks the two timeouts on this period (30 s by default), so a cut-off happens within it. */
export const CONNECTIONS_CHECKING_INTERVAL_MS = 1_000;

/** Options for `createServer`: the timeouts are enforced by Node itself, which answers 408 and closes. */
export function serverOptions(timeouts: ConnectionTimeouts = CONNECTION_TIMEOUTS) {
  return {
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS,
  };
}

/** Applies the timeouts to a server made elsewhere (Node's default request timeout is five minutes). */
export function limitConnections(server: Server, timeouts: ConnectionTimeouts = CONNECTION_TIMEOUTS): void {
  server.headersTimeout = timeouts.headersMs;
  server.requestTimeout = timeouts.requestMs;
}

/** A request whose body is read: Node's HTTP/1.1 request, or its HTTP/2 compatibility request. */
export type RequestWithBody = Readable & { readonly headers: IncomingHttpHeaders };

export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
}

/** The body's length as the client declared it, when it declared one. */
export function declaredLength(request: RequestWithBody): number | undefined {
  const value = request.headers['content-length'];
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}

/** True when the client said up front that its body is over the limit: refuse it before reading. */
export function declaresTooLarge(request: RequestWithBody, maxBytes: number): boolean {
  return (declaredLength(request) ?? 0) > maxBytes;
}

/**
 * The whole body, up to `maxBytes`: a declared length over it is refused before anything is read, and a
 * chunked body stops being read at the limit (the connection then closes, see closeAfterAnswer).
 */
export function readBody(request: RequestWithBody, maxBytes: number): Promise<Buffer> {
  return consumeBody(request, maxBytes, true);
}

/** Reads and drops the body of a request no one will read (keeping the connection usable), up to the same limit. */
export function discardBody(request: RequestWithBody, maxBytes: number): Promise<void> {
  return consumeBody(request, maxBytes, false).then(() => undefined);
}

function consumeBody(request: RequestWithBody, maxBytes: number, keep: boolean): Promise<Buffer> {
  if (declaresTooLarge(request, maxBytes)) return Promise.reject(new BodyTooLargeError());
  if (request.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        request.off('data', onData);
        request.pause();
        chunks.length = 0;
        reject(new BodyTooLargeError());
        return;
      }
      if (keep) chunks.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => resolve(Buffer.concat(chunks)));
    request.once('error', reject);
    // A client that goes away mid-body: nothing more will come.
    request.once('close', () => {
      if (!request.readableEnded) reject(new Error('the client closed the connection before its body ended'));
    });
  });
}

/**
 * After an answer given before the request was read to its end (a body over the limit, a refusal), the
 * connection closes: Node would otherwise read the rest of the body to reuse it.
 */
export function closeAfterAnswer(response: ServerResponse): void {
  response.shouldKeepAlive = false;
  response.once('finish', () => response.socket?.destroySoon());
}
