import { readFileSync } from 'node:fs';
import type { Server } from 'node:https';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { ATTEMPT_TIMEOUT_MS } from '../../lambda/webhook-delivery/delivery-job';
import type { Destination } from '../../lambda/webhook-delivery/destination';
import { type SignedPost, sendOnce, USER_AGENT } from '../../lambda/webhook-delivery/sender';
import { generateSecret, sign, verify } from '../../lambda/webhook-delivery/signature';
import { closedPort, type Receiver, startReceiver } from './receiver';

/** Every destination here is 127.0.0.1: the name in the URL is only what the request says it is for. */
function loopback(port: number, host = '127.0.0.1', path = '/hook'): Destination {
  return { url: new URL(`http://${host}:${port}${path}`), host, port, address: '127.0.0.1', family: 4 };
}

const secret = generateSecret();
const body = JSON.stringify({ id: 'evt_20261127054200123_1a2b3c4d', type: 'webhook.test', data: { webhookId: 'wh_0123456789abcdef' } });
const timestamp = Math.floor(Date.now() / 1000);

function delivery(destination: Destination): SignedPost {
  const id = 'evt_20261127054200123_1a2b3c4d';
  return {
    destination,
    body,
    headers: { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': sign({ id, timestamp, body }, [secret]) },
  };
}

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

test('a 2xx is delivered: a JSON POST with the Standard Webhooks headers that verifies with the secret', async () => {
  receiver = await startReceiver((_, response) => response.writeHead(204).end());
  const outcome = await sendOnce()(delivery(loopback(receiver.port)));
  expect(outcome).toMatchObject({ delivered: true, status: 204 });
  expect(outcome.error).toBeUndefined();
  const [request] = receiver.received;
  expect(request).toMatchObject({ method: 'POST', url: '/hook', body });
  expect(request?.headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': USER_AGENT, 'webhook-id': 'evt_20261127054200123_1a2b3c4d' });
  const headers = request?.headers ?? {};
  expect(() =>
    verify(
      {
        id: String(headers['webhook-id']),
        timestamp: String(headers['webhook-timestamp']),
        signature: String(headers['webhook-signature']),
        body: request?.body ?? '',
      },
      secret,
    ),
  ).not.toThrow();
});

test('the connection goes to the checked address whatever the name, which the request still names', async () => {
  receiver = await startReceiver();
  const outcome = await sendOnce()(
    delivery({ ...loopback(0), url: new URL('http://rebinding.example.com/in?x=1'), host: 'rebinding.example.com', port: receiver.port }),
  );
  expect(outcome.delivered).toBe(true);
  expect(receiver.received[0]?.headers.host).toBe(`rebinding.example.com:${receiver.port}`);
  expect(receiver.received[0]?.url).toBe('/in?x=1');
});

test('a redirect is not followed: one request, a failed attempt with its status', async () => {
  receiver = await startReceiver((_, response) => response.writeHead(302, { location: `http://127.0.0.1:${receiver?.port}/elsewhere` }).end());
  const outcome = await sendOnce()(delivery(loopback(receiver.port)));
  expect(outcome).toMatchObject({ delivered: false, status: 302, error: 'the receiver answered 302: redirects are not followed' });
  expect(receiver.received.map((request) => request.url)).toEqual(['/hook']);
});

test.each([400, 410, 500, 503])('a %i is a failed attempt with that status', async (status) => {
  receiver = await startReceiver((_, response) => response.writeHead(status).end('no'));
  expect(await sendOnce()(delivery(loopback(receiver.port)))).toMatchObject({ delivered: false, status, error: `the receiver answered ${status}` });
});

test('a refused connection has no status', async () => {
  const outcome = await sendOnce()(delivery(loopback(await closedPort())));
  expect(outcome).toMatchObject({ delivered: false, status: null, error: 'connection refused' });
});

test('a receiver that never answers is a failed attempt with no status once the time is up', async () => {
  receiver = await startReceiver(() => undefined);
  const outcome = await sendOnce({ timeoutMs: 200 })(delivery(loopback(receiver.port)));
  expect(outcome).toMatchObject({ delivered: false, status: null, error: 'no answer within 0.2 s' });
  expect(outcome.durationMs).toBeGreaterThanOrEqual(190);
});

test('the time allowed is ATTEMPT_TIMEOUT_MS, 10 s, by default', async () => {
  receiver = await startReceiver(() => undefined);
  jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'performance'] });
  try {
    let settled = false;
    const attempt = sendOnce()(delivery(loopback(receiver.port))).finally(() => {
      settled = true;
    });
    while (receiver.received.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await jest.advanceTimersByTimeAsync(ATTEMPT_TIMEOUT_MS - 1);
    expect(settled).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(await attempt).toMatchObject({ delivered: false, status: null, error: 'no answer within 10 s' });
  } finally {
    jest.useRealTimers();
  }
  expect(ATTEMPT_TIMEOUT_MS).toBe(10_000);
});

test('an answer whose body never ends is settled by its status once a few KB are read', async () => {
  receiver = await startReceiver((_, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.write('x'.repeat(64 * 1024));
  });
  const outcome = await sendOnce({ timeoutMs: 5_000 })(delivery(loopback(receiver.port)));
  expect(outcome).toMatchObject({ delivered: true, status: 200 });
  expect(outcome.durationMs).toBeLessThan(5_000);
});

describe('over TLS, to a receiver on loopback that holds a certificate for hooks.example.test', () => {
  let tls: { server: Server; port: number; servernames: (string | false | null)[]; ca: string };

  beforeAll(async () => {
    // A throwaway pair made once with openssl and kept here (100 years), so the tests need no openssl on the machine.
    const key = join(__dirname, 'fixtures', 'hooks.example.test.key.pem');
    const cert = join(__dirname, 'fixtures', 'hooks.example.test.cert.pem');
    const servernames: (string | false | null)[] = [];
    const server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (request, response) => {
      servernames.push((request.socket as TLSSocket).servername);
      request.resume().on('end', () => response.writeHead(200).end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    tls = { server, port: (server.address() as AddressInfo).port, servernames, ca: readFileSync(cert, 'utf8') };
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => tls.server.close(() => resolve()));
  });

  const pinned = (host: string): Destination => ({ url: new URL(`https://${host}:${tls.port}/hook`), host, port: tls.port, address: '127.0.0.1', family: 4 });

  test('connects to the pinned address, giving the name as SNI and checking the certificate against it', async () => {
    expect(await sendOnce({ ca: tls.ca })(delivery(pinned('hooks.example.test')))).toMatchObject({ delivered: true, status: 200 });
    expect(tls.servernames).toEqual(['hooks.example.test']);
  });

  test('a certificate for another name than the URL’s fails the attempt, with no status', async () => {
    const outcome = await sendOnce({ ca: tls.ca })(delivery(pinned('other.example.test')));
    expect(outcome).toMatchObject({ delivered: false, status: null, error: 'TLS failed (ERR_TLS_CERT_ALTNAME_INVALID)' });
  });

  test('a certificate no trusted authority signed fails the attempt', async () => {
    const outcome = await sendOnce()(delivery(pinned('hooks.example.test')));
    expect(outcome).toMatchObject({ delivered: false, status: null, error: expect.stringMatching(/^TLS failed/) });
  });
});
