import type { Actor } from '../../../lambda/domain/actor';
import { CHANGE_REQUEST_ID_PATTERN } from '../../../lambda/domain/change-request';
import { answerOf, type ChangeRequest } from '../../../lambda/features/change-requests/answers';
import { ChangeRequestNotOpenError, listChangeRequests, requireChangeRequest } from '../../../lambda/features/change-requests/change-requests';
import { OpenChangeRequestExistsError } from '../../../lambda/features/change-requests/open-change-requests';
import { changeRequestDiff } from '../../../lambda/features/change-requests/review-diff';
import { RolloutActiveError, VersionNotPublishedError } from '../../../lambda/features/errors';
import { NotFoundError } from '../../../lambda/table/errors';
import { keys } from '../../../lambda/table/schema';
import { prompt, version } from '../../support/fixtures';
import { featureTable, OPERATOR, person } from '../../support/feature-table';

/**
 * Change requests (docs/management-api.md "Change requests"; lambda/features/change-requests/): a move of a label under
 * approval is asked for, then approved (the `required`-th approval that counts applies it, if the label still points
 * where it did when asked), rejected or withdrawn. Every refusal is read back: nothing moved, the request as it was.
 */
const features = featureTable();
const asker = person('asker');
const alice = person('alice');
const bob = person('bob');

/** `production` (protected: admins approve) at 1.0.0; 1.1.0 adds `${day}` and drops `${city}`; 1.2.0 a draft. */
const greet = () =>
  prompt(
    'greet',
    [
      version('1.0.0', { systemMessage: 'You greet ${name}.', userMessage: 'Hello ${name} from ${city}' }),
      version('1.1.0', { systemMessage: 'You greet ${name} warmly.', userMessage: 'Hello ${name}, it is ${day}' }),
      version('1.2.0', { published: false }),
    ],
    { labels: { production: '1.0.0' } },
  );

/** An account whose `production` and `staging` move through requests needing `required` approvals; asker, alice and bob are admins. */
async function account(required = 1): Promise<string> {
  const accountId = await features.account(greet());
  for (const member of [asker, alice, bob]) await features.member(accountId, member, 'admin');
  await features.approvals(accountId, ['production', 'staging'], required);
  return accountId;
}

/** The asker asks for `production` (or `label`) to move to `to`. */
async function ask(accountId: string, to: string | null = '1.1.0', label = 'production', as: Actor = asker): Promise<ChangeRequest> {
  const ops = features.operations(as);
  const outcome = to === null ? await ops.labels.remove(accountId, 'greet', label) : await ops.labels.set(accountId, 'greet', label, to, { note: 'please' });
  if (!('changeRequest' in outcome)) throw new Error(`${label} moved rather than being asked for`);
  return outcome.changeRequest;
}

const approve = (accountId: string, changeRequest: ChangeRequest, as: Actor, comment?: string) =>
  features.operations(as).changeRequests.approve(accountId, changeRequest, comment);

const stored = (accountId: string, changeRequest: ChangeRequest) => requireChangeRequest(features.table, accountId, changeRequest.requestId);

test('an open request says what is asked, by whom and how many approvals it needs; a pointer names it under its label', async () => {
  const accountId = await account(2);
  const changeRequest = await ask(accountId);
  expect(changeRequest).toEqual({
    requestId: expect.stringMatching(CHANGE_REQUEST_ID_PATTERN),
    promptId: 'greet',
    label: 'production',
    from: '1.0.0',
    to: '1.1.0',
    note: 'please',
    restore: false,
    requestedBy: 'asker@example.com',
    requestedAt: expect.any(String),
    required: 2,
    approvals: [],
    state: 'open',
    decision: null,
  });
  expect(await features.get(keys.openChangeRequest(accountId, 'greet', 'production'))).toEqual(
    expect.objectContaining({ requestId: changeRequest.requestId, to: '1.1.0' }),
  );
  expect((await listChangeRequests(features.table, accountId, { state: 'open' })).requests.map((open) => open.requestId)).toEqual([changeRequest.requestId]);
});

