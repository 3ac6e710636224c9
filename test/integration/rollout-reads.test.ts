/**
 * @run-alone 240 reads, 16 at once in this one process, each answered within its 3.5 s store budget: another test file's CPU would turn some into 503s.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { hashApiKey } from '../../lambda/domain/api-key';
import type { Prompt } from '../../lambda/domain/prompt';
import { MAX_SUBJECT_LENGTH } from '../../lambda/domain/rollout';
import { bucketOf } from '../../lambda/domain/rollout-bucket';
import type { ApiStore } from '../../lambda/read-api/store/api-store';
import { ApiHarness, type ErrorBody } from '../support/api-harness';
import { restApiEvent } from '../support/events';
import { prompt, version } from '../support/fixtures';
import { type LabelRollout, labelRollout } from '../support/rollouts';
import { Table } from '../../lambda/table/table';
import { listLabelHistory } from '../../lambda/table/label-history';
import { listAudit } from '../../lambda/table/audit-log';
import type { Rollout } from '../../lambda/features/rollouts/rollouts';
import { MAX_FENCED_KEYS } from '../../lambda/table/served-counts';
import { keys as schemaKeys } from '../../lambda/table/schema';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { StoreUnavailableError } from '../../lambda/table/errors';

/**
 * docs/rollouts.md "Serving" and "Served counts", against the real handlers and the embedded store: a read at a
 * rolling-out label answers each subject by the bucket rule, says so in a header and in its body, and the side it
 * answered is counted on its key, exactly, in the write that takes its unit of quota. Rollouts are started, changed
 * and ended through the management side's operations, and their counts read as a person reads them (`served`).
 */
// Hundreds of requests a file, on a machine other suites share.
jest.setTimeout(60_000);

const api = new ApiHarness();
let accounts = 0;

type RolloutBody = { rolloutId: string; percent: number; from: string; to: string };
type Answer = Prompt & { rollout?: RolloutBody };

/** A fresh account: welcome (production on 1.0.0, rolling out to 2.0.0 at `percent`), other (production, no rollout), two keys. */
async function rollingOut(percent: number): Promise<{ accountId: string; keys: [string, string]; rolloutId: string; rollout: LabelRollout }> {
  accounts += 1;
  const accountId = `rollout-${accounts}`;
  await api.fixtures.account(accountId, 'pro');
  await api.fixtures.prompts(
    accountId,
    { ...prompt('welcome', [version('1.0.0'), version('2.0.0')]), labels: { production: '1.0.0' } },
    { ...prompt('other', [version('1.0.0')]), labels: { production: '1.0.0' } },
  );
  const keys: [string, string] = [await api.fixtures.apiKey(accountId), await api.fixtures.apiKey(accountId)];
  const rollout = labelRollout(api.localStore, { accountId, promptId: 'welcome', label: 'production' });
  const { rolloutId } = await rollout.start({ to: '2.0.0', percent });
  return { accountId, keys, rolloutId, rollout };
}

/** The rollout's served counts as the management API answers them. */
const servedBy = async (rollout: LabelRollout) => (await rollout.read()).served;

const asSubject = (subject: string) => ({ 'X-Prompt-Subject': subject });
const expectedVersion = (rolloutId: string, percent: number, subject: string) => (bucketOf(rolloutId, subject) < percent ? '2.0.0' : '1.0.0');
const subjects = (n: number, prefix = 'user') => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

const mcp = (apiKey: string, subject: string, message: object) =>
  api.send(
    restApiEvent({
      method: 'POST',
      rawPath: '/mcp',
      rawQueryString: 'label=production',
      rawHeaders: [
        'Authorization',
        `Bearer ${apiKey}`,
        'Content-Type',
        'application/json',
        'Accept',
        'application/json, text/event-stream',
        'X-Prompt-Subject',
        subject,
      ],
      body: Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, ...message })),
    }),
  );

beforeAll(() => api.start());
afterAll(() => api.stop());

