import {
  approvalCount,
  approvalStandingText,
  type Approval,
  CHANGE_REQUEST_STATES,
  type ChangeRequest,
  changeRequestsNavName,
  changeRequestTitle,
  decisionDenial,
  enoughCounting,
  hasApproved,
  STATE_FILTERS,
  stateExplanation,
  stateWord,
  withdrawDenial,
} from '../../../dashboard/src/features/change-requests/change-requests';

const ana = { userId: 'u-ana', email: 'ana@example.com' };
const bob = { userId: 'u-bob', email: 'bob@example.com' };

const request = (change: Partial<ChangeRequest> = {}): ChangeRequest => ({
  requestId: 'req_1',
  promptId: 'welcome',
  label: 'production',
  from: '1.0.1',
  to: '1.0.2',
  note: 'New greeting',
  restore: false,
  requestedBy: ana.email,
  requestedAt: '2025-01-02T10:00:00.000Z',
  required: 1,
  approvals: [],
  state: 'open',
  decision: null,
  ...change,
});

/** An approval by `by` that counts, as an admin. */
const approval = (by: string, standing: Partial<Approval> = {}): Approval => ({
  by,
  at: '2025-01-02T11:00:00Z',
  comment: null,
  counts: true,
  role: 'admin',
  why: null,
  ...standing,
});

describe("a change request's state in words", () => {
  test('every state has its badge word, and the filters offer each and all', () => {
    expect(CHANGE_REQUEST_STATES.map(stateWord)).toEqual(['open', 'applied', 'rejected', 'withdrawn', 'stale']);
    expect(stateWord('archived')).toBe('archived');
    expect(STATE_FILTERS.map((filter) => filter.value)).toEqual([...CHANGE_REQUEST_STATES, '']);
  });

  test('the title says what would move', () => {
    expect(changeRequestTitle(request())).toBe('Move production of welcome from 1.0.1 to 1.0.2');
    expect(changeRequestTitle(request({ from: null }))).toBe('Move production of welcome to 1.0.2');
    expect(changeRequestTitle(request({ restore: true }))).toBe('Restore production of welcome from 1.0.1 to 1.0.2');
    expect(changeRequestTitle(request({ to: null }))).toBe('Remove production of welcome (at 1.0.1)');
  });

  test('an open request says how many approvals it still waits for', () => {
    expect(stateExplanation(request({ required: 2, approvals: [approval(bob.email)] }))).toBe(
      'Waiting for 1 more approval (1 of 2 approvals). production of welcome moves to 1.0.2 once enough people approve.',
    );
    expect(stateExplanation(request())).toBe('Waiting for 1 more approval (0 of 1 approval). production of welcome moves to 1.0.2 once enough people approve.');
  });

  test('an approval from someone who may no longer give it is counted apart, and says why in words', () => {
    const demoted = approval(bob.email, { counts: false, role: 'viewer', why: 'a viewer, and approving a change of production needs the admin role' });
    const counting = approval('carol@example.com', { at: '2025-01-02T12:00:00Z' });
    const open = request({ required: 2, approvals: [demoted, counting] });
    expect(approvalCount(open)).toBe('1 of 2 approvals, 1 not counting');
    expect(stateExplanation(open)).toBe(
      'Waiting for 1 more approval (1 of 2 approvals, 1 not counting). production of welcome moves to 1.0.2 once enough people approve.',
    );
    expect(approvalStandingText(demoted, 'open')).toBe(
      'Does not count now: bob@example.com is a viewer, and approving a change of production needs the admin role.',
    );
    expect(approvalStandingText(counting, 'open')).toBe('Counts.');
    expect(approvalStandingText({ ...demoted, why: 'not a member of the account' }, 'applied')).toBe(
      'Did not count: bob@example.com was not a member of the account.',
    );
    expect(approvalStandingText(counting, 'applied')).toBe('Counted.');
    // Counting approvals that are enough let one who approved already approve again (their role given back).
    expect(enoughCounting(open)).toBe(false);
    expect(enoughCounting(request({ required: 2, approvals: [{ ...demoted, counts: true }, counting] }))).toBe(true);
  });

  test('applied, rejected and withdrawn say where the label is', () => {
    expect(stateExplanation(request({ state: 'applied' }))).toBe(
      'Approved and applied: production of welcome points at 1.0.2, and the read API serves it from the next request.',
    );
    expect(stateExplanation(request({ state: 'applied', to: null }))).toBe(
      'Approved and applied: production is off welcome, and the read API answers 404 for ?label=production from the next request.',
    );
    expect(stateExplanation(request({ state: 'rejected', decision: { by: bob.email, at: '', comment: 'Not before Monday' } }))).toBe(
      'Rejected by bob@example.com: production did not move. They said: "Not before Monday"',
    );
    expect(stateExplanation(request({ state: 'withdrawn' }))).toBe('Withdrawn before it was decided: production did not move.');
  });

  test('a stale request explains why nothing moved, and what to do', () => {
    expect(stateExplanation(request({ state: 'stale' }), '1.0.3')).toBe(
      'Stale: production moved (to 1.0.3) after this was asked, so it no longer points at 1.0.1, and this change was not applied. Nothing moved. To still move it to 1.0.2, ask again from where production is now.',
    );
    expect(stateExplanation(request({ state: 'stale' }))).toMatch(/^Stale: production moved after this was asked, so it no longer points at 1\.0\.1/);
  });

  test('a request that starts a rollout says so, with its share, in its title and its state', () => {
    const rollout = request({ rollout: { percent: 10, steps: [], guardAlarm: null } });
    expect(changeRequestTitle(rollout)).toBe('Roll out production of welcome from 1.0.1 to 1.0.2 for 10%');
    expect(stateExplanation(rollout)).toBe(
      'Waiting for 1 more approval (0 of 1 approval). The rollout of production of welcome to 1.0.2 starts at 10% once enough people approve.',
    );
    expect(stateExplanation({ ...rollout, state: 'applied' })).toBe(
      'Approved and applied: the rollout of production of welcome to 1.0.2 started at 10%; production stays on 1.0.1 for the others until the rollout is completed.',
    );
  });

  test('approvals are counted against those needed', () => {
    expect(approvalCount(request({ required: 1 }))).toBe('0 of 1 approval');
    expect(approvalCount(request({ required: 3, approvals: [approval(bob.email)] }))).toBe('1 of 3 approvals');
  });

  test("the navigation's name for Requests carries the number open", () => {
    expect(changeRequestsNavName(2)).toBe('Requests, 2 open');
    expect(changeRequestsNavName(1)).toBe('Requests, 1 open');
    expect(changeRequestsNavName(0)).toBe('Requests');
    expect(changeRequestsNavName(undefined)).toBe('Requests');
  });
});

