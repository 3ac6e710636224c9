import {
  approvalCount,
  approvalStandingText,
  enoughCounting,
  approvalLabelsFromText,
  approvalSettingsProblem,
  approvalsNeeded,
  type ChangeRequest,
  decisionDenial,
  hasApproved,
  historyMove,
  historyReason,
  placeholderChange,
  placeholderWarnings,
  REQUEST_STATES,
  requestTitle,
  requestsNavName,
  restoreTarget,
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
  requestedBy: ana.email,
  requestedAt: '2025-01-02T10:00:00.000Z',
  approvals: [],
  state: 'open',
  ...change,
});

describe('the variables a label move adds and removes, in plain words', () => {
  const messages = (systemMessage: string, userMessage: string) => ({ systemMessage, userMessage });

  test('a variable the new version needs and the old did not is added; one it dropped is removed', () => {
    expect(placeholderChange(messages('You help ${company}.', 'Hi ${name}'), messages('You help ${company}.', 'Hi ${name} in ${city}'))).toEqual({
      added: ['city'],
      removed: [],
    });
    expect(placeholderChange(messages('', 'Hi ${name} from ${company}'), messages('', 'Hi ${name}'))).toEqual({ added: [], removed: ['company'] });
  });

  test('read as the client reads them: $${ is a literal, and a variable moved between the messages is the same variable', () => {
    expect(placeholderChange(messages('', 'Hi ${name}'), messages('Call them ${name}', 'Hi $${literal}'))).toEqual({ added: [], removed: [] });
  });

  test('a label that pointed nowhere: every variable is new', () => {
    expect(placeholderChange(undefined, messages('', '${a} ${b}'))).toEqual({ added: ['a', 'b'], removed: [] });
  });

  test('callers that fill only the old variables are warned of the one they will miss', () => {
    expect(placeholderWarnings({ added: ['x'], removed: [] })).toEqual({ added: 'Callers that fill only the old variables will miss ${x}.' });
  });

  test('several are listed with commas and a final "and"', () => {
    expect(placeholderWarnings({ added: ['city', 'date', 'time'], removed: [] }).added).toBe(
      'Callers that fill only the old variables will miss ${city}, ${date} and ${time}.',
    );
  });

  test('a removed variable is harmless, said as such; nothing to say when the variables are the same', () => {
    expect(placeholderWarnings({ added: [], removed: ['company'] })).toEqual({
      removed: '${company} is no longer used: a value sent for it is ignored (compile with strict: true refuses it).',
    });
    expect(placeholderWarnings({ added: [], removed: ['a', 'b'] }).removed).toBe(
      '${a} and ${b} are no longer used: a value sent for them is ignored (compile with strict: true refuses them).',
    );
    expect(placeholderWarnings({ added: [], removed: [] })).toEqual({});
  });

  test('when the label pointed nowhere before, the callers must fill the new ones', () => {
    expect(placeholderWarnings({ added: ['name'], removed: [] }, false).added).toBe('Callers must fill ${name}: the label pointed at no version before.');
  });
});

describe("a request's state in words", () => {
  test('every state has its badge word, and the filters offer each and all', () => {
    expect(REQUEST_STATES.map(stateWord)).toEqual(['open', 'applied', 'rejected', 'withdrawn', 'stale']);
    expect(stateWord('archived')).toBe('archived');
    expect(STATE_FILTERS.map((filter) => filter.value)).toEqual([...REQUEST_STATES, '']);
  });

  test('the title says what would move', () => {
    expect(requestTitle(request())).toBe('Move production of welcome from 1.0.1 to 1.0.2');
    expect(requestTitle(request({ from: null }))).toBe('Move production of welcome to 1.0.2');
    expect(requestTitle(request({ restore: true }))).toBe('Restore production of welcome from 1.0.1 to 1.0.2');
    expect(requestTitle(request({ to: null }))).toBe('Remove production of welcome (at 1.0.1)');
  });

  test('an open request says how many approvals it still waits for', () => {
    expect(stateExplanation(request({ required: 2, approvals: [{ by: bob.email, at: '2025-01-02T11:00:00Z' }] }))).toBe(
      'Waiting for 1 more approval (1 of 2 approvals). production of welcome moves to 1.0.2 once enough people approve.',
    );
    expect(stateExplanation(request())).toBe('Waiting for approval. production of welcome moves to 1.0.2 once enough people approve.');
  });

  test('an approval from someone who may no longer give it is counted apart, and says why in words', () => {
    const demoted = { by: bob.email, at: '2025-01-02T11:00:00Z', counts: false, why: 'a viewer, and approving a change of production needs the admin role' };
    const counting = { by: 'carol@example.com', at: '2025-01-02T12:00:00Z', counts: true, why: null };
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
    const rollout = request({ rollout: { percent: 10 } });
    expect(requestTitle(rollout)).toBe('Roll out production of welcome from 1.0.1 to 1.0.2 for 10%');
    expect(stateExplanation(rollout)).toBe('Waiting for approval. The rollout of production of welcome to 1.0.2 starts at 10% once enough people approve.');
    expect(stateExplanation({ ...rollout, state: 'applied' })).toBe(
      'Approved and applied: the rollout of production of welcome to 1.0.2 started at 10%; production stays on 1.0.1 for the others until the rollout is completed.',
    );
  });

  test('approvals are counted against those needed, when known', () => {
    expect(approvalCount(request({ required: 1 }))).toBe('0 of 1 approval');
    expect(approvalCount(request({ required: 3, approvals: [{ by: bob.email, at: '' }] }))).toBe('1 of 3 approvals');
    expect(approvalCount(request())).toBe('0 approvals');
  });

  test("the navigation's name for Requests carries the number open", () => {
    expect(requestsNavName(2)).toBe('Requests, 2 open');
    expect(requestsNavName(1)).toBe('Requests, 1 open');
    expect(requestsNavName(0)).toBe('Requests');
    expect(requestsNavName(undefined)).toBe('Requests');
  });
});

