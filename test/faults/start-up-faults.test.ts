/**
 * @run-alone it watches the order npm start comes up in, and a store fault at each step of it: another test file's CPU would stretch the steps past its waits.
 */
import { connect, createServer } from 'node:net';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../lambda/table/client';
import { keys, prefixes } from '../../lambda/table/schema';
import { type StackProcess, startStack, temporaryFolder } from '../e2e/support/processes';
import { type FaultProxy, startFaultProxy } from '../support/fault-proxy';
import { type StoreProcess, startStoreProcess } from '../support/store-process';

/**
 * `npm start` when the store fails while the demo user is made owner of the demo account (issue: it used to
 * stop entirely), and the order it comes up in: the read API answers only once the dashboard's side is ready.
 */

jest.setTimeout(120_000);

const TABLE = 'prompts-start-up';
const DEMO_ACCOUNT = 'acct_demo';
let store: StoreProcess;
let proxy: FaultProxy;
let removeDataDir: () => Promise<void>;
let dataDir: string;
const started: StackProcess[] = [];

beforeAll(async () => {
  const folder = await temporaryFolder('start-up-faults');
  removeDataDir = folder.remove;
  dataDir = folder.path;
  store = await startStoreProcess(`${folder.path}/store`);
  proxy = await startFaultProxy(store.endpoint);
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((stack) => stack.stop()));
  proxy.rule = () => 'pass';
});

afterAll(async () => {
  await proxy.close();
  await store.close();
  await removeDataDir();
});

/** Every store call about a membership: the demo user's, and nothing else at start-up. */
const isMembershipCall = (body: string) => body.includes('MEMBER#');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

async function demoUserOwns(): Promise<boolean> {
  const client = createDocumentClient({ region: 'us-east-1', endpoint: store.endpoint });
  try {
    const { Items } = await client.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :member)',
        ExpressionAttributeValues: { ':pk': keys.member(DEMO_ACCOUNT, '').pk, ':member': prefixes.members },
      }),
    );
    return (Items ?? []).some((item) => item.role === 'owner' && item.email === 'demo@example.com');
  } finally {
    client.destroy();
  }
}

const startOnStore = (env: Record<string, string> = {}) =>
  startStack({ DYNAMODB_ENDPOINT: proxy.endpoint, TABLE_NAME: TABLE, DATA_DIR: `${dataDir}/stack`, ...env }).then((stack) => {
    started.push(stack);
    return stack;
  });

test('a store that fails the first tries at the membership: npm start retries, and the demo user owns the demo account', async () => {
  let failures = 0;
  proxy.rule = (_, body) => (isMembershipCall(body) && failures++ < 4 ? 'throttle' : 'pass');
  const stack = await startOnStore({ DATA_DIR: `${dataDir}/retried` });
  expect(failures).toBeGreaterThan(0);
  expect(stack.output()).not.toContain('not yet an owner');
  expect(await demoUserOwns()).toBe(true);
});

test('a store that keeps failing it: npm start serves all the same, says so, and makes the membership once the store answers', async () => {
  let membershipCalls = 0;
  proxy.rule = (_, body) => {
    if (!isMembershipCall(body)) return 'pass';
    membershipCalls++;
    return 'throttle';
  };
  const port = await freePort();
  const starting = startOnStore({ DATA_DIR: `${dataDir}/pending`, PORT: String(port) });
  // While the dashboard's side is not ready, the read API does not answer either: by the time it first accepts a
  // connection, every try at the membership npm start makes before serving has been made (the next is 5 s after
  // the last). Counted at the store, not timed against the banner, which follows the read API by a moment.
  let callsWhenAccepting: number | undefined;
  while (callsWhenAccepting === undefined) {
    if (await accepts(port)) {
      callsWhenAccepting = membershipCalls;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const stack = await starting;
  const callsAtBanner = membershipCalls;
  expect(callsWhenAccepting).toBeGreaterThan(0);
  expect(callsWhenAccepting).toBe(callsAtBanner);
  expect(stack.output()).toContain('not yet an owner of the demo account');
  const demoKey = /Demo key\s+(\S+)/.exec(stack.output())?.[1] as string;
  expect((await fetch(`${stack.apiUrl}/prompts/welcome-email`, { headers: { Authorization: `Bearer ${demoKey}` } })).status).toBe(200);

  proxy.rule = () => 'pass';
  const deadline = Date.now() + 20_000;
  while (!stack.output().includes('now owns account') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  expect(stack.output()).toContain(`now owns account ${DEMO_ACCOUNT}`);
  expect(await demoUserOwns()).toBe(true);
});
