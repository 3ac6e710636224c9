import { Operations } from '../../lambda/operations';
import { listAudit } from '../../lambda/table/audit-log';
import { listChangeRequests } from '../../lambda/features/change-requests/change-requests';
import { listLabelHistory } from '../../lambda/table/label-history';
import { findRollout } from '../../lambda/features/rollouts/rollouts';
import { keys } from '../../lambda/table/schema';
import { Table } from '../../lambda/table/table';
import type { TransactionWrite } from '../../lambda/table/transaction';
import { prompt, version } from '../support/fixtures';
import { ManagementHarness, type Person } from '../support/management-harness';

/**
 * A label under approval moves only through its change request, whichever door a member knocks on: a move (PUT
 * of the label), a removal (DELETE), a restore (PUT with `restore`), a push (releasePrompt), a rollout start, the
 * operator's CLI (a request too, unless `--break-glass`). Whether a label needs a request is decided inside the
 * change, and held by its transaction: the account's approvals as read (a ConditionCheck on the account item), and
 * "the label points there already" as read (a ConditionCheck on the prompt's head). A race between the decision
 * and the write is planned again, never won. Every refusal is read back: the label, its history, the audit log.
 */
const api = new ManagementHarness();
let owner: Person;
let asker: Person;
let approver: Person;
let racer: Person;

const ACCOUNT = 'gated';
const A = `/api/accounts/${ACCOUNT}`;
const P = `${A}/prompts`;
const VERSIONS = [version('1.0.0'), version('1.1.0'), version('1.2.0')];

/** The rounds of the concurrent race: the attack moved the label in 5 of 8 rounds; 40 leave no luck to a fix that is not one. */
const RACE_ROUNDS = 40;
/** The racer's connections, each sending its next PUT as soon as the last is answered. */
const RACERS = 6;
const RACE_PROMPTS = Array.from({ length: RACE_ROUNDS }, (_, round) => `race-${round}`);

/** The doors that decide before they write, each on an account of its own: approvals are turned on between its read and its write. */
const DOOR_ACCOUNTS = ['door-put', 'door-restore', 'door-delete', 'door-rollout', 'door-push'];

beforeAll(async () => {
  await api.start();
  await api.fixtures.account(ACCOUNT, 'pro');
  await api.fixtures.prompts(
    ACCOUNT,
    ...['moved-meanwhile', 'cli-label', 'cli-unlabel', 'cli-glass', 'cli-glass-off', 'cli-glass-unlabel', ...RACE_PROMPTS].map((id) =>
      prompt(id, VERSIONS, { labels: { production: '1.0.0', staging: '1.0.0' } }),
    ),
  );
  owner = await api.person('owner@gated.test', ACCOUNT, 'owner');
  asker = await api.person('asker@gated.test', ACCOUNT, 'admin');
  approver = await api.person('approver@gated.test', ACCOUNT, 'admin');
  racer = await api.person('racer@gated.test', ACCOUNT, 'admin');
  for (const account of DOOR_ACCOUNTS) {
    await api.fixtures.account(account, 'pro');
    await api.fixtures.prompts(account, prompt('welcome', VERSIONS, { labels: { production: '1.0.0' } }));
    await api.person(owner.email, account, 'owner');
    await api.person(asker.email, account, 'admin');
  }
  expect((await api.send('PATCH', A, { as: owner, body: { approvals: { labels: ['production'] } } })).status).toBe(200);
}, 60_000);
afterAll(() => api.stop());

const labelsOf = async (promptId: string, account = ACCOUNT): Promise<Record<string, string>> =>
  ((await api.send('GET', `/api/accounts/${account}/prompts/${promptId}`, { as: owner })).body as { labels: Record<string, string> }).labels;

const historyOf = async (promptId: string, label = 'production', account = ACCOUNT) =>
  (await listLabelHistory(api.table, account, promptId, label)).entries.map(({ by, from, to, reason }) => ({ by, from, to, reason }));

const openRequestsOf = async (promptId: string, account = ACCOUNT) =>
  (await listChangeRequests(api.table, account, { state: 'open' })).requests.filter((request) => request.promptId === promptId);

/** Every audit entry of a prompt, newest first, page after page. */
async function auditOf(account: string, promptId: string) {
  const all = [];
  for (let before: string | undefined; ; ) {
    const page = await listAudit(api.table, account, { filter: { promptId }, ...(before === undefined ? {} : { before }) });
    all.push(...page.entries);
    if (page.next === undefined) return all;
    before = page.next;
  }
}

