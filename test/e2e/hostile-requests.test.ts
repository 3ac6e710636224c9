import { connect } from 'node:net';
import { createDocumentClient } from '../../lambda/table/client';
import { hashApiKey } from '../../lambda/domain/api-key';
import { DEFAULT_TABLE_NAME } from '../../local/local-config';
import { Fixtures, prompt, version } from '../support/fixtures';
import { expectResponseMatchesOpenApi } from '../support/openapi';
import { RawConnection, type RawRequest, type RawResponse, requestBytes, sendRaw } from '../support/raw-http';
import { isRunning, type StackProcess, StackSet, temporaryFolder } from './support/processes';

/**
 * `npm start` spoken to as an attacker or a careless client would (docs/behaviour-rules.md,
 * "Names are data"): names the client chooses are data, one Authorization header at most, and
 * connections kept alive as long as a client keeps them. After every request the stack still answers.
 */

const ACCOUNT = 'hostile';
const stacks = new StackSet();
let stack: StackProcess;
let fixtures: Fixtures;
let client: ReturnType<typeof createDocumentClient>;
let removeDataDir: () => Promise<void>;
let apiKey: string;

beforeAll(async () => {
  const dataDir = await temporaryFolder('hostile');
  removeDataDir = dataDir.remove;
  stack = await stacks.start({ DATA_DIR: dataDir.path, SEED_FILE: '' });
  client = createDocumentClient({ region: 'us-east-1', endpoint: stack.storeUrl });
  fixtures = new Fixtures(client, DEFAULT_TABLE_NAME);
  await fixtures.account(ACCOUNT);
  await fixtures.prompts(ACCOUNT, prompt('welcome-email', [version('1.0.0')]));
  apiKey = await fixtures.apiKey(ACCOUNT);
}, 90_000);

afterAll(async () => {
  client?.destroy();
  await stacks.stopAll();
  await removeDataDir?.();
});

const thisMonth = () => new Date().toISOString().slice(0, 7);
const used = (key: string) => fixtures.admin.usage(hashApiKey(key), thisMonth());
const bearer = (key: string): [string, string] => ['Authorization', `Bearer ${key}`];

/** Sends the request and holds the answer to openapi.yaml, as every answer of the API is held. */
async function send(request: RawRequest): Promise<RawResponse> {
  const response = await sendRaw(stack.apiUrl, request);
  expectResponseMatchesOpenApi({
    method: request.method,
    path: request.target,
    status: response.status,
    headers: response.headers,
    body: response.body,
  });
  return response;
}

async function expectStillServing(): Promise<void> {
  expect(isRunning(stack.pid)).toBe(true);
  const response = await send({ method: 'GET', target: '/prompts/welcome-email', headers: [bearer(apiKey)] });
  expect(response.status).toBe(200);
}

describe('one GET no longer ends the service: names the client chooses are data', () => {
  test.each(['constructor=1', 'toString=1', 'valueOf=1', '__proto__=x', 'hasOwnProperty=1&hasOwnProperty=2'])(
    'GET /prompts/welcome-email?%s, with a key: 200, and the stack keeps serving',
    async (query) => {
      const response = await send({ method: 'GET', target: `/prompts/welcome-email?${query}`, headers: [bearer(apiKey)] });
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toMatchObject({ promptId: 'welcome-email', version: '1.0.0' });
      await expectStillServing();
    },
  );

  test.each(['constructor', 'toString', '__proto__', 'valueOf', 'isPrototypeOf'])(
    'a header named %s, with and without a key: answered, and the stack keeps serving',
    async (name) => {
      const withKey = await send({ method: 'GET', target: '/prompts/welcome-email', headers: [[name, 'x'], bearer(apiKey)] });
      expect(withKey.status).toBe(200);
      const withoutKey = await send({ method: 'GET', target: '/prompts/welcome-email', headers: [[name, 'x']] });
      expect(withoutKey.status).toBe(401);
      expect(JSON.parse(withoutKey.body)).toEqual({ error: 'Missing Authorization header', code: 'UNAUTHORIZED' });
      await expectStillServing();
    },
  );

  test('a version that is a prototype name is a bad version, not a crash', async () => {
    const response = await send({ method: 'GET', target: '/prompts/welcome-email?version=constructor', headers: [bearer(apiKey)] });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'BAD_REQUEST' });
  });
});