test('a label has one open request at a time: a second is refused naming the first, and nothing changes', async () => {
  const accountId = await account();
  const first = await ask(accountId);
  const before = await features.state(accountId);
  await expect(ask(accountId, null, 'production', alice)).rejects.toEqual(expect.any(OpenChangeRequestExistsError));
  await expect(ask(accountId, '1.1.0', 'production', alice)).rejects.toThrow(first.requestId);
  expect(await features.state(accountId)).toEqual(before);
  expect(await features.lastEntries(accountId, 2)).toEqual([
    ['request.open', 'refused', 'CONFLICT'],
    ['request.open', 'refused', 'CONFLICT'],
  ]);
});

test('a request is checked as the move would be: a draft, or the removal of a label the prompt lacks, is refused and opens nothing', async () => {
  const accountId = await account();
  const before = await features.state(accountId);
  await expect(ask(accountId, '1.2.0')).rejects.toEqual(expect.any(VersionNotPublishedError));
  await expect(ask(accountId, null, 'staging')).rejects.toEqual(expect.any(NotFoundError));
  expect(await features.state(accountId)).toEqual(before);
  expect(await features.lastEntries(accountId, 2)).toEqual([
    ['request.open', 'refused', 'CONFLICT'],
    ['request.open', 'refused', 'NOT_FOUND'],
  ]);
});

test('the approval that brings the required count moves the label in its own transaction, the history naming the request', async () => {
  const accountId = await account();
  const changeRequest = await ask(accountId);
  const decided = await approve(accountId, changeRequest, alice, 'looks right');
  expect(decided.stale).toBe(false);
  expect(decided.changeRequest).toEqual(
    expect.objectContaining({
      state: 'applied',
      approvals: [{ by: 'alice@example.com', at: expect.any(String), comment: 'looks right', counts: true, role: 'admin', why: null }],
      decision: { by: 'alice@example.com', at: expect.any(String), comment: 'looks right' },
    }),
  );
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.1.0' });
  const [moved] = await features.history(accountId, 'greet', 'production');
  expect(moved).toEqual(expect.objectContaining({ from: '1.0.0', to: '1.1.0', by: 'alice@example.com', reason: `request ${changeRequest.requestId}` }));
  expect(await features.get(keys.openChangeRequest(accountId, 'greet', 'production'))).toBeUndefined();
  expect((await features.audit(accountId)).slice(0, 3).map((entry) => entry.action)).toEqual(
    expect.arrayContaining(['request.approve', 'request.apply', 'label.set']),
  );
  expect((await features.events(accountId)).slice(-3).map((event) => event.type)).toEqual(['request.approved', 'request.applied', 'prompt.label.moved']);
});

test('below the required count an approval is recorded, the request stays open and the label stays; the next one applies it', async () => {
  const accountId = await account(2);
  const changeRequest = await ask(accountId);
  const first = await approve(accountId, changeRequest, alice);
  expect(first.changeRequest).toEqual(
    expect.objectContaining({ state: 'open', approvals: [expect.objectContaining({ by: 'alice@example.com', counts: true })] }),
  );
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.0.0' });
  const second = await approve(accountId, changeRequest, bob);
  expect(second.changeRequest.state).toBe('applied');
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.1.0' });
});

test('one approval per person: approving again is refused (409), and nothing changes', async () => {
  const accountId = await account(2);
  const changeRequest = await ask(accountId);
  await approve(accountId, changeRequest, alice);
  const before = await features.state(accountId);
  await expect(approve(accountId, changeRequest, alice)).rejects.toThrow('approved change request');
  expect(await features.state(accountId)).toEqual(before);
  const [refusal] = await features.audit(accountId);
  expect(refusal).toEqual(expect.objectContaining({ action: 'request.approve', outcome: 'refused', reason: expect.objectContaining({ code: 'CONFLICT' }) }));
});

test('the requester can neither approve nor reject their own request (403), and nothing changes', async () => {
  const accountId = await account();
  const changeRequest = await ask(accountId);
  const before = await features.state(accountId);
  await expect(approve(accountId, changeRequest, asker)).rejects.toThrow('another member must approve or reject it');
  await expect(features.operations(asker).changeRequests.reject(accountId, changeRequest)).rejects.toThrow('another member must approve or reject it');
  expect(await features.state(accountId)).toEqual(before);
  expect(await features.lastEntries(accountId, 2)).toEqual([
    ['request.approve', 'refused', 'FORBIDDEN'],
    ['request.reject', 'refused', 'FORBIDDEN'],
  ]);
});

