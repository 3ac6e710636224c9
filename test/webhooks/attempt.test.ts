import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import type { EventBody, EventType } from '../../lambda/domain/events';
import { listDeliveries } from '../../lambda/table/deliveries';
import type { WebhookItem, WithKeys } from '../../lambda/table/item-types';
import { keys } from '../../lambda/table/schema';
import { Table } from '../../lambda/table/table';
import {
  type AttemptDependencies,
  attemptDelivery as runAttempt,
  CUT_OFF_ERROR,
  nextDelay,
  UnrecordedAttemptError,
} from '../../lambda/webhook-delivery/attempt';
import type { DeliveryJob } from '../../lambda/webhook-delivery/delivery-job';
import { checkUrl, type Resolve } from '../../lambda/webhook-delivery/destination';
import { LocalSecretSealer } from '../../lambda/webhook-delivery/secret-sealer';
import type { SignedPost, Send } from '../../lambda/webhook-delivery/sender';
import { generateSecret } from '../../lambda/webhook-delivery/signature';
import { capturedLogRecords } from '../support/log-capture';
import { type LocalStore, startLocalStore } from '../support/local-store';
import { closedPort, type Receiver, signaturesMadeWith, startReceiver } from './receiver';

const ACCOUNT = 'acme';
const NOW = new Date('2026-11-27T05:42:00.000Z');
const sealer = new LocalSecretSealer(LocalSecretSealer.generateKey());

let store: LocalStore;
let table: Table;
let receiver: Receiver;

beforeAll(async () => {
  store = await startLocalStore();
  table = new Table(store.client, store.tableName, () => NOW);
});
afterAll(() => store.close());
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(() => receiver.close());

