import { connect as http2Connect, constants as http2 } from 'node:http2';
import { connect as tcpConnect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { readBody } from '../../../local/request-limits';
import { createDualProtocolServer, type DualProtocolServer } from '../../../local/model-stand-in/transport';
import { sendRaw } from '../../support/raw-http';

/**
 * One port for HTTP/1.1 and HTTP/2 (the SDK's default), under the request limits of every local server
 * (docs/security.md, "Local (`npm start`)"), here with short time limits so the test need not wait a minute.
 */

const TIMEOUTS = { headersMs: 300, requestMs: 600 };
let dual: DualProtocolServer;
let url: string;

beforeAll(async () => {
  dual = createDualProtocolServer((request, response) => {
    readBody(request, 1024).then(
      (body) => {
        response.writeHead(200, { 'Content-Type': 'text/plain' });
        response.end(`HTTP/${request.httpVersion} read ${body.length} bytes`);
      },
      () => undefined,
    );
  }, TIMEOUTS);
  await new Promise<void>((resolve) => dual.server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(dual.server.address() as AddressInfo).port}`;
});

afterAll(() => dual.close());

/** One POST over HTTP/2: its answer, or how its stream ended without one. */
function http2Post(body: string, end = true): Promise<{ status?: number; text?: string; rstCode?: number }> {
  return new Promise((resolve, reject) => {
    const session = http2Connect(url);
    session.on('error', reject);
    const stream = session.request({ ':method': 'POST', ':path': '/' });
    let status: number | undefined;
    let text = '';
    stream.on('response', (headers) => {
      status = Number(headers[':status']);
    });
    stream.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    stream.on('error', () => undefined);
    stream.on('close', () => {
      session.close();
      resolve(status === undefined ? { rstCode: stream.rstCode } : { status, text });
    });
    if (end) stream.end(body);
    else stream.write(body);
  });
}

test('one port answers HTTP/1.1 and HTTP/2 (with prior knowledge) through the same handler', async () => {
  const http1 = await sendRaw(url, { method: 'POST', target: '/', headers: [], body: Buffer.from('abc') });
  expect([http1.status, http1.body]).toEqual([200, 'HTTP/1.1 read 3 bytes']);
  expect(await http2Post('abcd')).toEqual({ status: 200, text: 'HTTP/2.0 read 4 bytes' });
});

test('a connection that says nothing is closed once the time for a request head is up', async () => {
  const started = performance.now();
  await new Promise<void>((resolve) => {
    const socket = tcpConnect(Number(new URL(url).port), '127.0.0.1');
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
  });
  expect(performance.now() - started).toBeGreaterThanOrEqual(TIMEOUTS.headersMs - 10);
});

test('over HTTP/2, a request whose body does not arrive in time is reset, unanswered', async () => {
  const started = performance.now();
  expect(await http2Post('{"messages": [', false)).toEqual({ rstCode: http2.NGHTTP2_CANCEL });
  expect(performance.now() - started).toBeGreaterThanOrEqual(TIMEOUTS.requestMs - 10);
});

test('over HTTP/1.1, a request whose body does not arrive in time gets Node’s 408 and the connection closes', async () => {
  const head = Buffer.from(`POST / HTTP/1.1\r\nHost: ${new URL(url).host}\r\nContent-Length: 100\r\n\r\n{"messages": [`);
  expect((await sendRaw(url, head)).status).toBe(408);
});