describe('who may decide a request', () => {
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
    expect(hasApproved(request({ approvals: [{ by: bob.email, at: '' }] }), bob)).toBe(true);
    expect(hasApproved(request({ approvals: [{ by: bob.email, at: '' }] }), ana)).toBe(false);
  });
});

describe('label history and restores', () => {
  test('each move in a few words', () => {
    expect(historyMove({ from: '1.0.0', to: '1.0.1' })).toBe('1.0.0 to 1.0.1');
    expect(historyMove({ from: null, to: '1.0.0' })).toBe('set to 1.0.0');
    expect(historyMove({ from: '1.0.1', to: null })).toBe('removed (was 1.0.1)');
  });

  test('the reason says how it moved, and names the change request that moved it', () => {
    expect(historyReason('request req_20261127034323123_0a1b2c3d')).toEqual({ text: 'through a change request', requestId: 'req_20261127034323123_0a1b2c3d' });
    expect(historyReason('restore')).toEqual({ text: 'restored from the history' });
    expect(historyReason('restore: back to the known good one')).toEqual({ text: 'restored: back to the known good one' });
    expect(historyReason('push')).toEqual({ text: 'pushed from a prompts folder (CLI)' });
    expect(historyReason('break-glass')).toEqual({ text: 'moved by an operator without its change request (break-glass)' });
    expect(historyReason('break-glass: incident 42')).toEqual({ text: 'moved by an operator without its change request (break-glass): incident 42' });
    expect(historyReason('Greet by city')).toEqual({ text: 'Greet by city' });
    expect(historyReason(null)).toBeUndefined();
  });

  test('a past position can be restored; where the label is now, or a removal, cannot', () => {
    expect(restoreTarget({ to: '1.0.0' }, '1.0.1')).toBe('1.0.0');
    expect(restoreTarget({ to: '1.0.1' }, '1.0.1')).toBeUndefined();
    expect(restoreTarget({ to: null }, '1.0.1')).toBeUndefined();
  });
});

describe('approval settings', () => {
  test('labels are read from commas or spaces, each once', () => {
    expect(approvalLabelsFromText(' production, staging  production ')).toEqual(['production', 'staging']);
    expect(approvalLabelsFromText('')).toEqual([]);
  });

  test('a label the API would refuse, and a number outside 1 to 5, are said before sending', () => {
    expect(approvalSettingsProblem(['production'], 2)).toBeUndefined();
    expect(approvalSettingsProblem([], 1)).toBeUndefined();
    expect(approvalSettingsProblem(['Prod'], 1)?.field).toBe('labels');
    expect(approvalSettingsProblem(['production'], 0)).toEqual({ field: 'required', message: 'Between 1 and 5 approvals.' });
    expect(approvalSettingsProblem(['production'], 6)?.field).toBe('required');
  });

  test('a label needs the account’s number of approvals only when listed', () => {
    expect(approvalsNeeded({ labels: ['production'], required: 2 }, 'production')).toBe(2);
    expect(approvalsNeeded({ labels: ['production'], required: 2 }, 'staging')).toBeUndefined();
    expect(approvalsNeeded(undefined, 'production')).toBeUndefined();
  });
});