describe('GET /prompts/{promptId}?label= at a rolling-out label', () => {
  test('answers each subject the side its bucket gives it', async () => {
    const { keys, rolloutId } = await rollingOut(40);
    const answered = [];
    for (const subject of subjects(40)) {
      const response = await api.get('/prompts/welcome?label=production', keys[0], asSubject(subject));
      expect(response.status).toBe(200);
      expect(response.json<Answer>().version).toBe(expectedVersion(rolloutId, 40, subject));
      answered.push(response.json<Answer>().version);
    }
    // Forty subjects at 40% land on both sides: the rule was tested on each.
    expect(new Set(answered)).toEqual(new Set(['1.0.0', '2.0.0']));
  });

  test('keeps a subject on its side, and raising the share only moves subjects to `to`', async () => {
    const { keys, rolloutId, rollout } = await rollingOut(30);
    const sideAt30 = new Map<string, string>();
    for (const subject of subjects(30)) {
      const versions = new Set<string>();
      for (const key of keys) {
        for (let i = 0; i < 2; i += 1) versions.add((await api.get('/prompts/welcome?label=production', key, asSubject(subject))).json<Answer>().version);
      }
      expect(versions.size).toBe(1);
      sideAt30.set(subject, [...versions][0] ?? '');
    }
    await rollout.change(70);
    for (const [subject, before] of sideAt30) {
      const after = (await api.get('/prompts/welcome?label=production', keys[0], asSubject(subject))).json<Answer>().version;
      expect(after).toBe(expectedVersion(rolloutId, 70, subject));
      if (before === '2.0.0') expect(after).toBe('2.0.0');
    }
  });

  test('without a subject, answers `to` to about `percent` of requests, drawn per request', async () => {
    const { keys } = await rollingOut(25);
    let to = 0;
    const requests = 200;
    for (let i = 0; i < requests; i += 1) {
      if ((await api.get('/prompts/welcome?label=production', keys[i % 2] ?? keys[0])).json<Answer>().version === '2.0.0') to += 1;
    }
    // Mean 50, standard deviation about 6: four deviations either side.
    expect(to).toBeGreaterThanOrEqual(25);
    expect(to).toBeLessThanOrEqual(75);
  });

  test('names the rollout in X-Prompt-Rollout and in the body, and varies with the subject', async () => {
    const { keys, rolloutId } = await rollingOut(50);
    const response = await api.get('/prompts/welcome?label=production', keys[0], asSubject('ana'));
    expect(response.headers['x-prompt-rollout']).toBe(rolloutId);
    expect(response.headers.vary).toBe('Authorization, X-Prompt-Subject');
    expect(response.json<Answer>().rollout).toEqual({ rolloutId, percent: 50, from: '1.0.0', to: '2.0.0' });
    const pinned = await api.get(`/prompts/welcome?version=${response.json<Answer>().version}`, keys[0]);
    const { rollout: _rollout, ...prompt } = response.json<Answer>();
    expect(prompt).toEqual(pinned.json<Prompt>());
  });

  test('leaves a pinned version, latest and a label without a rollout untouched', async () => {
    const { keys } = await rollingOut(50);
    for (const path of ['/prompts/welcome?version=1.0.0', '/prompts/welcome', '/prompts/welcome?label=latest', '/prompts/other?label=production']) {
      const response = await api.get(path, keys[0], asSubject('ana'));
      expect(response.status).toBe(200);
      expect(response.headers['x-prompt-rollout']).toBeUndefined();
      expect(response.headers.vary).toBe('Authorization');
      expect(response.json<Answer>().rollout).toBeUndefined();
    }
  });

  test(`refuses a subject over ${MAX_SUBJECT_LENGTH} characters with 400, and counts no side for it`, async () => {
    const { keys, rollout } = await rollingOut(50);
    const refused = await api.get('/prompts/welcome?label=production', keys[0], asSubject('x'.repeat(MAX_SUBJECT_LENGTH + 1)));
    expect(refused.status).toBe(400);
    expect(refused.json<ErrorBody>()).toMatchObject({ code: 'BAD_REQUEST', error: expect.stringContaining('X-Prompt-Subject') });
    expect(refused.rawBody).not.toContain('xxxx');
    expect(await servedBy(rollout)).toEqual({ from: 0, to: 0 });
    expect((await api.get('/prompts/welcome?label=production', keys[0], asSubject('x'.repeat(MAX_SUBJECT_LENGTH)))).status).toBe(200);
  });
});