test('an approval from a member demoted since stays on the request, not counting, and the request stays open', async () => {
  const accountId = await account(2);
  const changeRequest = await ask(accountId);
  await approve(accountId, changeRequest, alice);
  await features.operations().members.setRole(accountId, alice.userId, 'editor');
  const decided = await approve(accountId, changeRequest, bob);
  expect(decided.changeRequest).toEqual(
    expect.objectContaining({
      state: 'open',
      approvals: [
        expect.objectContaining({
          by: 'alice@example.com',
          counts: false,
          role: 'editor',
          why: 'an editor, and approving a change of production needs the admin role',
        }),
        expect.objectContaining({ by: 'bob@example.com', counts: true }),
      ],
    }),
  );
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.0.0' });
  // Given the role back while the request is open, alice's approving again counts, and applies it.
  await features.operations().members.setRole(accountId, alice.userId, 'admin');
  expect((await approve(accountId, changeRequest, alice)).changeRequest.state).toBe('applied');
});

test('an approval from a member removed since does not count', async () => {
  const accountId = await account(2);
  const changeRequest = await ask(accountId);
  await approve(accountId, changeRequest, alice);
  await features.operations().members.remove(accountId, alice.userId);
  const decided = await approve(accountId, changeRequest, bob);
  expect(decided.changeRequest.state).toBe('open');
  expect(decided.changeRequest.approvals[0]).toEqual(expect.objectContaining({ counts: false, role: null, why: 'not a member of the account' }));
});

test("a demotion landing between the applying approval's read and its write refuses it: planned again, that approval no longer counts", async () => {
  const accountId = await account(2);
  const changeRequest = await ask(accountId);
  await approve(accountId, changeRequest, alice);
  const table = features.racedTable();
  table.beforeNextTransaction(() => features.operations().members.setRole(accountId, alice.userId, 'viewer'));
  const decided = await features.operations(bob, { table }).changeRequests.approve(accountId, changeRequest);
  expect(decided.changeRequest.state).toBe('open');
  expect(decided.changeRequest.approvals.map(({ counts }) => counts)).toEqual([false, true]);
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.0.0' });
});

test('the requester withdraws their request: closed, nothing moved; nobody else may withdraw it (403)', async () => {
  const accountId = await account();
  const changeRequest = await ask(accountId);
  const before = await features.state(accountId);
  await expect(features.operations(alice).changeRequests.withdraw(accountId, changeRequest)).rejects.toThrow('only the member who asked');
  expect(await features.state(accountId)).toEqual(before);
  const withdrawn = await features.operations(asker).changeRequests.withdraw(accountId, changeRequest);
  expect(withdrawn.changeRequest).toEqual(
    expect.objectContaining({ state: 'withdrawn', decision: { by: 'asker@example.com', at: expect.any(String), comment: null } }),
  );
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.0.0' });
  expect(await features.get(keys.openChangeRequest(accountId, 'greet', 'production'))).toBeUndefined();
});

test('a rejection closes the request with its comment and moves nothing; a closed request is decided no more (409)', async () => {
  const accountId = await account();
  const changeRequest = await ask(accountId);
  const rejected = await features.operations(alice).changeRequests.reject(accountId, changeRequest, 'not today');
  expect(rejected.changeRequest).toEqual(
    expect.objectContaining({ state: 'rejected', decision: expect.objectContaining({ by: 'alice@example.com', comment: 'not today' }) }),
  );
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.0.0' });
  const before = await features.state(accountId);
  await expect(approve(accountId, changeRequest, bob)).rejects.toEqual(expect.any(ChangeRequestNotOpenError));
  await expect(features.operations(asker).changeRequests.withdraw(accountId, changeRequest)).rejects.toEqual(expect.any(ChangeRequestNotOpenError));
  expect(await features.state(accountId)).toEqual(before);
});

