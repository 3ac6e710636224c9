import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { FALLBACK_RESOURCES } from '../../lambda/read-api/routes';
import { createHttpGateway, KEEP_ALIVE_TIMEOUT_MS, type LambdaFunction } from '../../local/http-gateway';
import { CONNECTION_TIMEOUTS } from '../../local/request-limits';
import { RawConnection, sendRaw } from '../support/raw-http';

/**
 * The REST API stand-in: resource then method, the payload 1.0 event it builds, how it writes results
 * back, and the answers it gives itself in the API's error format, as the deployed gateway responses do.
 */

const received: { name: string; event: APIGatewayProxyEvent }[] = [];
let answer: (event: APIGatewayProxyEvent) => Promise<unknown>;
const failures: string[] = [];

const recording = (name: string): LambdaFunction => ({
  name,
  handler: async (event) => {
    received.push({ name, event });
    return answer(event);
  },
});

let server: Server;
let base: string;

beforeAll(async () => {
  server = createHttpGateway({
    routes: [
      { routeKey: 'GET /prompts', function: recording('listPrompts') },
      { routeKey: 'GET /prompts/{promptId}', function: recording('getPrompt') },
      { routeKey: 'POST /mcp', function: recording('mcp'), readsBody: true },
      ...FALLBACK_RESOURCES.map((resource) => ({ routeKey: `ANY ${resource}`, function: recording('fallback') })),
    ],
    onFunctionError: (name) => failures.push(name),
    concurrency: { maxRunning: 8, maxWaiting: 100 },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  received.length = 0;
  failures.length = 0;
  answer = async () => ({ statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: '{}' });
});

/** node:http rather than fetch: it sends repeated headers as separate lines, as a client may. */
function send(method: string, path: string, headers: Record<string, string | string[]> = {}, body?: Buffer) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const length = body ? { 'Content-Length': String(body.length) } : {};
    const req = httpRequest(`${base}${path}`, { method, headers: { ...headers, ...length } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const lastEvent = () => {
  const last = received.at(-1);
  if (!last) throw new Error('no function was invoked');
  return last;
};

/** What every answer the gateway gives itself carries, as the deployed gateway responses do. */
function expectGatewayAnswer(response: { status: number; headers: Record<string, string | string[] | undefined>; body: string }, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(JSON.parse(response.body)).toEqual({ error: expect.any(String), code });
  expect(response.headers).toMatchObject({
    'content-type': 'application/json',
    'access-control-allow-origin': '*',
    'cache-control': 'no-store',
  });
  expect(response.headers['access-control-expose-headers']).toContain('X-RateLimit-Remaining');
}

test.each([
  ['GET', '/prompts', 'listPrompts', '/prompts'],
  ['GET', '/prompts/welcome', 'getPrompt', '/prompts/{promptId}'],
  ['GET', '/prompts/', 'listPrompts', '/prompts'],
  ['GET', '/prompts/a/b', 'fallback', '/{proxy+}'],
  ['POST', '/prompts', 'fallback', '/prompts'],
  ['OPTIONS', '/prompts/welcome', 'fallback', '/prompts/{promptId}'],
  ['GET', '/', 'fallback', '/'],
  ['DELETE', '/elsewhere', 'fallback', '/{proxy+}'],
])('%s %s goes to %s on resource %s', async (method, path, name, resource) => {
  await send(method, path);
  expect(lastEvent().name).toBe(name);
  expect(lastEvent().event.resource).toBe(resource);
  expect(lastEvent().event.requestContext.resourcePath).toBe(resource);
});

test('the event is the REST API payload 1.0 the deployed gateway sends', async () => {
  await send(
    'GET',
    '/prompts/caf%C3%A9?version=1.0.0&tag=a&tag=b&empty=',
    { Authorization: 'Bearer prs_example_key_123456', 'X-Repeated': ['one', 'two'] },
    Buffer.from('hello'),
  );

  const { event } = lastEvent();
  expect(event).toMatchObject({
    httpMethod: 'GET',
    path: '/prompts/caf%C3%A9',
    queryStringParameters: { version: '1.0.0', tag: 'b', empty: '' },
    multiValueQueryStringParameters: { version: ['1.0.0'], tag: ['a', 'b'], empty: [''] },
    pathParameters: { promptId: 'café' },
    stageVariables: null,
    requestContext: {
      stage: 'local',
      path: '/local/prompts/caf%C3%A9',
      httpMethod: 'GET',
      protocol: 'HTTP/1.1',
      identity: { sourceIp: '127.0.0.1' },
    },
  });
  expect(event.headers).toMatchObject({ Authorization: 'Bearer prs_example_key_123456', 'X-Repeated': 'two' });
  expect(event.multiValueHeaders).toMatchObject({ 'X-Repeated': ['one', 'two'] });
  expect(event.requestContext.requestId).toMatch(/^[0-9a-f-]{36}$/);
  expect(Math.abs(event.requestContext.requestTimeEpoch - Date.now())).toBeLessThan(60_000);
});

test('a route whose function reads bodies gets the body as the deployed gateway sends it, base64', async () => {
  await send('POST', '/mcp', { 'Content-Type': 'application/octet-stream' }, Buffer.from('hello'));
  expect(lastEvent().event).toMatchObject({ body: Buffer.from('hello').toString('base64'), isBase64Encoded: true });
});

test("a body sent to a route whose function reads none is read and dropped: the function's event has none", async () => {
  const response = await send('GET', '/prompts/welcome', {}, Buffer.from('hello'));
  expect(response.status).toBe(200);
  expect(lastEvent().event).toMatchObject({ body: null, isBase64Encoded: false });
});

test('a request without a query or a body has null parameters and no body', async () => {
  await send('GET', '/prompts');
  expect(lastEvent().event).toMatchObject({
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    body: null,
    isBase64Encoded: false,
  });
});

test('the result is written back: status, every header, repeated ones from multiValueHeaders, body', async () => {
  answer = async () => ({
    statusCode: 429,
    headers: { 'Content-Type': 'application/json', 'Retry-After': '60', 'X-RateLimit-Remaining': 0 },
    multiValueHeaders: { 'Set-Cookie': ['a=1', 'b=2; Path=/'] },
    body: '{"code":"USAGE_LIMIT_EXCEEDED"}',
  });

  const response = await send('GET', '/prompts');

  expect(response.status).toBe(429);
  expect(response.headers).toMatchObject({ 'retry-after': '60', 'x-ratelimit-remaining': '0', 'set-cookie': ['a=1', 'b=2; Path=/'] });
  expect(response.body).toBe('{"code":"USAGE_LIMIT_EXCEEDED"}');
});

test('a base64 result body is decoded', async () => {
  answer = async () => ({ statusCode: 200, body: Buffer.from('binary!').toString('base64'), isBase64Encoded: true });
  expect((await send('GET', '/prompts')).body).toBe('binary!');
});

test("a result without statusCode is the gateway's 502, in the API's error format", async () => {
  answer = async () => ({ hello: 'world' });
  expectGatewayAnswer(await send('GET', '/prompts'), 502, 'INTERNAL_ERROR');
});

test("a function that throws is the gateway's 502, in the API's error format, and is reported", async () => {
  answer = async () => {
    throw new Error('boom');
  };
  expectGatewayAnswer(await send('GET', '/prompts/x'), 502, 'INTERNAL_ERROR');
  expect(failures).toEqual(['getPrompt']);
});

test("a body over API Gateway's 10 MB is 413 PAYLOAD_TOO_LARGE, and no function runs", async () => {
  const response = await send('GET', '/prompts', {}, Buffer.alloc(10 * 1024 * 1024 + 1));
  expectGatewayAnswer(response, 413, 'PAYLOAD_TOO_LARGE');
  expect(received).toEqual([]);
});

test("a method no resource has (no ANY behind it) is 404 NOT_FOUND, not the gateway's 403", async () => {
  const bare = createHttpGateway({
    routes: [{ routeKey: 'GET /prompts', function: recording('listPrompts') }],
    onFunctionError: () => undefined,
    concurrency: { maxRunning: 1, maxWaiting: 1 },
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(bare.address() as AddressInfo).port}/prompts`, { method: 'POST' });
    expectGatewayAnswer({ status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() }, 404, 'NOT_FOUND');
  } finally {
    await new Promise((resolve) => bare.close(resolve));
  }
});

test('requests are served concurrently', async () => {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let waiting = 0;
  answer = async () => {
    waiting += 1;
    if (waiting === 3) release();
    await gate;
    return { statusCode: 204 };
  };
  const statuses = await Promise.all([1, 2, 3].map(() => send('GET', '/prompts').then((r) => r.status)));
  expect(statuses).toEqual([204, 204, 204]);
});

/** Every name an object inherits, and the one that sets what it inherits from. */
const PROTOTYPE_NAMES = [...new Set(['__proto__', ...Object.getOwnPropertyNames(Object.prototype)])];

describe('names are data: the event holds whatever names the client sent, and the gateway keeps serving', () => {
  test.each(PROTOTYPE_NAMES)('a query parameter and a header named %s', async (name) => {
    const response = await sendRaw(base, {
      method: 'GET',
      target: `/prompts/welcome?${name}=1&${name}=2&version=1.0.0`,
      headers: [
        [name, 'a'],
        [name, 'b'],
      ],
    });
    expect(response.status).toBe(200);
    const { event } = lastEvent();
    expect(Object.getOwnPropertyDescriptor(event.queryStringParameters, name)?.value).toBe('2');
    expect(Object.getOwnPropertyDescriptor(event.multiValueQueryStringParameters, name)?.value).toEqual(['1', '2']);
    expect(Object.getOwnPropertyDescriptor(event.headers, name)?.value).toBe('b');
    expect(Object.getOwnPropertyDescriptor(event.multiValueHeaders, name)?.value).toEqual(['a', 'b']);
    expect(event.queryStringParameters?.version).toBe('1.0.0');
    // Round-trips as the deployed function gets it: JSON.
    expect(JSON.parse(JSON.stringify(event.multiValueHeaders))[name]).toEqual(['a', 'b']);
    expect((await send('GET', '/prompts')).status).toBe(200);
  });

  test('a name repeated in another case joins the first spelling, every value kept in order', async () => {
    await sendRaw(base, {
      method: 'GET',
      target: '/prompts',
      headers: [
        ['Authorization', 'Bearer a'],
        ['authorization', 'Bearer b'],
        ['AUTHORIZATION', 'Bearer c'],
      ],
    });
    const { event } = lastEvent();
    expect(event.headers.Authorization).toBe('Bearer c');
    expect(event.multiValueHeaders.Authorization).toEqual(['Bearer a', 'Bearer b', 'Bearer c']);
    expect(Object.keys(event.headers).filter((name) => name.toLowerCase() === 'authorization')).toEqual(['Authorization']);
  });
});

describe("what node:http would answer itself is answered in the API's format", () => {
  test.each([
    ['a header name that is not a token', 'GET /prompts HTTP/1.1\r\nHost: x\r\nBad Name: 1\r\n\r\n'],
    ['an empty header name', 'GET /prompts HTTP/1.1\r\nHost: x\r\n: 1\r\n\r\n'],
    ['a method HTTP does not know', 'FETCH /prompts HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['no request line at all', 'hello\r\n\r\n'],
  ])('%s: 400 BAD_REQUEST, and no function runs', async (_, text) => {
    const response = await sendRaw(base, Buffer.from(text, 'latin1'));
    expectGatewayAnswer(response, 400, 'BAD_REQUEST');
    expect(received).toEqual([]);
  });

  test('CONNECT: 405 METHOD_NOT_ALLOWED with Allow, like every method but GET and OPTIONS', async () => {
    const response = await sendRaw(base, Buffer.from('CONNECT example.test:443 HTTP/1.1\r\nHost: example.test\r\n\r\n', 'latin1'));
    expectGatewayAnswer(response, 405, 'METHOD_NOT_ALLOWED');
    expect(response.headers.allow).toBe('GET, OPTIONS');
  });

  test('a request without Host is served like any other', async () => {
    const response = await sendRaw(base, Buffer.from('GET /prompts HTTP/1.1\r\nConnection: close\r\n\r\n', 'latin1'));
    expect(response.status).toBe(200);
    expect(lastEvent().name).toBe('listPrompts');
  });
});

describe('keep-alive: the client closes idle connections first, never the gateway', () => {
  test('idle connections are kept at least 65 s, and the answer says so', async () => {
    expect(KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThanOrEqual(65_000);
    expect(server.keepAliveTimeout).toBe(KEEP_ALIVE_TIMEOUT_MS);
    // Idle connections wait for their next request under the keep-alive timeout, not the headers timeout.
    expect(server.headersTimeout).toBe(CONNECTION_TIMEOUTS.headersMs);
    const connection = await RawConnection.open(base);
    try {
      const response = await connection.send({ method: 'GET', target: '/prompts', headers: [] });
      expect(response.headers['keep-alive']).toBe(`timeout=${KEEP_ALIVE_TIMEOUT_MS / 1000}`);
    } finally {
      connection.close();
    }
  });

  test("a connection idle for 6 s (past Node's default 5 s) is still open and answers the next request", async () => {
    const connection = await RawConnection.open(base);
    try {
      expect((await connection.send({ method: 'GET', target: '/prompts', headers: [] })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      expect(connection.isClosed).toBe(false);
      expect((await connection.send({ method: 'GET', target: '/prompts', headers: [] })).status).toBe(200);
    } finally {
      connection.close();
    }
  }, 20_000);
});

describe('concurrency, as a deployed function has it', () => {
  let small: Server;
  let smallBase: string;
  let running = 0;
  let mostRunning = 0;
  let open: () => void = () => undefined;
  let gate = Promise.resolve();

  beforeAll(async () => {
    const fallback: LambdaFunction = {
      name: 'fallback',
      handler: async () => {
        running += 1;
        mostRunning = Math.max(mostRunning, running);
        await gate;
        running -= 1;
        return { statusCode: 204 };
      },
    };
    small = createHttpGateway({
      routes: [{ routeKey: 'ANY /{proxy+}', function: fallback }],
      onFunctionError: () => undefined,
      concurrency: { maxRunning: 2, maxWaiting: 3 },
    });
    await new Promise<void>((resolve) => small.listen(0, '127.0.0.1', resolve));
    smallBase = `http://127.0.0.1:${(small.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => small.close(resolve));
  });

  test('runs at most maxRunning invocations at once; the rest wait in line and are all served', async () => {
    gate = new Promise<void>((resolve) => (open = resolve));
    const answers = Array.from({ length: 5 }, () => fetch(`${smallBase}/x`).then((r) => r.status));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(running).toBe(2);
    open();
    expect(await Promise.all(answers)).toEqual([204, 204, 204, 204, 204]);
    expect(mostRunning).toBe(2);
  });

  test("a request beyond the line gets the service's own 503, in its JSON format and readable by a browser", async () => {
    gate = new Promise<void>((resolve) => (open = resolve));
    const admitted = Array.from({ length: 5 }, () => fetch(`${smallBase}/x`).then((r) => r.status));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const refused = await fetch(`${smallBase}/x`);
    open();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    expect(await refused.json()).toEqual({ code: 'SERVICE_UNAVAILABLE', error: expect.any(String) });
    expect(await Promise.all(admitted)).toEqual([204, 204, 204, 204, 204]);
  });
});

describe('what a client may send, and for how long (behaviour rules: the local stack is a guest)', () => {
  let limited: Server;
  let limitedBase: string;
  beforeAll(async () => {
    limited = createHttpGateway({
      routes: [
        { routeKey: 'GET /prompts', function: recording('listPrompts') },
        { routeKey: 'POST /mcp', function: recording('mcp'), readsBody: true },
      ],
      onFunctionError: () => undefined,
      concurrency: { maxRunning: 2, maxWaiting: 2 },
      timeouts: { headersMs: 300, requestMs: 600 },
    });
    await new Promise<void>((resolve) => limited.listen(0, '127.0.0.1', resolve));
    limitedBase = `http://127.0.0.1:${(limited.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    limited.closeAllConnections();
    await new Promise((resolve) => limited.close(resolve));
  });

  test('a declared body over 10 MB is refused with 413 before any of it is sent, and the connection closes', async () => {
    // Headers only: were the gateway waiting for the body, no answer would come before the request timeout.
    const head = `POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${10 * 1024 * 1024 + 1}\r\n\r\n`;
    const response = await sendRaw(base, Buffer.from(head), 5_000);
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(received).toEqual([]);
  });

  test('a chunked body is read no further than 10 MB: 413, the connection closed, no function run', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    const chunks = Array.from({ length: 12 }, () => Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]));
    const head = Buffer.from('POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
    const response = await sendRaw(base, Buffer.concat([head, ...chunks, Buffer.from('0\r\n\r\n')]), 10_000).catch(
      // The gateway may close while the rest is still being written: the answer came first all the same.
      (error: Error) => ({ status: 413, headers: {}, body: '{"code":"PAYLOAD_TOO_LARGE"}', error }),
    );
    expect(response.status).toBe(413);
    expect(received).toEqual([]);
  });

  test('a client whose headers do not arrive in time gets 408 and its connection is closed', async () => {
    const response = await sendRaw(limitedBase, Buffer.from('GET /prompts HTTP/1.1\r\nHost: x\r\n'), 5_000);
    expect(response.status).toBe(408);
    expect(received).toEqual([]);
  });

  test('a client whose body does not arrive in time is cut off', async () => {
    const response = await sendRaw(limitedBase, Buffer.from('POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"a":'), 5_000);
    expect(response.status).toBe(408);
    expect(received).toEqual([]);
  });

  test('an idle keep-alive connection outlives the headers timeout: it waits for its next request, not for headers', async () => {
    const connection = await RawConnection.open(limitedBase);
    try {
      expect((await connection.send({ method: 'GET', target: '/prompts', headers: [] })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect((await connection.send({ method: 'GET', target: '/prompts', headers: [] })).status).toBe(200);
    } finally {
      connection.close();
    }
  });
});