/** The audit entries of a prompt's label moves and requests, oldest first, as action, outcome and who. */
async function audited(account: string, promptId: string): Promise<{ action: string; outcome: string; by: string }[]> {
  return (await auditOf(account, promptId))
    .filter((entry) => /^(label|request|rollout)\./.test(entry.action))
    .reverse()
    .map((entry) => ({
      action: entry.action,
      outcome: entry.outcome,
      by: entry.actor.type === 'user' ? entry.actor.email : entry.actor.type === 'cli' ? `cli:${entry.actor.operator}` : entry.actor.name,
    }));
}

const approve = (requestId: string, as: Person) => api.send('POST', `${A}/requests/${requestId}/approve`, { as, body: {} });

/**
 * The table as the management API's requests use it, with `before` run once just before the first store call that
 * `when` picks: the moment another change lands between what a door reads and what it writes.
 */
class RacingTable extends Table {
  private raced = false;
  constructor(
    private readonly when: { transact?: (callName: string, writes: readonly TransactionWrite[]) => boolean; get?: (key: Record<string, string>) => boolean },
    private readonly before: () => Promise<unknown>,
  ) {
    super(api.local.client, api.local.tableName, () => new Date());
  }
  get fired(): boolean {
    return this.raced;
  }
  // The requests' deadlines play no part here: every request uses this very table.
  override withDeadline(): Table {
    return this;
  }
  private async race(): Promise<void> {
    this.raced = true;
    await this.before();
  }
  override async transact(callName: string, writes: readonly TransactionWrite[], options?: { proof?: Record<string, string> }): Promise<void> {
    if (!this.raced && this.when.transact?.(callName, writes)) await this.race();
    return super.transact(callName, writes, options);
  }
  override async get<T>(callName: string, key: Record<string, string>): Promise<T | undefined> {
    const item = await super.get<T>(callName, key);
    if (!this.raced && this.when.get?.(key)) await this.race();
    return item;
  }
}

/**
 * The table a few milliseconds away, as DynamoDB is from a deployed function (in-process dynalite answers in well
 * under one): each read and transaction waits 1 to 4 ms before it is sent, so a request's steps take the time
 * they take deployed, where the attack was found.
 */
class DistantTable extends Table {
  constructor() {
    super(api.local.client, api.local.tableName, () => new Date());
  }
  override withDeadline(): Table {
    return this;
  }
  override async get<T>(callName: string, key: Record<string, string>): Promise<T | undefined> {
    await away();
    return super.get<T>(callName, key);
  }
  override async batchGet<T>(keys: readonly Record<string, string>[], attributes?: readonly string[]): Promise<T[]> {
    await away();
    return super.batchGet<T>(keys, attributes);
  }
  override async queryPartition<T>(callName: string, accountId: string, skPrefix: string, extra?: Parameters<Table['queryPartition']>[3]): Promise<T[]> {
    await away();
    return super.queryPartition<T>(callName, accountId, skPrefix, extra);
  }
  override async transact(callName: string, writes: readonly TransactionWrite[], options?: { proof?: Record<string, string> }): Promise<void> {
    await away();
    return super.transact(callName, writes, options);
  }
}
const away = () => new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * 3));

/** The management API served with `table` for the length of `run`. */
async function servedWith<T>(table: Table, run: () => Promise<T>): Promise<T> {
  api.useDependencies({ ...api.deps, table });
  try {
    return await run();
  } finally {
    api.useDependencies(api.deps);
  }
}