test('a request whose label moved meanwhile turns stale at its approval: nothing moves, and the entry says request.stale', async () => {
  const accountId = await account();
  const changeRequest = await ask(accountId);
  await features.operations(OPERATOR).labels.remove(accountId, 'greet', 'production', { breakGlass: true });
  const before = (await features.state(accountId)).filter((item) => !String(item.sk).startsWith('REQUEST#') && !String(item.sk).startsWith('OPENREQ#'));
  const stale = await approve(accountId, changeRequest, alice);
  expect(stale.stale).toBe(true);
  expect(stale.changeRequest).toEqual(
    expect.objectContaining({ state: 'stale', from: '1.0.0', decision: expect.objectContaining({ by: 'alice@example.com' }) }),
  );
  expect(await features.labels(accountId, 'greet')).toEqual({});
  expect(await features.get(keys.openChangeRequest(accountId, 'greet', 'production'))).toBeUndefined();
  const [entry] = await features.audit(accountId);
  expect(entry).toEqual(expect.objectContaining({ action: 'request.stale', outcome: 'succeeded', after: expect.objectContaining({ now: null }) }));
  // Nothing but the request and its event changed: no label, no history entry.
  const after = (await features.state(accountId)).filter((item) => !String(item.sk).startsWith('REQUEST#') && !String(item.sk).startsWith('EVENT#'));
  expect(after).toEqual(before.filter((item) => !String(item.sk).startsWith('EVENT#')));
});

test('a label moved away and back before the approval points where it was asked from: the approval applies the request', async () => {
  const accountId = await account();
  const changeRequest = await ask(accountId);
  await features.operations(OPERATOR).labels.set(accountId, 'greet', 'production', '1.1.0', { breakGlass: true });
  await features.operations(OPERATOR).labels.set(accountId, 'greet', 'production', '1.0.0', { breakGlass: true });
  const decided = await approve(accountId, changeRequest, alice);
  expect(decided).toEqual({ stale: false, changeRequest: expect.objectContaining({ state: 'applied' }) });
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.1.0' });
});

test('a request that carries a rollout starts it when applied, by the approver, the label staying where it points', async () => {
  const accountId = await account();
  const asked = await features.operations(asker).rollouts.start(accountId, 'greet', 'production', { to: '1.1.0', percent: 20 });
  if (!('changeRequest' in asked)) throw new Error('the rollout started without its request');
  await approve(accountId, asked.changeRequest, alice);
  const rollout = await features.operations().rollouts.read(accountId, 'greet', 'production');
  expect(rollout).toEqual(expect.objectContaining({ from: '1.0.0', to: '1.1.0', percent: 20, startedBy: 'alice@example.com', state: 'active' }));
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.0.0' });
  // While it rolls out, the label takes no other request.
  await expect(ask(accountId, null, 'production', bob)).rejects.toEqual(expect.any(RolloutActiveError));
});

test('a closed request keeps each approval as it stood when it closed', async () => {
  const accountId = await account();
  const changeRequest = await ask(accountId);
  await approve(accountId, changeRequest, alice);
  await features.operations().members.setRole(accountId, alice.userId, 'viewer');
  const answer = await answerOf(features.table, accountId, await stored(accountId, changeRequest));
  expect(answer.approvals).toEqual([expect.objectContaining({ by: 'alice@example.com', counts: true, role: 'admin', why: null })]);
});

test("a reviewer's diff shows both versions and the placeholders the move adds and takes away", async () => {
  const accountId = await account();
  const changeRequest = await ask(accountId);
  const diff = await changeRequestDiff(features.table, accountId, changeRequest);
  expect(diff.fromVersion).toEqual(expect.objectContaining({ version: '1.0.0', userMessage: 'Hello ${name} from ${city}' }));
  expect(diff.toVersion).toEqual(expect.objectContaining({ version: '1.1.0', userMessage: 'Hello ${name}, it is ${day}' }));
  expect(diff.placeholders).toEqual({ added: ['day'], removed: ['city'] });
  const removal = await changeRequestDiff(features.table, accountId, { promptId: 'greet', from: '1.0.0', to: null });
  expect(removal).toEqual(expect.objectContaining({ toVersion: null, placeholders: { added: [], removed: ['name', 'city'] } }));
});
