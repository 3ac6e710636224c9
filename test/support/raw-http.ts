import { connect, type Socket } from 'node:net';

/**
 * HTTP/1.1 over a plain socket: a request is exactly the bytes given, so a test can send what clients
 * such as fetch refuse to (the same header twice, names in two cases, names that are not tokens) and
 * read exactly what the server wrote back.
 */

export interface RawRequest {
  readonly method: string;
  /** The request target as sent: path and query, not encoded further. */
  readonly target: string;
  /** Name, value pairs in order; repeats and case variants are sent as given. */
  readonly headers: readonly (readonly [string, string])[];
  readonly body?: Buffer;
}

export interface RawResponse {
  readonly status: number;
  /** Header names in lower case; a repeated header's values joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** The request's bytes: headers as latin1, so a string of UTF-8 bytes goes out byte for byte. */
export function requestBytes(request: RawRequest, host: string, options: { close?: boolean } = {}): Buffer {
  const body = request.body ?? Buffer.alloc(0);
  const lines = [
    `${request.method} ${request.target} HTTP/1.1`,
    `Host: ${host}`,
    ...request.headers.map(([name, value]) => `${name}: ${value}`),
    ...(body.length > 0 ? [`Content-Length: ${body.length}`] : []),
    ...(options.close === false ? [] : ['Connection: close']),
  ];
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
}

/** One request on its own connection, read until the server closes it. */
export function sendRaw(baseUrl: string, request: RawRequest | Buffer, timeoutMs = 20_000): Promise<RawResponse> {
  const { hostname, port, host } = new URL(baseUrl);
  const bytes = Buffer.isBuffer(request) ? request : requestBytes(request, host);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(parseResponse(Buffer.concat(chunks), Buffer.isBuffer(request) ? undefined : request.method));
      } catch (error) {
        reject(error);
      }
    });
    // Written, not ended: node:http aborts a request whose client half-closes before the answer.
    // `Connection: close` has the server close once it has answered.
    socket.write(bytes);
  });
}

/** A connection kept open between requests, as a keep-alive client holds one. */
export class RawConnection {
  private buffered = Buffer.alloc(0);
  private closedBy: 'server' | 'error' | undefined;
  private waiter: (() => void) | undefined;

  private constructor(
    private readonly socket: Socket,
    private readonly host: string,
  ) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.waiter?.();
    });
    socket.on('end', () => this.closed('server'));
    socket.on('error', () => this.closed('error'));
    socket.on('close', () => this.closed('server'));
  }

  static open(baseUrl: string): Promise<RawConnection> {
    const { hostname, port, host } = new URL(baseUrl);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => resolve(new RawConnection(socket, host)));
      socket.once('error', reject);
    });
  }

  /** Whether the server has closed (or reset) the connection. */
  get isClosed(): boolean {
    return this.closedBy !== undefined;
  }

  async send(request: RawRequest, timeoutMs = 20_000): Promise<RawResponse> {
    if (this.closedBy) throw new Error(`the connection was closed (${this.closedBy}) before the request`);
    this.socket.write(requestBytes(request, this.host, { close: false }));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const complete = completeResponse(this.buffered, request.method === 'HEAD');
      if (complete) {
        this.buffered = this.buffered.subarray(complete.length);
        return complete.response;
      }
      if (this.closedBy) throw new Error(`the connection was closed (${this.closedBy}) before a complete answer`);
      if (Date.now() > deadline) throw new Error(`no complete answer within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
        setTimeout(resolve, 100);
      });
    }
  }

  close(): void {
    this.socket.destroy();
  }

  private closed(by: 'server' | 'error'): void {
    this.closedBy ??= by;
    this.waiter?.();
  }
}

function parseHead(head: string): { status: number; headers: Record<string, string> } {
  const [statusLine = '', ...lines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  if (!Number.isInteger(status)) throw new Error(`not an HTTP answer: ${JSON.stringify(statusLine.slice(0, 80))}`);
  const headers: Record<string, string> = Object.create(null);
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return { status, headers };
}

/** A whole answer at the start of `bytes` (Content-Length or chunked), and how many bytes it took. */
function completeResponse(bytes: Buffer, head = false): { response: RawResponse; length: number } | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const { status, headers } = parseHead(bytes.subarray(0, end).toString('latin1'));
  const start = end + 4;
  // An answer to HEAD carries the headers of a body, and no body.
  if (head || status === 204 || status === 304 || (status >= 100 && status < 200)) {
    return { response: { status, headers, body: '' }, length: start };
  }
  if (headers['transfer-encoding']?.toLowerCase() === 'chunked') {
    const decoded = dechunk(bytes.subarray(start));
    return decoded && { response: { status, headers, body: decoded.body.toString('utf8') }, length: start + decoded.length };
  }
  const length = Number(headers['content-length'] ?? 0);
  if (bytes.length - start < length) return undefined;
  return { response: { status, headers, body: bytes.subarray(start, start + length).toString('utf8') }, length: start + length };
}

function dechunk(bytes: Buffer): { body: Buffer; length: number } | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd === -1) return undefined;
    const size = Number.parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) throw new Error('a chunked answer with a bad chunk size');
    if (bytes.length < lineEnd + 2 + size + 2) return undefined;
    if (size === 0) return { body: Buffer.concat(parts), length: lineEnd + 4 };
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/** Everything a server wrote on a connection it then closed: exactly one answer. */
export function parseResponse(bytes: Buffer, method = 'GET'): RawResponse {
  if (bytes.length === 0) throw new Error('the server closed the connection without answering');
  const complete = completeResponse(bytes, method === 'HEAD');
  if (!complete) throw new Error(`an incomplete answer: ${JSON.stringify(bytes.toString('latin1').slice(0, 200))}`);
  return complete.response;
}
