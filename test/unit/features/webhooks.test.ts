import type { Actor } from '../../../lambda/domain/actor';
import { InvalidWebhookError } from '../../../lambda/features/errors';
import { MAX_WEBHOOKS_PER_ACCOUNT, RETIRED_SECRET_VALID_MS, WebhookLimitError } from '../../../lambda/features/webhooks/webhooks';
import type { WebhookItem } from '../../../lambda/table/item-types';
import { keys } from '../../../lambda/table/schema';
import { buildUpdate } from '../../../lambda/table/update-expression';
import { featureTable, person } from '../../support/feature-table';
import { localWebhookTools } from '../../support/webhook-tools';

/**
 * Webhooks (docs/events.md "Webhooks"; lambda/features/webhooks/): a URL is recorded by its origin alone (its path or
 * query may hold the receiver's token), a secret is answered once, stored sealed and recorded nowhere, and a rotation
 * keeps the secret it replaces for 24 hours.
 */
const features = featureTable();
const admin = person('ada');
const tools = localWebhookTools();
const webhooks = (actor: Actor = admin) => features.operations(actor, { webhooks: tools }).webhooks;

const URL_WITH_TOKEN = 'http://127.0.0.1:8080/hooks/team-a?token=tok-1234';
const ORIGIN = 'http://127.0.0.1:8080';

const item = (accountId: string, webhookId: string) => features.get<WebhookItem>(keys.webhook(accountId, webhookId));

/** Everything the audit log holds of the account, as text: what a secret or a URL's token must never be found in. */
const auditText = async (accountId: string) => JSON.stringify(await features.audit(accountId));

test("a webhook's URL is recorded in the audit log by its origin alone; its item keeps the whole URL to deliver to", async () => {
  const accountId = await features.account();
  const { webhook } = await webhooks().create(accountId, { url: URL_WITH_TOKEN, events: ['prompt.label.moved'], description: 'deploys' });
  expect((await item(accountId, webhook.webhookId))?.url).toBe(URL_WITH_TOKEN);
  const [entry] = await features.audit(accountId);
  expect(entry).toEqual(
    expect.objectContaining({
      action: 'webhook.create',
      target: { url: ORIGIN },
      requested: expect.objectContaining({ url: ORIGIN }),
      after: expect.objectContaining({ webhookId: webhook.webhookId, url: ORIGIN }),
    }),
  );
  expect(await auditText(accountId)).not.toMatch(/hooks|tok-1234/);
});

test('a new URL is recorded by its origin alone too, and the secrets stay as they were', async () => {
  const accountId = await features.account();
  const { webhook } = await webhooks().create(accountId, { url: 'http://127.0.0.1:9000/first', events: ['prompt.label.moved'] });
  const updated = await webhooks().update(accountId, webhook.webhookId, { url: URL_WITH_TOKEN });
  expect(updated.secrets).toEqual(webhook.secrets);
  expect((await item(accountId, webhook.webhookId))?.url).toBe(URL_WITH_TOKEN);
  const [entry] = await features.audit(accountId);
  expect(entry).toEqual(expect.objectContaining({ action: 'webhook.update', requested: { url: ORIGIN }, after: expect.objectContaining({ url: ORIGIN }) }));
  expect(await auditText(accountId)).not.toMatch(/tok-1234/);
});

test('a URL the destination policy refuses is refused naming url (400), recorded by its origin, and nothing is created', async () => {
  const accountId = await features.account();
  const before = await features.state(accountId);
  const refusal = webhooks().create(accountId, { url: 'http://hooks.example.com/in?token=tok-9', events: ['prompt.label.moved'] });
  await expect(refusal).rejects.toEqual(expect.any(InvalidWebhookError));
  await expect(refusal).rejects.toEqual(expect.objectContaining({ field: 'url' }));
  expect(await features.state(accountId)).toEqual(before);
  const [entry] = await features.audit(accountId);
  expect(entry).toEqual(expect.objectContaining({ outcome: 'refused', target: { url: 'http://hooks.example.com' } }));
  expect(await auditText(accountId)).not.toMatch(/tok-9/);
});