describe('a rollout ended through the management side', () => {
  /** What each subject is answered at the label, one read and one list each: its version and whether a rollout was named. */
  async function answersAt(apiKey: string, names: string[]) {
    const answers = [];
    for (const subject of names) {
      const read = await api.get('/prompts/welcome?label=production', apiKey, asSubject(subject));
      const list = await api.get('/prompts?label=production', apiKey, asSubject(subject));
      const listed = list.json<Answer[]>().find((p) => p.promptId === 'welcome');
      const named = [read.headers['x-prompt-rollout'], list.headers['x-prompt-rollout'], read.json<Answer>().rollout, listed?.rollout];
      answers.push({ versions: [read.json<Answer>().version, listed?.version], named: named.filter((n) => n !== undefined) });
    }
    return answers;
  }

  test.each([
    ['completed', 'serves `to`', '2.0.0', (rollout: LabelRollout) => rollout.complete()],
    ['aborted', 'serves `from`', '1.0.0', (rollout: LabelRollout) => rollout.abort('error rate up')],
  ])('once %s, the label %s to every subject, naming no rollout', async (_, __, version, end) => {
    const { keys, rollout } = await rollingOut(50);
    const names = subjects(20, 'ended');
    // While it rolls out, these subjects are on both sides: the change moves some of them.
    const during = await answersAt(keys[0], names);
    expect(new Set(during.map((answer) => answer.versions[0]))).toEqual(new Set(['1.0.0', '2.0.0']));

    await end(rollout);

    expect(await answersAt(keys[0], names)).toEqual(names.map(() => ({ versions: [version, version], named: [] })));
    expect((await api.get('/prompts/welcome?label=production', keys[0], asSubject('ana'))).headers.vary).toBe('Authorization');
  });
});

describe('GET /prompts?label= at a rolling-out label', () => {
  test.each([['/prompts?label=production'], ['/prompts?label=production&include_versions=true']])(
    '%s serves each prompt at its side, with its rollout',
    async (path) => {
      const { keys, rolloutId } = await rollingOut(50);
      for (const subject of subjects(10, 'list')) {
        const response = await api.get(path, keys[0], asSubject(subject));
        const [other, welcome] = response.json<Answer[]>();
        expect(welcome?.version).toBe(expectedVersion(rolloutId, 50, subject));
        expect(welcome?.rollout).toEqual({ rolloutId, percent: 50, from: '1.0.0', to: '2.0.0' });
        expect(other?.rollout).toBeUndefined();
        expect(response.headers['x-prompt-rollout']).toBe(rolloutId);
        expect(response.headers.vary).toBe('Authorization, Accept-Encoding, X-Prompt-Subject');
      }
    },
  );

  test('the list without a label is untouched', async () => {
    const { keys } = await rollingOut(50);
    const response = await api.get('/prompts', keys[0], asSubject('ana'));
    expect(response.json<Answer[]>().map((p) => [p.version, p.rollout])).toEqual([
      ['1.0.0', undefined],
      ['2.0.0', undefined],
    ]);
    expect(response.headers['x-prompt-rollout']).toBeUndefined();
  });
});

describe('MCP at ?label= at a rolling-out label', () => {
  test('prompts/get and the get_prompt tool answer the subject its side, and name the rollout', async () => {
    const { keys, rolloutId } = await rollingOut(50);
    for (const subject of subjects(8, 'agent')) {
      const got = await mcp(keys[0], subject, { method: 'prompts/get', params: { name: 'welcome', arguments: { name: 'Ana' } } });
      const meta = got.json<{ result: { _meta: { version: string; rollout: RolloutBody } } }>().result._meta;
      expect(meta.version).toBe(expectedVersion(rolloutId, 50, subject));
      expect(meta.rollout).toEqual({ rolloutId, percent: 50, from: '1.0.0', to: '2.0.0' });
      expect(got.headers['x-prompt-rollout']).toBe(rolloutId);
      const tool = await mcp(keys[0], subject, { method: 'tools/call', params: { name: 'get_prompt', arguments: { promptId: 'welcome' } } });
      expect(tool.json<{ result: { structuredContent: Answer } }>().result.structuredContent.version).toBe(expectedVersion(rolloutId, 50, subject));
    }
  });

  test('prompts/list describes each prompt at its side', async () => {
    const { keys, rolloutId } = await rollingOut(50);
    for (const subject of subjects(8, 'lister')) {
      const listed = await mcp(keys[0], subject, { method: 'prompts/list', params: {} });
      const welcome = listed.json<{ result: { prompts: { name: string; description: string }[] } }>().result.prompts.find((p) => p.name === 'welcome');
      expect(welcome?.description).toContain(`version ${expectedVersion(rolloutId, 50, subject)}`);
    }
  });
});