describe('approvals turned on between a door reading them and its change: the change is decided again, and asks', () => {
  /** Production of `account` put under approval by its owner, as another request would. */
  const turnOn = (account: string) =>
    api.operations({ type: 'user', userId: owner.userId, email: owner.email }).accounts.updateSettings(account, { approvals: { labels: ['production'] } });

  /** Read back: the label where it was, its history as imported, no move audited, and one request opened. */
  async function nothingMovedAndAsked(account: string): Promise<void> {
    expect(await labelsOf('welcome', account)).toEqual({ production: '1.0.0' });
    expect(await historyOf('welcome', 'production', account)).toEqual([{ by: 'import', from: null, to: '1.0.0', reason: 'import' }]);
    const steps = await audited(account, 'welcome');
    expect(steps.filter((step) => step.outcome === 'succeeded' && /^(label|rollout)\./.test(step.action))).toEqual([]);
    expect(steps.filter((step) => step.action === 'request.open' && step.outcome === 'succeeded')).toHaveLength(1);
    expect(await openRequestsOf('welcome', account)).toHaveLength(1);
  }

  const racing = (account: string, callName: string) => new RacingTable({ transact: (name) => name === callName }, () => turnOn(account));

  test('a move (PUT of the label): 202 with the request, nothing moved', async () => {
    const table = racing('door-put', 'label.set');
    const answer = await servedWith(table, () =>
      api.send('PUT', '/api/accounts/door-put/prompts/welcome/labels/production', { as: asker, body: { version: '1.1.0' } }),
    );
    expect(table.fired).toBe(true);
    expect(answer.status).toBe(202);
    expect((answer.body as { request: unknown }).request).toMatchObject({ from: '1.0.0', to: '1.1.0', state: 'open' });
    await nothingMovedAndAsked('door-put');
  });

  test('a restore (PUT with restore: true): 202 with the request, marked as a restore, nothing moved', async () => {
    const table = racing('door-restore', 'label.set');
    const answer = await servedWith(table, () =>
      api.send('PUT', '/api/accounts/door-restore/prompts/welcome/labels/production', { as: asker, body: { version: '1.2.0', restore: true } }),
    );
    expect(table.fired).toBe(true);
    expect(answer.status).toBe(202);
    expect((answer.body as { request: unknown }).request).toMatchObject({ to: '1.2.0', restore: true, state: 'open' });
    await nothingMovedAndAsked('door-restore');
  });

  test('a removal (DELETE of the label): 202 with the request to take it off, nothing removed', async () => {
    const table = racing('door-delete', 'label.remove');
    const answer = await servedWith(table, () => api.send('DELETE', '/api/accounts/door-delete/prompts/welcome/labels/production', { as: asker }));
    expect(table.fired).toBe(true);
    expect(answer.status).toBe(202);
    expect((answer.body as { request: unknown }).request).toMatchObject({ from: '1.0.0', to: null, state: 'open' });
    await nothingMovedAndAsked('door-delete');
  });

  test('a rollout start: 202 with the request that carries it, no rollout started', async () => {
    const table = racing('door-rollout', 'rollout.start');
    const answer = await servedWith(table, () =>
      api.send('PUT', '/api/accounts/door-rollout/prompts/welcome/labels/production/rollout', { as: asker, body: { to: '1.1.0', percent: 10 } }),
    );
    expect(table.fired).toBe(true);
    expect(answer.status).toBe(202);
    expect((answer.body as { request: unknown }).request).toMatchObject({ to: '1.1.0', rollout: { percent: 10 }, state: 'open' });
    expect(await findRollout(api.table, 'door-rollout', 'welcome', 'production')).toBeUndefined();
    await nothingMovedAndAsked('door-rollout');
  });

  test('a push (one prompt of `prompts push`): the label awaits its request, nothing moved', async () => {
    const table = racing('door-push', 'label.set');
    const ops = new Operations({ table, actor: { type: 'cli', operator: 'ci-bot' } });
    const released = await ops.prompts.release('door-push', { promptId: 'welcome', labels: [{ label: 'production', to: '1.1.0' }] }, { note: 'From main' });
    expect(table.fired).toBe(true);
    expect(released.changeRequests).toEqual([{ label: 'production', requestId: expect.stringMatching(/^req_/) }]);
    await nothingMovedAndAsked('door-push');
  });
});

