import { StackSet, type StackProcess, temporaryFolder } from './support/processes';
import { signIn } from '../support/oauth-sign-in';
import { type Receiver, signaturesMadeWith, startReceiver } from '../webhooks/receiver';

/**
 * `npm start` delivers events (docs/local-stack.md "Events and webhooks"): a webhook made through the management
 * API, pointed at a receiver on 127.0.0.1, gets each change once, signed, by the deployed dispatcher and delivery code.
 */

const stacks = new StackSet();
let dataDir: { path: string; remove(): Promise<void> };
let stack: StackProcess;
let receiver: Receiver;

beforeAll(async () => {
  dataDir = await temporaryFolder('events-e2e');
  receiver = await startReceiver();
  stack = await stacks.start({ DATA_DIR: `${dataDir.path}/data` });
}, 60_000);

afterAll(async () => {
  await stacks.stopAll();
  await receiver.close();
  await dataDir.remove();
});

async function managementApi(): Promise<(path: string, init?: RequestInit) => Promise<Response>> {
  const printed = /Sign in as (\S+) with password (\S+)/.exec(stack.output());
  const config = (await (await fetch(`${stack.dashboardUrl}/config.json`)).json()) as { authorizeUrl: string; tokenUrl: string; clientId: string };
  const idToken = await signIn({ ...config, redirectUri: `${stack.dashboardUrl}/` }, printed?.[1] ?? '', printed?.[2] ?? '');
  return (path, init = {}) =>
    fetch(`${stack.dashboardUrl}/api${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${idToken}`, 'Content-Type': 'application/json', ...init.headers },
    });
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('npm start with a webhook on a loopback receiver', () => {
  it('says it reads and delivers events every second', () => {
    expect(stack.output()).toMatch(/^\s*Events\s+read every 1 s and delivered to webhooks/m);
  });

  it('delivers a change to the webhook once, signed with the secret its creation answered', async () => {
    const api = await managementApi();
    const created = await api('/accounts/acct_demo/webhooks', {
      method: 'POST',
      body: JSON.stringify({ url: `http://127.0.0.1:${receiver.port}/hooks`, events: ['key.created'] }),
    });
    expect(created.status).toBe(201);
    const { secret } = (await created.json()) as { secret: string };

    expect((await api('/accounts/acct_demo/keys', { method: 'POST', body: JSON.stringify({ name: 'announced' }) })).status).toBe(201);

    await until(() => receiver.received.length > 0, 15_000);
    // Three more polls: the event is not sent again.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    if (!request) throw new Error('no request');
    expect(JSON.parse(request.body)).toMatchObject({ type: 'key.created', accountId: 'acct_demo', data: { name: 'announced' } });
    expect(request.headers['webhook-id']).toBe(JSON.parse(request.body).id);
    expect(signaturesMadeWith(secret, request)).toBe(1);
  }, 40_000);
});