describe('served counts', () => {
  test('count every side answered, exactly, under 300 concurrent reads with distinct subjects', async () => {
    const { keys, rollout } = await rollingOut(35);
    // Warm: each key's account known, the label's answer in memory, so most reads count in their admission.
    for (const key of keys) await api.get('/prompts/welcome?label=production', key, asSubject('warm-up'));
    const warmUp = await servedBy(rollout);
    const answered = { from: 0, to: 0 };
    const read = async (subject: string, i: number) => {
      const path = i % 3 === 0 ? '/prompts?label=production' : '/prompts/welcome?label=production';
      const response = await api.get(path, keys[i % 2] ?? keys[0], asSubject(subject));
      expect(response.status).toBe(200);
      const body = response.json<Answer | Answer[]>();
      const welcome = Array.isArray(body) ? body.find((p) => p.promptId === 'welcome') : body;
      answered[welcome?.version === '2.0.0' ? 'to' : 'from'] += 1;
    };
    const first = subjects(150, 'first');
    await Promise.all(first.map(read));
    // A change of share midway: the first reads after it decided from memory under the old revision.
    await rollout.change(65);
    await Promise.all(subjects(150, 'second').map(read));
    const counted = await servedBy(rollout);
    expect({ from: counted.from - warmUp.from, to: counted.to - warmUp.to }).toEqual(answered);
    expect(answered.from + answered.to).toBe(300);
    expect(answered.to).toBeGreaterThan(0);
    expect(answered.from).toBeGreaterThan(0);
  });

  test('a refused request counts no side: 401, 429, 400, 404', async () => {
    const { accountId, keys, rollout } = await rollingOut(50);
    const unknown = 'prs_ThisKeyWasNeverIssuedToAnyoneAtAll0000000';
    expect((await api.get('/prompts/welcome?label=production', unknown, asSubject('ana'))).status).toBe(401);
    expect((await api.get('/prompts/nowhere?label=production', keys[0], asSubject('ana'))).status).toBe(404);
    expect((await api.get('/prompts/welcome?label=production&version=1.0.0', keys[0], asSubject('ana'))).status).toBe(400);
    expect(await servedBy(rollout)).toEqual({ from: 0, to: 0 });
    // A key at its limit, warm: its admission would count the side it foresees, but the refused write changes nothing.
    const limited = await api.fixtures.apiKey(accountId, { monthlyLimit: 1 });
    expect((await api.get('/prompts/welcome?label=production', limited, asSubject('ana'))).status).toBe(200);
    for (let i = 0; i < 3; i += 1) expect((await api.get('/prompts/welcome?label=production', limited, asSubject(`bea-${i}`))).status).toBe(429);
    // The account's other keys counted nothing (above): what it served is the limited key's one answer.
    const counted = await servedBy(rollout);
    expect(counted.from + counted.to).toBe(1);
  });

  /** The harness's store, its label reads or its counts of sides refused (while set) as the store refuses when it cannot answer. */
  function failingStore() {
    const failing = { reads: false, counts: false };
    const real = api.realStore();
    const down = () => Promise.reject(new StoreUnavailableError('down'));
    const faulty: ApiStore = Object.assign(Object.create(real) as ApiStore, {
      findLabelledPrompt: (...args: Parameters<ApiStore['findLabelledPrompt']>) => (failing.reads ? down() : real.findLabelledPrompt(...args)),
      countServed: (...args: Parameters<ApiStore['countServed']>) => (failing.counts ? down() : real.countServed(...args)),
    });
    api.useStore(faulty);
    return failing;
  }

  test('a request that ends in 5xx counts no side, and its unit is given back: the read under a new revision fails', async () => {
    const { keys, rollout } = await rollingOut(50);
    const failing = failingStore();
    try {
      for (let i = 0; i < 2; i += 1) expect((await api.get('/prompts/welcome?label=production', keys[0], asSubject('ana'))).status).toBe(200);
      const before = await servedBy(rollout);
      const usedBefore = await api.fixtures.admin.usage(hashApiKey(keys[0]), '2026-11');
      // The admission's side, decided from memory under the old revision, is refused with it; the read under the new one fails.
      await rollout.change(60);
      failing.reads = true;
      expect((await api.get('/prompts/welcome?label=production', keys[0], asSubject('ana'))).status).toBe(503);
      expect(await servedBy(rollout)).toEqual(before);
      expect(await api.fixtures.admin.usage(hashApiKey(keys[0]), '2026-11')).toBe(usedBefore);
    } finally {
      api.useStore(api.realStore());
    }
  });

  test('an answer whose side cannot be counted is not sent: 503, no side counted, the unit given back', async () => {
    const { keys, rollout } = await rollingOut(50);
    const failing = failingStore();
    try {
      // A cold read: nothing in memory to decide from, so the side is counted once the answer is known.
      failing.counts = true;
      const usedBefore = await api.fixtures.admin.usage(hashApiKey(keys[1]), '2026-11');
      const response = await api.get('/prompts/welcome?label=production', keys[1], asSubject('bea'));
      expect(response.status).toBe(503);
      expect(response.headers['x-prompt-rollout']).toBeUndefined();
      expect(await servedBy(rollout)).toEqual({ from: 0, to: 0 });
      expect(await api.fixtures.admin.usage(hashApiKey(keys[1]), '2026-11')).toBe(usedBefore);
    } finally {
      api.useStore(api.realStore());
    }
  });
});

