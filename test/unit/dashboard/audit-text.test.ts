import { type AuditEntry, auditSentence, changeText, FILTER_OUTCOMES, outcomeText } from '../../../dashboard/src/features/audit/audit-text';
import { AuditQuery } from '../../../lambda/management-api/handlers/audit-contracts';

const user = { type: 'user' as const, userId: 'u1', email: 'ada@example.com' };
const entry = (fields: Partial<AuditEntry>): AuditEntry => ({
  entryId: 'e',
  at: '2026-11-23T10:00:00Z',
  actor: user,
  action: 'x',
  target: {},
  outcome: 'succeeded',
  ...fields,
});

describe('audit entries in sentences', () => {
  test('a publish names the prompt and version', () => {
    expect(auditSentence(entry({ action: 'version.publish', target: { promptId: 'welcome', version: '1.0.1' } }))).toBe(
      'ada@example.com published welcome 1.0.1',
    );
  });

  test('a label move names the label, the prompt, where it was and where it went', () => {
    expect(
      auditSentence(entry({ action: 'label.set', target: { promptId: 'welcome-email', label: 'production' }, after: { version: '1.3.0', was: '1.2.0' } })),
    ).toBe('ada@example.com moved production of welcome-email from 1.2.0 to 1.3.0');
    expect(auditSentence(entry({ action: 'label.set', target: { promptId: 'welcome', label: 'staging' }, after: { version: '1.0.0', was: null } }))).toBe(
      'ada@example.com moved staging of welcome to 1.0.0',
    );
  });

  test("a change request's steps name the label, the prompt and the move asked for", () => {
    expect(
      auditSentence(
        entry({
          action: 'request.open',
          target: { promptId: 'welcome', label: 'production' },
          after: { requestId: 'req_1', from: '1.0.0', to: '1.0.1', required: 1 },
        }),
      ),
    ).toBe('ada@example.com asked for approval to move production of welcome from 1.0.0 to 1.0.1');
    expect(
      auditSentence(
        entry({
          action: 'request.apply',
          target: { requestId: 'req_1', promptId: 'welcome', label: 'production' },
          after: { state: 'applied', from: '1.0.0', to: '1.0.1' },
        }),
      ),
    ).toBe('ada@example.com applied the change request for production of welcome from 1.0.0 to 1.0.1');
    expect(
      auditSentence(
        entry({ action: 'request.reject', target: { requestId: 'req_1', promptId: 'welcome', label: 'production' }, after: { state: 'rejected' } }),
      ),
    ).toBe('ada@example.com rejected the change request for production of welcome');
  });

  test("a rollout's steps name the label, the prompt and the versions; the automation is named by what it does", () => {
    const target = { promptId: 'welcome', label: 'production' };
    expect(auditSentence(entry({ action: 'rollout.start', target, after: { rolloutId: 'ro_1', from: '1.0.0', to: '1.1.0', percent: 10 } }))).toBe(
      'ada@example.com started rolling out production of welcome from 1.0.0 to 1.1.0',
    );
    expect(
      auditSentence(
        entry({ action: 'rollout.change', actor: { type: 'system', name: 'rollout-steps' }, target, after: { rolloutId: 'ro_1', percent: 25, was: 10 } }),
      ),
    ).toBe('the rollout schedule changed the share of the rollout of production of welcome');
    expect(
      auditSentence(
        entry({ action: 'rollout.abort', actor: { type: 'system', name: 'guard-alarm' }, target, after: { rolloutId: 'ro_1', from: '1.0.0', to: '1.1.0' } }),
      ),
    ).toBe('the guard alarm aborted the rollout of production of welcome from 1.0.0 to 1.1.0');
    expect(auditSentence(entry({ action: 'rollout.complete', actor: { type: 'cli', operator: 'ops' }, target, after: { from: '1.0.0', to: '1.1.0' } }))).toBe(
      'operator ops (CLI) completed the rollout of production of welcome from 1.0.0 to 1.1.0',
    );
  });

  test('a change of details names the prompt', () => {
    expect(auditSentence(entry({ action: 'prompt.update', target: { promptId: 'welcome' } }))).toBe('ada@example.com changed the details of welcome');
  });

  test('an action the page does not know is said as it is, whatever its name', () => {
    expect(auditSentence(entry({ action: 'constructor', target: {} }))).toBe('ada@example.com constructor');
    expect(outcomeText(entry({ outcome: 'toString' as AuditEntry['outcome'] }))).toBe('toString');
  });

  test('an operator through the CLI is named as one', () => {
    expect(auditSentence(entry({ actor: { type: 'cli', operator: 'ci' }, action: 'key.revoke', target: { keyId: 'key_0123456789abcdef' } }))).toBe(
      'operator ci (CLI) revoked key key_0123456789abcdef',
    );
  });

  test('a refused attempt says why', () => {
    expect(outcomeText(entry({ outcome: 'refused', reason: { code: 'FORBIDDEN', message: 'it needs editor' } }))).toBe('refused: it needs editor');
    expect(outcomeText(entry({}))).toBe('done');
  });

  test('before and after, compactly', () => {
    expect(changeText({ before: { version: '1.0.0' }, after: { version: '1.0.1' } })).toBe('was {"version":"1.0.0"}; now {"version":"1.0.1"}');
    expect(changeText({})).toBe('');
    expect(changeText({ before: { etag: 'a' }, after: { etag: 'b', published: true } })).toBe('{"published":true}');
  });
});

test('a role change names the person by email when the members list knows them, else by user id', () => {
  const change = entry({ action: 'member.set-role', target: { userId: 'u-7' }, before: { role: 'viewer' }, after: { role: 'editor' } });
  expect(auditSentence(change, new Map([['u-7', 'grace@example.com']]))).toBe('ada@example.com changed the role of grace@example.com');
  expect(auditSentence(change)).toBe('ada@example.com changed the role of u-7');
});

test('the outcome filter offers exactly the outcomes the API narrows the log to (no pending: no entry is written so now)', () => {
  for (const outcome of FILTER_OUTCOMES) expect(AuditQuery.safeParse({ outcome }).success).toBe(true);
  expect(AuditQuery.safeParse({ outcome: 'pending' }).success).toBe(false);
  expect([...FILTER_OUTCOMES].sort()).toEqual([...AuditQuery.shape.outcome.def.innerType.options].sort());
});