describe('"it points there already" is a condition of the no-op, not a read before it', () => {
  test('the request applies after the PUT read the label: the PUT is planned again and asks (202); the label moved only through the request', async () => {
    const opened = await api.send('PUT', `${P}/moved-meanwhile/labels/production`, { as: asker, body: { version: '1.1.0' } });
    expect(opened.status).toBe(202);
    const { requestId } = (opened.body as { request: { requestId: string } }).request;
    // The approval lands right after the racer's PUT first reads the prompt's head.
    const head = keys.promptHead(ACCOUNT, 'moved-meanwhile');
    const table = new RacingTable({ get: (key) => key.pk === head.pk && key.sk === head.sk }, async () =>
      expect((await approve(requestId, approver)).status).toBe(200),
    );
    const answer = await servedWith(table, () => api.send('PUT', `${P}/moved-meanwhile/labels/production`, { as: racer, body: { version: '1.0.0' } }));
    expect(table.fired).toBe(true);
    expect(answer.status).toBe(202);
    expect((answer.body as { request: unknown }).request).toMatchObject({ from: '1.1.0', to: '1.0.0', requestedBy: racer.email, state: 'open' });
    expect(await labelsOf('moved-meanwhile')).toMatchObject({ production: '1.1.0' });
    expect(await historyOf('moved-meanwhile')).toEqual([
      { by: approver.email, from: '1.0.0', to: '1.1.0', reason: `request ${requestId}` },
      { by: 'import', from: null, to: '1.0.0', reason: 'import' },
    ]);
    expect((await audited(ACCOUNT, 'moved-meanwhile')).filter((step) => step.by === racer.email)).toEqual([
      { action: 'request.open', outcome: 'succeeded', by: racer.email },
    ]);
  });

  test(`the attack: no-op PUTs every few milliseconds racing the approval that applies the request, ${RACE_ROUNDS} rounds: never a move without a request`, async () => {
    const outcomes: { round: number; history: unknown; label: string | undefined; racerMoves: number }[] = [];
    await servedWith(new DistantTable(), async () => {
      for (const [round, promptId] of RACE_PROMPTS.entries()) {
        const opened = await api.send('PUT', `${P}/${promptId}/labels/production`, { as: asker, body: { version: '1.1.0' } });
        expect(opened.status).toBe(202);
        const { requestId } = (opened.body as { request: { requestId: string } }).request;
        // The racer asks for the version the label points at now, over and over from a few connections at once, each
        // a millisecond or two after its last answer, so that some PUT is at every step of its way when the approval
        // lands: from well before the approval is sent until some PUTs after it is answered.
        let approved = false;
        const racerLoop = async (): Promise<number[]> => {
          const answers: number[] = [];
          for (let after = 0; after < 3; after += approved ? 1 : 0) {
            await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
            answers.push((await api.send('PUT', `${P}/${promptId}/labels/production`, { as: racer, body: { version: '1.0.0' } })).status);
          }
          return answers;
        };
        const racing = Promise.all(Array.from({ length: RACERS }, racerLoop)).then((answers) => answers.flat());
        await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 20));
        const approval = approve(requestId, approver).then((answer) => {
          approved = true;
          return answer;
        });
        const [approvedAnswer, statuses] = await Promise.all([approval, racing]);
        expect(approvedAnswer.status).toBe(200);
        expect(statuses.every((status) => [200, 202, 409].includes(status))).toBe(true);
        const history = await historyOf(promptId);
        outcomes.push({
          round,
          history,
          label: (await labelsOf(promptId)).production,
          racerMoves: history.filter((entry) => entry.by === racer.email).length,
        });
      }
    });
    // Every round: the label moved once, by the approval, and stayed there; the racer moved nothing.
    const moved = outcomes.filter((outcome) => outcome.racerMoves > 0 || outcome.label !== '1.1.0');
    expect(moved.map(({ round, label, racerMoves }) => ({ round, label, racerMoves }))).toEqual([]);
    for (const [round, promptId] of RACE_PROMPTS.entries()) {
      expect({ round, history: (outcomes[round] as { history: unknown }).history }).toEqual({
        round,
        history: [
          { by: approver.email, from: '1.0.0', to: '1.1.0', reason: expect.stringMatching(/^request req_/) },
          { by: 'import', from: null, to: '1.0.0', reason: 'import' },
        ],
      });
      // The racer's PUTs that answered 200 are recorded as what they were: moves to where the label pointed.
      const racerSets = (await auditOf(ACCOUNT, promptId)).filter(
        (entry) => entry.action === 'label.set' && entry.outcome === 'succeeded' && entry.actor.type === 'user' && entry.actor.email === racer.email,
      );
      expect({ round, moved: racerSets.filter((entry) => entry.after?.was !== entry.after?.version) }).toEqual({ round, moved: [] });
    }
  }, 240_000);
});