test('the secret is answered once and stored sealed: the item holds it sealed, the audit log holds it in no form', async () => {
  const accountId = await features.account();
  const { webhook, secret } = await webhooks().create(accountId, { url: `${ORIGIN}/hook`, events: ['prompt.label.moved'] });
  expect(secret).toMatch(/^whsec_/);
  const [stored] = (await item(accountId, webhook.webhookId))?.secrets ?? [];
  expect(stored?.sealed).not.toContain(secret.slice('whsec_'.length));
  expect(await tools.sealer.unseal(String(stored?.sealed))).toBe(secret);
  const text = await auditText(accountId);
  expect(text).not.toContain(secret.slice('whsec_'.length));
  expect(text).not.toContain(String(stored?.sealed));
});

test('a rotation answers a new current secret, and the one it replaces signs for 24 hours more', async () => {
  const accountId = await features.account();
  const created = await webhooks().create(accountId, { url: `${ORIGIN}/hook`, events: ['prompt.label.moved'] });
  const rotated = await webhooks().rotateSecret(accountId, created.webhook.webhookId);
  expect(rotated.secret).not.toBe(created.secret);
  const [current, retired] = (await item(accountId, created.webhook.webhookId))?.secrets ?? [];
  expect(current?.expiresAt).toBeUndefined();
  expect(await tools.sealer.unseal(String(current?.sealed))).toBe(rotated.secret);
  expect(await tools.sealer.unseal(String(retired?.sealed))).toBe(created.secret);
  expect(Date.parse(String(retired?.expiresAt)) - Date.parse(String(current?.createdAt))).toBe(RETIRED_SECRET_VALID_MS);
  const [entry] = await features.audit(accountId);
  expect(entry).toEqual(
    expect.objectContaining({ action: 'webhook.rotate', after: { secretRotatedAt: current?.createdAt, previousSecretExpiresAt: retired?.expiresAt } }),
  );
  expect(await auditText(accountId)).not.toContain(rotated.secret.slice('whsec_'.length));
});

test('a second rotation drops the secret the first retired, valid or not: a webhook holds at most two', async () => {
  const accountId = await features.account();
  const created = await webhooks().create(accountId, { url: `${ORIGIN}/hook`, events: ['prompt.label.moved'] });
  const first = await webhooks().rotateSecret(accountId, created.webhook.webhookId);
  const second = await webhooks().rotateSecret(accountId, created.webhook.webhookId);
  const secrets = (await item(accountId, created.webhook.webhookId))?.secrets ?? [];
  const opened = await Promise.all(secrets.map((secret) => tools.sealer.unseal(secret.sealed)));
  expect(opened).toEqual([second.secret, first.secret]);
});

test(`an account's ${MAX_WEBHOOKS_PER_ACCOUNT + 1}st webhook is refused (409), and nothing changes`, async () => {
  const accountId = await features.account();
  await features.table.update('full', { Key: keys.account(accountId), ...buildUpdate({ set: { webhookCount: MAX_WEBHOOKS_PER_ACCOUNT } }) });
  const before = await features.state(accountId);
  await expect(webhooks().create(accountId, { url: `${ORIGIN}/hook`, events: ['prompt.label.moved'] })).rejects.toEqual(expect.any(WebhookLimitError));
  expect(await features.state(accountId)).toEqual(before);
});

test('a deleted webhook is gone, and its place in the count is free again', async () => {
  const accountId = await features.account();
  const { webhook } = await webhooks().create(accountId, { url: `${ORIGIN}/hook`, events: ['prompt.label.moved'] });
  const count = async () => Number((await features.get<{ webhookCount?: number }>(keys.account(accountId)))?.webhookCount ?? 0);
  expect(await count()).toBe(1);
  await webhooks().delete(accountId, webhook.webhookId);
  expect(await item(accountId, webhook.webhookId)).toBeUndefined();
  expect(await count()).toBe(0);
});