/** Each item through `task`, `width` at a time, each started as soon as one before it ends. */
async function concurrently<T>(width: number, items: readonly T[], task: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < items.length; index = next++) await task(items[index] as T, index);
  };
  await Promise.all(Array.from({ length: width }, worker));
}

describe('served counts kept at the end of a rollout', () => {
  /** Rounds of reads with an end landing among them: enough that a count lost in the end's instant shows. */
  const ROUNDS = 3;
  const READS = 240;
  /** Reads under way at once: twice what the harness runs at once, so some always wait, none for long. */
  const IN_FLIGHT = 16;
  const table = () => new Table(api.localStore.client, api.localStore.tableName, () => new Date());

  /** What the label's history entry and the audit entry of the end keep of the served counts. */
  async function keptCounts(accountId: string, event: 'completed' | 'aborted', action: string) {
    const { entries } = await listLabelHistory(table(), accountId, 'welcome', 'production');
    const history = entries.find((entry) => entry.rollout?.event === event)?.rollout?.served;
    const audit = await listAudit(table(), accountId, { filter: { action, outcome: 'succeeded' } });
    return { history, audit: (audit.entries[0]?.after as { served?: unknown } | undefined)?.served };
  }

  test.each([
    ['completes', 'completed', 'rollout.complete', (rollout: LabelRollout) => rollout.complete()],
    ['aborts', 'aborted', 'rollout.abort', (rollout: LabelRollout) => rollout.abort('error rate up')],
  ] as const)(
    'when it %s among concurrent reads, its counts are the answers that carried it, in its answer, its history entry and its audit entry',
    async (_, event, action, end) => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const { accountId, keys, rolloutId, rollout } = await rollingOut(50);
        const carried = { from: 0, to: 0 };
        let answered = 0;
        let ending: Promise<Rollout> | undefined;
        const read = async (subject: string, i: number) => {
          const path = i % 3 === 0 ? '/prompts?label=production' : '/prompts/welcome?label=production';
          const response = await api.get(path, keys[i % 2] ?? keys[0], asSubject(subject));
          expect(response.status).toBe(200);
          const body = response.json<Answer | Answer[]>();
          const welcome = Array.isArray(body) ? body.find((p) => p.promptId === 'welcome') : body;
          const named = response.headers['x-prompt-rollout'];
          // The header and the body say the same: the answer carried the rollout, or it did not.
          expect(welcome?.rollout?.rolloutId).toBe(named);
          if (named === rolloutId) carried[welcome?.version === '2.0.0' ? 'to' : 'from'] += 1;
          else expect(named).toBeUndefined();
          answered += 1;
          // The end lands among the reads: a third of them answered, the rest under way or still to come.
          if (answered === Math.floor(READS / 3)) ending = end(rollout);
        };
        await concurrently(IN_FLIGHT, subjects(READS, `end-${round}`), read);
        const ended = await ending;
        expect(ended?.state).toBe(event);
        // Some answers on each side of the end: the end did land among the reads.
        expect(carried.from + carried.to).toBeGreaterThan(0);
        expect(carried.from + carried.to).toBeLessThan(READS);
        expect(ended?.served).toEqual(carried);
        expect(await keptCounts(accountId, event, action)).toEqual({ history: carried, audit: carried });
      }
    },
  );
});