describe("the operator's CLI: a label under approval is asked for, unless --break-glass", () => {
  const cli = (...argv: string[]) => api.cli('ops', 'prompts', ...argv, '--account', ACCOUNT);

  test('prompts label opens a change request (requested by cli:ops) and moves nothing', async () => {
    const run = await cli('label', '--prompt', 'cli-label', '--label', 'production', '--version', '1.1.0', '--note', 'Ship it');
    expect(run.code).toBe(0);
    const [request] = await openRequestsOf('cli-label');
    expect(request).toMatchObject({ from: '1.0.0', to: '1.1.0', note: 'Ship it', requestedBy: 'cli:ops', state: 'open' });
    expect(run.stdout).toContain(`change request ${request?.requestId}`);
    expect(run.stdout).toContain('--break-glass');
    expect(await labelsOf('cli-label')).toMatchObject({ production: '1.0.0' });
    expect(await historyOf('cli-label')).toEqual([{ by: 'import', from: null, to: '1.0.0', reason: 'import' }]);
    expect(await audited(ACCOUNT, 'cli-label')).toEqual([{ action: 'request.open', outcome: 'succeeded', by: 'cli:ops' }]);
    // Members approve it as any request: then it moves, its history naming the request.
    expect((await approve(request?.requestId as string, approver)).status).toBe(200);
    expect(await labelsOf('cli-label')).toMatchObject({ production: '1.1.0' });
  });

  test('prompts unlabel opens a change request to take it off, and removes nothing', async () => {
    const run = await cli('unlabel', '--prompt', 'cli-unlabel', '--label', 'production');
    expect(run.code).toBe(0);
    const [request] = await openRequestsOf('cli-unlabel');
    expect(request).toMatchObject({ from: '1.0.0', to: null, requestedBy: 'cli:ops' });
    expect(run.stdout).toContain(`change request ${request?.requestId}`);
    expect(await labelsOf('cli-unlabel')).toMatchObject({ production: '1.0.0' });
    expect(await historyOf('cli-unlabel')).toEqual([{ by: 'import', from: null, to: '1.0.0', reason: 'import' }]);
  });

  test('prompts label --break-glass moves it at once: the history says break-glass, the audit entry too', async () => {
    const run = await cli('label', '--prompt', 'cli-glass', '--label', 'production', '--version', '1.2.0', '--note', 'incident 42', '--break-glass');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('break-glass');
    expect(await labelsOf('cli-glass')).toMatchObject({ production: '1.2.0' });
    expect(await openRequestsOf('cli-glass')).toEqual([]);
    expect((await historyOf('cli-glass'))[0]).toEqual({ by: 'cli:ops', from: '1.0.0', to: '1.2.0', reason: 'break-glass: incident 42' });
    const [entry] = (await auditOf(ACCOUNT, 'cli-glass')).filter((candidate) => candidate.action === 'label.set');
    expect(entry).toMatchObject({
      outcome: 'succeeded',
      actor: { type: 'cli', operator: 'ops' },
      requested: { version: '1.2.0', note: 'incident 42', breakGlass: true },
      after: { version: '1.2.0', was: '1.0.0', reason: 'break-glass: incident 42', breakGlass: true },
    });
  });

  test('prompts unlabel --break-glass removes it at once, its history saying break-glass', async () => {
    expect((await cli('unlabel', '--prompt', 'cli-glass-unlabel', '--label', 'production', '--break-glass')).code).toBe(0);
    expect(await labelsOf('cli-glass-unlabel')).not.toHaveProperty('production');
    expect((await historyOf('cli-glass-unlabel'))[0]).toEqual({ by: 'cli:ops', from: '1.0.0', to: null, reason: 'break-glass' });
  });

  test('--break-glass on a label under no approval is an ordinary move: nothing to break, and its history says only the note', async () => {
    expect((await cli('label', '--prompt', 'cli-glass-off', '--label', 'staging', '--version', '1.1.0', '--note', 'try', '--break-glass')).code).toBe(0);
    expect((await historyOf('cli-glass-off', 'staging'))[0]).toEqual({ by: 'cli:ops', from: '1.0.0', to: '1.1.0', reason: 'try' });
  });

  test("break-glass is the operator's alone: the management API takes no breakGlass (400), and nothing moves", async () => {
    const refused = await api.send('PUT', `${P}/cli-glass-off/labels/production`, { as: owner, body: { version: '1.1.0', breakGlass: true } });
    expect(refused.status).toBe(400);
    expect(await labelsOf('cli-glass-off')).toMatchObject({ production: '1.0.0' });
    expect(await openRequestsOf('cli-glass-off')).toEqual([]);
    await expect(
      new Operations({ table: api.table, actor: { type: 'user', userId: owner.userId, email: owner.email } }).labels.set(
        ACCOUNT,
        'cli-glass-off',
        'production',
        '1.1.0',
        {
          breakGlass: true,
        },
      ),
    ).rejects.toThrow(/operator/);
    expect(await labelsOf('cli-glass-off')).toMatchObject({ production: '1.0.0' });
    expect(await historyOf('cli-glass-off')).toEqual([{ by: 'import', from: null, to: '1.0.0', reason: 'import' }]);
  });
});