/** No DNS: a name resolves as the test says, and it is an error to ask for any other. */
const resolvesTo =
  (...answers: string[][]): Resolve =>
  async (host) => {
    const addresses = answers.length > 1 ? answers.shift() : answers[0];
    if (!addresses) throw new Error(`no stub answer for ${host}`);
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
const noDns: Resolve = async (host) => {
  throw new Error(`unexpected lookup of ${host}`);
};

/** A POST that is never made: it records where it would have gone and answers 200. */
function recordingSend(): Send & { calls: SignedPost[] } {
  const calls: SignedPost[] = [];
  const send: Send = async (delivery) => {
    calls.push(delivery);
    return { delivered: true, status: 200, durationMs: 1 };
  };
  return Object.assign(send, { calls });
}

let webhookCount = 0;
/** A webhook in the store with its secrets sealed; each test its own, so their delivery logs are apart. */
async function putWebhook(options: Partial<WebhookItem> & { plainSecrets?: { secret: string; expiresAt?: string }[] } = {}): Promise<WebhookItem> {
  webhookCount += 1;
  const webhookId = options.webhookId ?? `wh_${webhookCount.toString(16).padStart(16, '0')}`;
  const plainSecrets = options.plainSecrets ?? [{ secret: generateSecret() }];
  const item: WithKeys<WebhookItem> = {
    ...keys.webhook(ACCOUNT, webhookId),
    type: 'webhook',
    accountId: ACCOUNT,
    webhookId,
    url: options.url ?? `http://127.0.0.1:${receiver.port}/hook`,
    events: options.events ?? ['*'],
    enabled: options.enabled ?? true,
    description: null,
    createdAt: NOW.toISOString(),
    createdBy: 'ana@example.com',
    updatedAt: NOW.toISOString(),
    secrets: await Promise.all(
      plainSecrets.map(async ({ secret, expiresAt }) => ({
        sealed: await sealer.seal(secret),
        createdAt: NOW.toISOString(),
        ...(expiresAt ? { expiresAt } : {}),
      })),
    ),
    revision: 1,
  };
  await table.put('putWebhook', { Item: item });
  return item;
}

function job(webhook: Pick<WebhookItem, 'webhookId'>, type: EventType = 'prompt.label.moved', attempt = 1): DeliveryJob {
  const event: EventBody = {
    id: 'evt_20261127054200123_1a2b3c4d',
    type,
    time: NOW.toISOString(),
    accountId: ACCOUNT,
    actor: { type: 'user', email: 'ana@example.com' },
    data: type === 'webhook.test' ? { webhookId: webhook.webhookId } : { promptId: 'welcome-email', label: 'production', from: '1.0.0', to: '1.1.0' },
  };
  return { accountId: ACCOUNT, webhookId: webhook.webhookId, event, attempt };
}

/** What an attempt came to: the made attempt's outcome (with its line's time and id), or why nothing was sent. */
async function attemptDelivery(j: DeliveryJob, deps: AttemptDependencies) {
  const result = await runAttempt(j, deps);
  if (result.kind === 'held') throw new Error('the attempt is held by another run');
  return result.kind === 'made' ? result.made : result.outcome;
}

const local = (extra: Partial<Parameters<typeof attemptDelivery>[1]> = {}) => ({
  table,
  sealer,
  resolve: noDns,
  mode: 'local' as const,
  now: () => NOW,
  ...extra,
});
const deployed = (resolve: Resolve, extra: Partial<Parameters<typeof attemptDelivery>[1]> = {}) => ({ ...local(extra), resolve, mode: 'deployed' as const });

describe('an attempt that is sent', () => {
  test('posts the event signed with the current secret and logs a delivered attempt', async () => {
    const secret = generateSecret();
    const webhook = await putWebhook({ plainSecrets: [{ secret }] });
    const outcome = await attemptDelivery(job(webhook), local());
    expect(outcome).toMatchObject({ delivered: true, status: 200 });
    const [request] = receiver.received;
    expect(request && JSON.parse(request.body)).toEqual(job(webhook).event);
    expect(request?.headers['webhook-id']).toBe('evt_20261127054200123_1a2b3c4d');
    expect(request?.headers['webhook-timestamp']).toBe(String(NOW.getTime() / 1000));
    expect(request && signaturesMadeWith(secret, request)).toBe(1);
    expect(await listDeliveries(table, ACCOUNT, webhook.webhookId)).toEqual([
      {
        deliveryId: expect.stringMatching(/^dlv_20261127054200000_[0-9a-f]{8}$/),
        eventId: job(webhook).event.id,
        type: 'prompt.label.moved',
        attempt: 1,
        at: NOW.toISOString(),
        status: 200,
        durationMs: outcome.durationMs,
      },
    ]);
  });

  test('during a rotation it is signed with both secrets, each verifying on its own', async () => {
    const [current, retired] = [generateSecret(), generateSecret()];
    const webhook = await putWebhook({ plainSecrets: [{ secret: current }, { secret: retired, expiresAt: '2026-11-28T05:00:00.000Z' }] });
    await attemptDelivery(job(webhook), local());
    const [request] = receiver.received;
    expect(String(request?.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(request && signaturesMadeWith(current, request)).toBe(1);
    expect(request && signaturesMadeWith(retired, request)).toBe(1);
  });

  test('a retired secret past its end no longer signs', async () => {
    const [current, retired] = [generateSecret(), generateSecret()];
    const webhook = await putWebhook({ plainSecrets: [{ secret: current }, { secret: retired, expiresAt: '2026-11-27T05:00:00.000Z' }] });
    await attemptDelivery(job(webhook), local());
    const [request] = receiver.received;
    expect(String(request?.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(request && signaturesMadeWith(current, request)).toBe(1);
    expect(request && signaturesMadeWith(retired, request)).toBe(0);
  });

  test('a failed answer is logged with its status and retried (not final)', async () => {
    await receiver.close();
    receiver = await startReceiver((_, response) => response.writeHead(503).end());
    const webhook = await putWebhook();
    const outcome = await attemptDelivery(job(webhook, 'prompt.created', 3), local());
    expect(outcome).toMatchObject({ delivered: false, status: 503, error: 'the receiver answered 503' });
    expect(outcome.final).toBeUndefined();
    expect(await listDeliveries(table, ACCOUNT, webhook.webhookId)).toMatchObject([{ attempt: 3, status: 503, error: 'the receiver answered 503' }]);
  });

  test('a refused connection is logged with no status', async () => {
    const webhook = await putWebhook({ url: `http://127.0.0.1:${await closedPort()}/hook` });
    expect(await attemptDelivery(job(webhook), local())).toMatchObject({ delivered: false, status: null, error: 'connection refused' });
    expect(await listDeliveries(table, ACCOUNT, webhook.webhookId)).toMatchObject([{ status: null, error: 'connection refused' }]);
  });

  test('webhook.test goes to its own webhook whatever its events, even disabled', async () => {
    const webhook = await putWebhook({ events: ['prompt.created'], enabled: false });
    expect(await attemptDelivery(job(webhook, 'webhook.test'), local())).toMatchObject({ delivered: true, status: 200 });
    expect(receiver.received).toHaveLength(1);
  });
});

describe('an attempt that is not sent, nor logged, and final', () => {
  test.each<[string, Partial<WebhookItem> | undefined, string]>([
    ['deleted', undefined, 'the webhook was deleted'],
    ['disabled', { enabled: false }, 'the webhook is disabled'],
    ['no longer taking the type', { events: ['prompt.created'] }, 'the webhook no longer takes prompt.label.moved'],
  ])('when the webhook is %s', async (_, change, error) => {
    const webhook = change ? await putWebhook(change) : { webhookId: 'wh_00000000deadbeef' };
    expect(await attemptDelivery(job(webhook), local())).toEqual({ delivered: false, status: null, durationMs: 0, error, final: true });
    expect(receiver.connections()).toBe(0);
    expect(await listDeliveries(table, ACCOUNT, webhook.webhookId)).toEqual([]);
  });
});

describe('the destination, checked again at the attempt', () => {
  test.each(['127.0.0.1', '::ffff:127.0.0.1', '::1'])(
    'a name resolving to %s is refused before any connection: logged with no status, final',
    async (address) => {
      const webhook = await putWebhook({ url: `https://hooks.example.com:${receiver.port}/hook` });
      const outcome = await attemptDelivery(job(webhook), deployed(resolvesTo([address])));
      expect(outcome).toMatchObject({
        delivered: false,
        status: null,
        final: true,
        error: expect.stringContaining(`hooks.example.com resolves to ${address}`),
      });
      expect(receiver.connections()).toBe(0);
      expect(await listDeliveries(table, ACCOUNT, webhook.webhookId)).toMatchObject([{ status: null, error: outcome.error }]);
    },
  );

  test.each(['10.0.0.5', '169.254.169.254', 'fd00:ec2::254'])('a name resolving to %s is refused without a request being made', async (address) => {
    const send = recordingSend();
    const webhook = await putWebhook({ url: 'https://hooks.example.com/hook' });
    expect(await attemptDelivery(job(webhook), deployed(resolvesTo([address]), { send }))).toMatchObject({ delivered: false, status: null, final: true });
    expect(send.calls).toEqual([]);
  });

  test('a name resolving to a public address is sent to that address, pinned, named by its host', async () => {
    const send = recordingSend();
    const webhook = await putWebhook({ url: 'https://hooks.example.com/in' });
    expect(await attemptDelivery(job(webhook), deployed(resolvesTo(['93.184.215.14']), { send }))).toMatchObject({ delivered: true, status: 200 });
    expect(send.calls.map(({ destination }) => ({ ...destination, url: destination.url.href }))).toEqual([
      { url: 'https://hooks.example.com/in', host: 'hooks.example.com', port: 443, address: '93.184.215.14', family: 4 },
    ]);
  });

  test('DNS rebinding: public when the webhook was made, loopback at the attempt, refused then', async () => {
    const resolve = resolvesTo(['93.184.215.14'], ['127.0.0.1']);
    const url = `https://rebind.example.com:${receiver.port}/hook`;
    expect(await checkUrl(url, 'deployed', resolve)).toEqual({ ok: true });
    const webhook = await putWebhook({ url });
    expect(await attemptDelivery(job(webhook), deployed(resolve))).toMatchObject({ delivered: false, status: null, final: true });
    expect(receiver.connections()).toBe(0);
  });

  test('unless told it runs locally, an attempt judges as deployed: a loopback URL is refused', async () => {
    const webhook = await putWebhook();
    expect(await attemptDelivery(job(webhook), { table, sealer, now: () => NOW })).toMatchObject({
      delivered: false,
      status: null,
      final: true,
      error: 'not sent: the URL must be https',
    });
    expect(receiver.connections()).toBe(0);
  });

  test('a name that does not resolve now is logged and retried', async () => {
    const webhook = await putWebhook({ url: 'https://gone.example.com/hook' });
    const failing: Resolve = async () => {
      throw Object.assign(new Error('queryA ETIMEOUT gone.example.com'), { code: 'ETIMEOUT' });
    };
    const outcome = await attemptDelivery(job(webhook), deployed(failing));
    expect(outcome).toMatchObject({ delivered: false, status: null, error: 'not sent: gone.example.com could not be resolved (ETIMEOUT)' });
    expect(outcome.final).toBeUndefined();
  });
});

test('after each failed attempt the next waits per RETRY_DELAYS_SECONDS; after the seventh there is none', () => {
  expect([1, 2, 3, 4, 5, 6, 7].map(nextDelay)).toEqual([5, 300, 1800, 7200, 18000, 36000, undefined]);
});

test('no signing secret appears in any stored item nor in any log line', async () => {
  const secret = generateSecret();
  const webhook = await putWebhook({ plainSecrets: [{ secret }] });
  await attemptDelivery(job(webhook), local());
  await attemptDelivery(job(webhook, 'prompt.created', 2), deployed(resolvesTo(['10.0.0.5'])));
  const raw = new DynamoDBClient({ region: 'us-east-1', endpoint: store.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const { Items = [] } = await raw.send(new ScanCommand({ TableName: store.tableName }));
  raw.destroy();
  const stored = JSON.stringify(Items);
  const logged = JSON.stringify(capturedLogRecords());
  expect(await listDeliveries(table, ACCOUNT, webhook.webhookId)).toHaveLength(2);
  for (const text of [stored, logged]) {
    expect(text).not.toContain(secret.slice('whsec_'.length));
    expect(text).not.toContain(Buffer.from(secret.slice('whsec_'.length), 'base64').toString('hex'));
  }
});

describe('an attempt is sent at most once, however often its job runs (its claim, table/delivery-claims.ts)', () => {
  test('a second run of the same attempt sends nothing: it finds the attempt made, with its outcome and line', async () => {
    const webhook = await putWebhook();
    const first = await runAttempt(job(webhook), local());
    const second = await runAttempt(job(webhook), local());
    expect(receiver.received).toHaveLength(1);
    expect(first).toMatchObject({ kind: 'made', recordedNow: true, made: { delivered: true, status: 200 } });
    expect(second).toMatchObject({ kind: 'made', recordedNow: false, made: first.kind === 'made' ? first.made : {} });
    expect(await listDeliveries(table, ACCOUNT, webhook.webhookId)).toHaveLength(1);
  });

  test('runs of one attempt at once: one sends it, the others find it held and send nothing', async () => {
    const webhook = await putWebhook();
    const results = await Promise.all([1, 2, 3, 4].map(() => runAttempt(job(webhook), local())));
    expect(receiver.received).toHaveLength(1);
    expect(results.filter((result) => result.kind === 'made' && result.recordedNow)).toHaveLength(1);
    expect(results.filter((result) => result.kind !== 'made' || !result.recordedNow).map((result) => result.kind)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^(held|made)$/)]),
    );
    expect(await listDeliveries(table, ACCOUNT, webhook.webhookId)).toHaveLength(1);
  });

  test('each attempt of a job is its own: attempt 2 is sent after attempt 1, each once', async () => {
    const webhook = await putWebhook();
    await runAttempt(job(webhook, 'prompt.label.moved', 1), local());
    await runAttempt(job(webhook, 'prompt.label.moved', 2), local());
    await runAttempt(job(webhook, 'prompt.label.moved', 2), local());
    expect(receiver.received).toHaveLength(2);
    expect((await listDeliveries(table, ACCOUNT, webhook.webhookId)).map((line) => line.attempt).sort()).toEqual([1, 2]);
  });

  test('a claim whose run stopped before recording (past its lease) is recorded as cut off, never sent again', async () => {
    const webhook = await putWebhook();
    // The run that claimed it was cut off after its POST: the claim stands, `sending`, with no line.
    const cutOffRun = await runAttempt(job(webhook), local({ send: async () => Promise.reject(new Error('the function timed out')) })).catch(
      (error: unknown) => error,
    );
    expect(cutOffRun).toBeInstanceOf(Error);
    expect(await listDeliveries(table, ACCOUNT, webhook.webhookId)).toEqual([]);
    const withinLease = await runAttempt(job(webhook), local({ now: () => new Date(NOW.getTime() + 60_000) }));
    expect(withinLease).toEqual({ kind: 'held', retryInSeconds: 60 });
    const after = await runAttempt(job(webhook), local({ now: () => new Date(NOW.getTime() + 121_000) }));
    expect(after).toMatchObject({ kind: 'made', recordedNow: true, made: { delivered: false, status: null, error: CUT_OFF_ERROR } });
    expect(receiver.received).toHaveLength(0);
    expect(await listDeliveries(table, ACCOUNT, webhook.webhookId)).toMatchObject([{ attempt: 1, status: null, error: CUT_OFF_ERROR, at: NOW.toISOString() }]);
  });

  test('a POST whose line cannot be written: the error carries its outcome, for a later run to record without sending again', async () => {
    const webhook = await putWebhook();
    const failingLog = new Table(store.client, store.tableName, () => NOW);
    const put = failingLog.put.bind(failingLog);
    failingLog.put = ((callName: string, ...rest: Parameters<Table['put']> extends [string, ...infer R] ? R : never) =>
      callName === 'recordDelivery' ? Promise.reject(new Error('store unavailable')) : put(callName, ...rest)) as Table['put'];
    const error = await runAttempt(job(webhook), local({ table: failingLog })).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(UnrecordedAttemptError);
    expect((error as UnrecordedAttemptError).made).toMatchObject({
      delivered: true,
      status: 200,
      at: NOW.toISOString(),
      deliveryId: expect.stringMatching(/^dlv_/),
    });
    expect(receiver.received).toHaveLength(1);
    // Run again, the attempt is held (then cut off): never sent a second time.
    expect(await runAttempt(job(webhook), local())).toMatchObject({ kind: 'held' });
    expect(receiver.received).toHaveLength(1);
  });

  test('a failure before the POST (KMS) claims nothing: the next run sends the attempt', async () => {
    const webhook = await putWebhook();
    const failingSealer = new LocalSecretSealer(LocalSecretSealer.generateKey());
    failingSealer.unseal = async () => Promise.reject(new Error('KMS unavailable'));
    await expect(runAttempt(job(webhook), local({ sealer: failingSealer }))).rejects.toThrow('KMS unavailable');
    expect(await runAttempt(job(webhook), local())).toMatchObject({ kind: 'made', recordedNow: true, made: { delivered: true } });
    expect(receiver.received).toHaveLength(1);
  });
});