describe('an account with more keys than the ending transaction fences', () => {
  test(`the end keeps every answer of its ${MAX_FENCED_KEYS + 2} keys, and no key answers with it after it, nor keeps its counters`, async () => {
    const { accountId, keys, rollout, rolloutId } = await rollingOut(50);
    for (let i = keys.length; i < MAX_FENCED_KEYS + 2; i += 1) keys.push(await api.fixtures.apiKey(accountId));
    // One answer each: the keys beyond the bound (the least busy, by hash among equals) counted too.
    const carried = { from: 0, to: 0 };
    for (const [i, key] of keys.entries()) {
      const response = await api.get('/prompts/welcome?label=production', key, asSubject(`many-keys-${i}`));
      expect(response.headers['x-prompt-rollout']).toBe(rolloutId);
      carried[response.json<Answer>().version === '2.0.0' ? 'to' : 'from'] += 1;
    }
    const ended = await rollout.complete();
    expect(ended.served).toEqual(carried);
    expect(carried.from + carried.to).toBe(MAX_FENCED_KEYS + 2);

    const account = await api.localStore.client.send(
      new GetCommand({ TableName: api.localStore.tableName, Key: schemaKeys.account(accountId), ConsistentRead: true }),
    );
    for (const [i, key] of keys.entries()) {
      const item = (
        await api.localStore.client.send(new GetCommand({ TableName: api.localStore.tableName, Key: schemaKeys.apiKey(hashApiKey(key)), ConsistentRead: true }))
      ).Item as Record<string, unknown>;
      expect(Object.keys(item).filter((name) => name.includes(rolloutId))).toEqual([]);
      expect(item.promptsRevision).toBe(account.Item?.promptsRevision);
      const after = await api.get('/prompts/welcome?label=production', key, asSubject(`many-keys-${i}`));
      expect(after.headers['x-prompt-rollout']).toBeUndefined();
      expect(after.json<Answer>().version).toBe('2.0.0');
    }
  });
});