describe('who may decide a change request', () => {
  test('never the requester, by email or user id, whatever their role', () => {
    expect(decisionDenial(request(), ana, 'owner', ['production'])).toBe('You asked for this change: someone else approves or rejects it.');
    expect(decisionDenial(request({ requestedBy: 'u-ana' }), ana, 'owner', ['production'])).toBeDefined();
    expect(decisionDenial(request({ requestedBy: 'ANA@example.com' }), ana, 'owner', ['production'])).toBeDefined();
  });

  test('only those who may move the label: admins for a protected one, editors for others', () => {
    expect(decisionDenial(request(), bob, 'admin', ['production'])).toBeUndefined();
    expect(decisionDenial(request(), bob, 'editor', ['production'])).toBe(
      'Only those who may move production (admins and above) approve or reject its requests.',
    );
    expect(decisionDenial(request({ label: 'staging' }), bob, 'editor', ['production'])).toBeUndefined();
    expect(decisionDenial(request({ label: 'staging' }), bob, 'viewer', ['production'])).toMatch(/editors and above/);
  });

  test('a decided request has nothing left to decide or withdraw', () => {
    expect(decisionDenial(request({ state: 'applied' }), bob, 'owner', [])).toBe('This request is applied: there is nothing left to decide.');
    expect(withdrawDenial(request({ state: 'stale' }), ana)).toBe('This request is stale: it can no longer be withdrawn.');
  });

  test('only the requester withdraws', () => {
    expect(withdrawDenial(request(), ana)).toBeUndefined();
    expect(withdrawDenial(request(), bob)).toBe('Only ana@example.com, who asked for it, can withdraw it.');
  });

  test('an approval given counts once', () => {
    expect(hasApproved(request({ approvals: [approval(bob.email)] }), bob)).toBe(true);
    expect(hasApproved(request({ approvals: [approval(bob.email)] }), ana)).toBe(false);
  });
});
