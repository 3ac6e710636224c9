import { hashApiKey } from '../../../lambda/domain/api-key';
import { LastOwnerError } from '../../../lambda/features/members/members';
import { ConflictError } from '../../../lambda/table/errors';
import { limitInForce } from '../../../lambda/table/item-builders';
import type { AccountItem, ApiKeyItem, MemberItem } from '../../../lambda/table/item-types';
import { keys } from '../../../lambda/table/schema';
import { featureTable, person } from '../../support/feature-table';
import { registerApiKey } from '../../support/log-capture';
import { MemoryDirectory } from '../../support/memory-directory';

/**
 * API keys and members (docs/management-api.md "The management API"; docs/data-model.md; lambda/features/keys/ and
 * members/): a key is answered once and stored by its hash; revocation is final; a rotation keeps the old key for its
 * grace; people join with a role, and an account always keeps an owner.
 */
const features = featureTable();
const admin = person('ada');
const directory = new MemoryDirectory();
const ops = (actor = admin) => features.operations(actor, { directory });

/** A key made by the admin, registered for the run's leak check as every key handed out is. */
async function newKey(accountId: string, settings: { name: string; monthlyLimit?: number } = { name: 'ci' }) {
  const created = await ops().keys.create(accountId, settings);
  registerApiKey(created.apiKey);
  return created;
}

const keyItem = (apiKey: string) => features.get<ApiKeyItem>(keys.apiKey(hashApiKey(apiKey)));
const accountItem = (accountId: string) => features.get<AccountItem>(keys.account(accountId));
const memberItem = (accountId: string, userId: string) => features.get<MemberItem>(keys.member(accountId, userId));

test('a key is answered once: stored by its hash, shown by its prefix, and in no item or audit entry of the account', async () => {
  const accountId = await features.account();
  const { key, apiKey } = await newKey(accountId);
  expect(key).toEqual(expect.objectContaining({ accountId, name: 'ci', status: 'active', displayPrefix: apiKey.slice(0, 8), createdBy: 'ada@example.com' }));
  expect(await keyItem(apiKey)).toEqual(expect.objectContaining({ keyId: key.keyId, status: 'active' }));
  expect(JSON.stringify(await keyItem(apiKey))).not.toContain(apiKey);
  expect(JSON.stringify([await features.state(accountId), await features.audit(accountId)])).not.toContain(apiKey);
  // Registered on its account in the same transaction, so a rollout's end fences it.
  expect((await accountItem(accountId))?.newKeys).toEqual(new Set([hashApiKey(apiKey)]));
});

test("a key's settings apply from its next request; its own limit overrides the plan's, and cleared, the plan's is back", async () => {
  const accountId = await features.account();
  const { key, apiKey } = await newKey(accountId);
  await ops().keys.update(accountId, key.keyId, { enabled: false, monthlyLimit: 500, scope: ['greet'] });
  expect(await keyItem(apiKey)).toEqual(expect.objectContaining({ status: 'disabled', monthlyLimit: 500, limit: 500, scope: ['greet'] }));
  const cleared = await ops().keys.update(accountId, key.keyId, { enabled: true, monthlyLimit: null, scope: null });
  expect(cleared).not.toHaveProperty('scope');
  const item = await keyItem(apiKey);
  expect([item?.status, item?.monthlyLimit, item?.limit, item?.scope]).toEqual(['active', undefined, limitInForce('pro', undefined), undefined]);
});

test("a rotation makes a new key with the old one's settings; the old one works until its grace ends", async () => {
  const accountId = await features.account();
  const { key, apiKey } = await newKey(accountId, { name: 'ci', monthlyLimit: 700 });
  const asked = Date.now();
  const rotated = await ops().keys.rotate(accountId, key.keyId, 60 * 60_000);
  const answered = Date.now();
  registerApiKey(rotated.apiKey);
  expect(rotated.created).toEqual(expect.objectContaining({ name: 'ci', monthlyLimit: 700, status: 'active' }));
  expect(rotated.created.keyId).not.toBe(key.keyId);
  const old = await keyItem(apiKey);
  expect(old?.status).toBe('active');
  expect(Number(old?.expiresAt)).toBeGreaterThanOrEqual(asked + 60 * 60_000);
  expect(Number(old?.expiresAt)).toBeLessThanOrEqual(answered + 60 * 60_000);
  expect(await keyItem(rotated.apiKey)).toEqual(expect.objectContaining({ keyId: rotated.created.keyId, limit: 700 }));
  const [entry] = await features.audit(accountId);
  expect(entry).toEqual(expect.objectContaining({ action: 'key.rotate', after: { newKeyId: rotated.created.keyId, name: 'ci', graceMs: 3_600_000 } }));
});

test('a rotation with no grace revokes the old key at once', async () => {
  const accountId = await features.account();
  const { key, apiKey } = await newKey(accountId);
  registerApiKey((await ops().keys.rotate(accountId, key.keyId, 0)).apiKey);
  expect((await keyItem(apiKey))?.status).toBe('revoked');
});