describe('store operations', () => {
  let operations = 0;
  const count = (client: DynamoDBDocumentClient) =>
    client.middlewareStack.add(
      (next) => async (args) => {
        operations += 1;
        return next(args);
      },
      { step: 'initialize', name: 'countRolloutStoreOperations' },
    );
  beforeAll(() => {
    count(api.localStore.clients.reads);
    count(api.localStore.clients.writes);
  });

  test.each([
    ['a read', '/prompts/welcome?label=production'],
    ['a list', '/prompts?label=production'],
    ['a list with versions', '/prompts?label=production&include_versions=true'],
  ])('a warm function answers %s at a rolling-out label with one store operation, counting its side', async (_, path) => {
    const { keys, rollout } = await rollingOut(50);
    await api.get(path, keys[0], asSubject('warm-up'));
    await api.get(path, keys[0], asSubject('warm-up'));
    const before = await servedBy(rollout);
    for (const subject of subjects(6, 'one-op')) {
      const start = operations;
      expect((await api.get(path, keys[0], asSubject(subject))).status).toBe(200);
      expect(operations - start).toBe(1);
    }
    const after = await servedBy(rollout);
    expect(after.from + after.to - before.from - before.to).toBe(6);
  });

  test.each([
    ['prompts/get', { method: 'prompts/get', params: { name: 'welcome', arguments: { name: 'Ana' } } }],
    ['prompts/list', { method: 'prompts/list', params: {} }],
    ['the get_prompt tool', { method: 'tools/call', params: { name: 'get_prompt', arguments: { promptId: 'welcome' } } }],
    ['the list_prompts tool', { method: 'tools/call', params: { name: 'list_prompts', arguments: {} } }],
  ])('a warm function answers MCP %s at a rolling-out label with one store operation, counting its side', async (_, message) => {
    const { keys, rolloutId, rollout } = await rollingOut(50);
    await mcp(keys[0], 'warm-up', message);
    await mcp(keys[0], 'warm-up', message);
    const before = await servedBy(rollout);
    for (const subject of subjects(4, 'mcp-one-op')) {
      const start = operations;
      const response = await mcp(keys[0], subject, message);
      expect(response.headers['x-prompt-rollout']).toBe(rolloutId);
      expect(operations - start).toBe(1);
    }
    const after = await servedBy(rollout);
    expect(after.from + after.to - before.from - before.to).toBe(4);
  });

  test.each([
    ['prompts/get', { method: 'prompts/get', params: { name: 'welcome', arguments: { nom: 'Ana' } } }],
    ['the get_prompt tool', { method: 'tools/call', params: { name: 'get_prompt', arguments: { promptId: 'welcome', variables: {} } } }],
    ['the list_prompts tool', { method: 'tools/call', params: { name: 'list_prompts', arguments: { labels: 'production' } } }],
  ])('a warm function refuses MCP %s for its arguments with one store operation, counting no side', async (_, message) => {
    const { keys, rollout } = await rollingOut(50);
    // Warm: the key's account known, the label's answers in memory.
    await mcp(keys[0], 'warm-up', { method: 'prompts/get', params: { name: 'welcome', arguments: { name: 'Ana' } } });
    await mcp(keys[0], 'warm-up', { method: 'tools/call', params: { name: 'list_prompts', arguments: {} } });
    const before = await servedBy(rollout);
    const start = operations;
    const response = await mcp(keys[0], 'refused-arguments', message);
    expect(operations - start).toBe(1);
    const body = response.json<{ error?: { code: number }; result?: { isError?: boolean } }>();
    expect(body.error?.code === -32602 || body.result?.isError === true).toBe(true);
    expect(response.headers['x-prompt-rollout']).toBeUndefined();
    expect(await servedBy(rollout)).toEqual(before);
  });

  test.each([
    ['an array', ['welcome']],
    ['a string', 'welcome'],
    ['null', null],
  ])('a get_prompt tool call whose arguments are %s, not an object, is invalid params and counts no side', async (_, args) => {
    const { keys, rollout } = await rollingOut(50);
    const before = await servedBy(rollout);
    const response = await mcp(keys[0], 'odd-arguments', { method: 'tools/call', params: { name: 'get_prompt', arguments: args } });
    expect(response.json<{ error?: { code: number } }>().error?.code).toBe(-32602);
    expect(response.headers['x-prompt-rollout']).toBeUndefined();
    expect(await servedBy(rollout)).toEqual(before);
  });
});

test('no log line carries the subject', async () => {
  const { keys } = await rollingOut(50);
  const subject = 'subject-that-must-never-be-logged-7f3a';
  await api.get('/prompts/welcome?label=production', keys[0], asSubject(subject));
  await api.get('/prompts?label=production', keys[0], asSubject(subject));
  await mcp(keys[0], subject, { method: 'prompts/list', params: {} });
  await api.get('/prompts/welcome?label=production', keys[0], asSubject(`${subject}${'x'.repeat(MAX_SUBJECT_LENGTH)}`));
  expect(api.logs.length).toBeGreaterThan(0);
  expect(JSON.stringify(api.logs)).not.toContain(subject);
});