describe('two Authorization headers: 401 Invalid Authorization header format, never counted', () => {
  test.each([
    ['two keys of one account: neither is taken', (a: string, b: string) => [bearer(a), bearer(b)]],
    ['the same key twice', (a: string) => [bearer(a), bearer(a)]],
    ['the same key, the name in two cases', (a: string) => [bearer(a), ['authorization', `Bearer ${a}`] as [string, string]]],
  ])('%s', async (_, headers) => {
    const first = await fixtures.apiKey(ACCOUNT);
    const second = await fixtures.apiKey(ACCOUNT);
    const response = await send({ method: 'GET', target: '/prompts/welcome-email', headers: headers(first, second) });
    expect(response.status).toBe(401);
    expect(JSON.parse(response.body)).toEqual({ error: 'Invalid Authorization header format', code: 'UNAUTHORIZED' });
    expect(response.headers['www-authenticate']).toBe('Bearer realm="prompts"');
    expect(await used(first)).toBe(0);
    expect(await used(second)).toBe(0);
    // One header still works, and counts.
    expect((await send({ method: 'GET', target: '/prompts/welcome-email', headers: [bearer(second)] })).status).toBe(200);
    expect(await used(second)).toBe(1);
  });
});

describe('the embedded store, spoken to by a careless program on this machine: npm start keeps running', () => {
  // What the AWS SDK sends: dynalite checks the shape of the signature, not its value.
  const storeRequest = (body: string): RawRequest => ({
    method: 'POST',
    target: '/',
    headers: [
      ['Content-Type', 'application/x-amz-json-1.0'],
      ['X-Amz-Target', 'DynamoDB_20120810.GetItem'],
      ['Authorization', 'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00'],
      ['X-Amz-Date', '20260101T000000Z'],
    ],
    body: Buffer.from(body),
  });

  test.each(['null', '[]', '5', '"text"'])('a body of %s is 400 SerializationException', async (body) => {
    const response = await sendRaw(stack.storeUrl, storeRequest(body));

    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ __type: 'com.amazon.coral.service#SerializationException' });
    await expectStillServing();
  });

  test('a client that goes away in the middle of its body (a CLI stopped with Ctrl+C)', async () => {
    const { hostname, port, host } = new URL(stack.storeUrl);
    const socket = connect(Number(port), hostname);
    const { body, ...head } = storeRequest('{"TableName":');
    socket.write(requestBytes({ ...head, headers: [...head.headers, ['Content-Length', '1000']] }, host, { close: false }));
    socket.write(body ?? Buffer.alloc(0));
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 500));

    await expectStillServing();
  });
});

describe('connections outlive a burst', () => {
  test("a keep-alive connection idle for 6 s (past Node's default 5 s) is still open and is answered on reuse", async () => {
    const connection = await RawConnection.open(stack.apiUrl);
    try {
      const request: RawRequest = { method: 'GET', target: '/prompts/welcome-email', headers: [bearer(apiKey)] };
      const first = await connection.send(request);
      expect(first.status).toBe(200);
      expect(first.headers['keep-alive']).toMatch(/^timeout=(\d+)$/);
      expect(Number(/\d+/.exec(first.headers['keep-alive'] ?? '')?.[0])).toBeGreaterThanOrEqual(65);
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      expect(connection.isClosed).toBe(false);
      expect((await connection.send(request)).status).toBe(200);
    } finally {
      connection.close();
    }
  }, 30_000);

  // Last: it stops the stack.
  test('SIGTERM still stops the stack promptly while a client holds idle keep-alive connections', async () => {
    const connections = await Promise.all([1, 2, 3].map(() => RawConnection.open(stack.apiUrl)));
    for (const connection of connections) {
      expect((await connection.send({ method: 'GET', target: '/prompts', headers: [bearer(apiKey)] })).status).toBe(200);
    }
    const started = Date.now();
    const { code } = await stack.stop('SIGTERM');
    expect(code).toBe(0);
    // Far below the 65 s an idle connection is kept: stopping closes idle connections at once.
    expect(Date.now() - started).toBeLessThan(15_000);
    for (const connection of connections) connection.close();
  }, 30_000);
});
