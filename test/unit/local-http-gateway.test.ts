import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { createHttpGateway, type LambdaFunction } from '../../local/http-gateway';

/** The API Gateway stand-in: routing, the payload 2.0 event it builds, and how it writes results back. */

const received: { name: string; event: APIGatewayProxyEventV2 }[] = [];
let answer: (event: APIGatewayProxyEventV2) => Promise<unknown>;
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
    ],
    defaultFunction: recording('fallback'),
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
function send(method: string, path: string, headers: Record<string, string | string[]> = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>(
    (resolve, reject) => {
      const req = httpRequest(`${base}${path}`, { method, headers }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    },
  );
}

const lastEvent = () => {
  const last = received.at(-1);
  if (!last) throw new Error('no function was invoked');
  return last;
};

test.each([
  ['GET', '/prompts', 'listPrompts', 'GET /prompts'],
  ['GET', '/prompts/welcome', 'getPrompt', 'GET /prompts/{promptId}'],
  ['GET', '/prompts/', 'fallback', '$default'],
  ['GET', '/prompts/a/b', 'fallback', '$default'],
  ['POST', '/prompts', 'fallback', '$default'],
  ['OPTIONS', '/prompts/welcome', 'fallback', '$default'],
  ['GET', '/', 'fallback', '$default'],
])('%s %s goes to %s with routeKey %s', async (method, path, name, routeKey) => {
  await send(method, path);
  expect(lastEvent().name).toBe(name);
  expect(lastEvent().event.routeKey).toBe(routeKey);
  expect(lastEvent().event.requestContext.routeKey).toBe(routeKey);
});

test('the event is the HTTP API payload 2.0 the deployed gateway sends', async () => {
  await send('GET', '/prompts/caf%C3%A9?version=1.0.0&tag=a&tag=b&empty=', {
    Authorization: 'Bearer prs_example_key_123456',
    'X-Repeated': ['one', 'two'],
    Cookie: 'a=1; b=2',
  });

  const { event } = lastEvent();
  expect(event).toMatchObject({
    version: '2.0',
    rawPath: '/prompts/caf%C3%A9',
    rawQueryString: 'version=1.0.0&tag=a&tag=b&empty=',
    queryStringParameters: { version: '1.0.0', tag: 'a,b', empty: '' },
    pathParameters: { promptId: 'café' },
    cookies: ['a=1', 'b=2'],
    isBase64Encoded: false,
    requestContext: {
      stage: '$default',
      http: { method: 'GET', path: '/prompts/caf%C3%A9', sourceIp: '127.0.0.1', protocol: 'HTTP/1.1' },
    },
  });
  expect(event.headers).toMatchObject({ authorization: 'Bearer prs_example_key_123456', 'x-repeated': 'one,two' });
  expect(event.headers.cookie).toBeUndefined();
  expect(event.requestContext.requestId).toMatch(/^[0-9a-f-]{36}$/);
});

test('a request without a query has no queryStringParameters and no pathParameters off a parameter route', async () => {
  await send('GET', '/prompts');
  expect(lastEvent().event.queryStringParameters).toBeUndefined();
  expect(lastEvent().event.pathParameters).toBeUndefined();
});

test('the result is written back: status, every header, cookies as separate Set-Cookie lines, body', async () => {
  answer = async () => ({
    statusCode: 429,
    headers: { 'Content-Type': 'application/json', 'Retry-After': '60', 'X-RateLimit-Remaining': 0 },
    cookies: ['a=1', 'b=2; Path=/'],
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

test('a result without statusCode is a 200 JSON body, as API Gateway infers it', async () => {
  answer = async () => ({ hello: 'world' });
  const response = await send('GET', '/prompts');
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toBe('application/json');
  expect(JSON.parse(response.body)).toEqual({ hello: 'world' });
});

test('a function that throws is API Gateway\'s 500, and is reported', async () => {
  answer = async () => {
    throw new Error('boom');
  };
  const response = await send('GET', '/prompts/x');
  expect(response.status).toBe(500);
  expect(JSON.parse(response.body)).toEqual({ message: 'Internal Server Error' });
  expect(failures).toEqual(['getPrompt']);
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

describe('concurrency, as a deployed function has it', () => {
  let small: Server;
  let smallBase: string;
  let running = 0;
  let mostRunning = 0;
  let open: () => void = () => undefined;
  let gate = Promise.resolve();

  beforeAll(async () => {
    small = createHttpGateway({
      routes: [],
      defaultFunction: {
        name: 'fallback',
        handler: async () => {
          running += 1;
          mostRunning = Math.max(mostRunning, running);
          await gate;
          running -= 1;
          return { statusCode: 204 };
        },
      },
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

  test('a request beyond the line gets the service\'s own 503, in its JSON format and readable by a browser', async () => {
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
