import { createServer as createHttp1Server, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { constants as http2, createServer as createHttp2Server, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { Socket } from 'node:net';
import { CONNECTION_TIMEOUTS, type ConnectionTimeouts, serverOptions } from '../request-limits';

/**
 * One port that speaks HTTP/1.1 and HTTP/2 over plain TCP. AWS's BedrockRuntimeClient sends every call over
 * HTTP/2 (its default handler), with prior knowledge on an `http://` endpoint: no upgrade, just HTTP/2's
 * preface. curl and clients given an HTTP/1.1 handler speak HTTP/1.1. The first bytes of a connection say
 * which it is; both kinds reach the same handler through Node's compatibility API.
 *
 * The request limits of every local server hold on both (request-limits.ts): HTTP/1.1's by Node's own
 * timeouts; HTTP/2's by an idle timeout on the connection and a deadline on each request's body.
 */

export type StandInRequest = IncomingMessage | Http2ServerRequest;
export type StandInResponse = ServerResponse | Http2ServerResponse;
export type StandInHandler = (request: StandInRequest, response: StandInResponse) => void;

export interface DualProtocolServer {
  /** The server that listens (Node's HTTP/1.1 server, which hands HTTP/2 connections on). */
  readonly server: Server;
  /** Stops listening and ends every connection, whichever protocol. */
  close(): Promise<void>;
}

const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
/**
 * How long a connection may sit idle: as long as the other local servers keep theirs (65 s), longer than
 * clients keep theirs, and longer than the stand-in's own longest silence (SLOW: 30 s).
 */
const IDLE_CONNECTION_MS = 65_000;

export function createDualProtocolServer(handler: StandInHandler, timeouts: ConnectionTimeouts = CONNECTION_TIMEOUTS): DualProtocolServer {
  const http1 = createHttp1Server(serverOptions(timeouts), handler);
  http1.keepAliveTimeout = IDLE_CONNECTION_MS;
  const http2Server = createHttp2Server({}, (request, response) => {
    bodyDeadline(request, timeouts.requestMs);
    handler(request, response);
  });
  http2Server.on('session', (session) => {
    session.setTimeout(IDLE_CONNECTION_MS, () => session.destroy());
  });
  // A peer's protocol error ends its own session; nothing more to do.
  http2Server.on('sessionError', () => undefined);

  const sockets = new Set<Socket>();
  const http1Connection = http1.listeners('connection') as ((socket: Socket) => void)[];
  http1.removeAllListeners('connection');
  http1.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.setNoDelay(true);
    protocolOf(socket, timeouts.headersMs, (protocol) => {
      if (protocol === 'http2') {
        http2Server.emit('connection', socket);
        return;
      }
      for (const listener of http1Connection) listener.call(http1, socket);
      socket.resume();
    });
  });

  return {
    server: http1,
    close: () =>
      new Promise<void>((resolve, reject) => {
        http1.close((error) => (error ? reject(error) : resolve()));
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/**
 * Reads the first bytes until they are HTTP/2's preface or cannot be, then puts them back for the server
 * that takes the connection. A connection that says nothing in time is closed.
 */
function protocolOf(socket: Socket, timeoutMs: number, then: (protocol: 'http1' | 'http2') => void): void {
  let seen = Buffer.alloc(0);
  const silent = setTimeout(() => socket.destroy(), timeoutMs);
  const onData = (chunk: Buffer) => {
    seen = Buffer.concat([seen, chunk]);
    const compared = Math.min(seen.length, HTTP2_PREFACE.length);
    const http2Preface = seen.subarray(0, compared).equals(HTTP2_PREFACE.subarray(0, compared));
    if (http2Preface && seen.length < HTTP2_PREFACE.length) return;
    clearTimeout(silent);
    socket.off('data', onData);
    socket.off('close', onClose);
    socket.pause();
    socket.unshift(seen);
    then(http2Preface ? 'http2' : 'http1');
  };
  const onClose = () => clearTimeout(silent);
  socket.on('data', onData);
  socket.once('close', onClose);
}

/** An HTTP/2 request whose body has not arrived in time is reset, as Node ends such an HTTP/1.1 request. */
function bodyDeadline(request: Http2ServerRequest, requestMs: number): void {
  if (request.complete) return;
  const deadline = setTimeout(() => {
    if (!request.complete && !request.stream.closed) request.stream.close(http2.NGHTTP2_CANCEL);
  }, requestMs);
  const done = () => clearTimeout(deadline);
  request.once('end', done);
  request.once('close', done);
}