test("revocation is final: revoking again changes nothing, and a revoked key's settings, or a rotation of it, are refused (409)", async () => {
  const accountId = await features.account();
  const { key, apiKey } = await newKey(accountId);
  expect((await ops().keys.revoke(accountId, key.keyId)).alreadyRevoked).toBe(false);
  const before = [await features.state(accountId), await keyItem(apiKey)];
  expect(await ops().keys.revoke(accountId, key.keyId)).toEqual({ key: expect.objectContaining({ status: 'revoked' }), alreadyRevoked: true });
  await expect(ops().keys.update(accountId, key.keyId, { enabled: true })).rejects.toThrow('revocation is final');
  await expect(ops().keys.rotate(accountId, key.keyId, 0)).rejects.toEqual(expect.any(ConflictError));
  expect([await features.state(accountId), await keyItem(apiKey)]).toEqual(before);
});

test('a person joins with a role; one who is not a user yet is created, with a temporary password answered once and recorded nowhere', async () => {
  const accountId = await features.account();
  const known = directory.add('known@example.com');
  const added = await ops().members.add(accountId, { email: 'Known@Example.com', role: 'editor' });
  expect(added).toEqual({ member: expect.objectContaining({ userId: known.userId, email: 'known@example.com', role: 'editor', addedBy: 'ada@example.com' }) });
  const invited = await ops().members.add(accountId, { email: 'new@example.com', role: 'viewer' });
  expect(invited.temporaryPassword).toEqual(expect.any(String));
  expect((await memberItem(accountId, invited.member.userId))?.role).toBe('viewer');
  const [entry] = await features.audit(accountId);
  expect(entry).toEqual(expect.objectContaining({ action: 'member.add', after: { userId: invited.member.userId, role: 'viewer', userCreated: true } }));
  expect(JSON.stringify(await features.audit(accountId))).not.toContain(String(invited.temporaryPassword));
});

test('adding a member twice is refused (409), and nothing changes', async () => {
  const accountId = await features.account();
  directory.add('twice@example.com');
  await ops().members.add(accountId, { email: 'twice@example.com', role: 'editor' });
  const before = await features.state(accountId);
  await expect(ops().members.add(accountId, { email: 'twice@example.com', role: 'admin' })).rejects.toThrow('is a member of account');
  expect(await features.state(accountId)).toEqual(before);
});

test("a role changes in one transaction with the account's owners: an owner made joins them, an owner demoted leaves them", async () => {
  const accountId = await features.account();
  const [first, second] = [person('first'), person('second')];
  await features.member(accountId, first, 'owner');
  await features.member(accountId, second, 'editor');
  await ops().members.setRole(accountId, second.userId, 'owner');
  expect((await accountItem(accountId))?.owners).toEqual(new Set([first.userId, second.userId]));
  await ops().members.setRole(accountId, first.userId, 'admin');
  expect((await accountItem(accountId))?.owners).toEqual(new Set([second.userId]));
  expect((await memberItem(accountId, first.userId))?.role).toBe('admin');
});

test('the last owner can be neither demoted nor removed (409), and nothing changes', async () => {
  const accountId = await features.account();
  const only = person('only');
  await features.member(accountId, only, 'owner');
  const before = await features.state(accountId);
  await expect(ops().members.setRole(accountId, only.userId, 'admin')).rejects.toEqual(expect.any(LastOwnerError));
  await expect(ops().members.remove(accountId, only.userId)).rejects.toEqual(expect.any(LastOwnerError));
  expect(await features.state(accountId)).toEqual(before);
});

test('two owners demoting each other cannot both succeed: the account keeps one', async () => {
  const accountId = await features.account();
  const [first, second] = [person('one'), person('two')];
  await features.member(accountId, first, 'owner');
  await features.member(accountId, second, 'owner');
  const table = features.racedTable();
  // The second owner demotes the first between the first's read and write of its own demotion of the second.
  table.beforeNextTransaction(() => ops(second).members.setRole(accountId, first.userId, 'admin'));
  await expect(features.operations(first, { table }).members.setRole(accountId, second.userId, 'admin')).rejects.toEqual(expect.any(LastOwnerError));
  expect((await accountItem(accountId))?.owners).toEqual(new Set([second.userId]));
  expect((await memberItem(accountId, second.userId))?.role).toBe('owner');
});

test('a removed member is out of the account, and a removed owner out of its owners', async () => {
  const accountId = await features.account();
  const [stays, leaves] = [person('stays'), person('leaves')];
  await features.member(accountId, stays, 'owner');
  await features.member(accountId, leaves, 'owner');
  const removed = await ops().members.remove(accountId, leaves.userId);
  expect(removed).toEqual(expect.objectContaining({ userId: leaves.userId, role: 'owner' }));
  expect(await memberItem(accountId, leaves.userId)).toBeUndefined();
  expect((await accountItem(accountId))?.owners).toEqual(new Set([stays.userId]));
});
