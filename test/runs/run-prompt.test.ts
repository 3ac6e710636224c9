import { BudgetExceededError, modelTokensOf, reserveTokens } from '../../lambda/features/budget/model-budget';
import { InvalidRunError, RunFailedError } from '../../lambda/features/runs/errors';
import { type RunAsk, runPrompt } from '../../lambda/features/runs/run-prompt';
import { getRun, listRuns } from '../../lambda/features/runs/runs';
import { localCatalog } from '../../lambda/models/catalog';
import { createModels } from '../../lambda/models/models';
import { NotFoundError } from '../../lambda/table/errors';
import type { RunItem } from '../../lambda/table/item-types';
import { runKeys } from '../../lambda/table/schema';
import { config, prompt, version } from '../support/fixtures';
import { QUICK_RETRIES, type RunsWorld, setModelBudget, startRunsWorld } from '../support/runs';

/**
 * docs/runs.md "Runs": the one run operation, against a real store (dynalite) and the local stand-in model through
 * the Bedrock code path. Every refusal is shown to change nothing by reading the store back.
 */

let world: RunsWorld;
const ACCOUNT = 'acct_runs';
const OTHER = 'acct_other';
const MODEL = 'gpt-4o-mini';

const greeting = prompt(
  'greeting',
  [
    version('1.0.0', {
      systemMessage: 'Be brief, ${tone}.',
      userMessage: 'Greet ${name}. REPLY: Hello ${name}!',
      config: config({ model: MODEL, temperature: 0.7 }),
    }),
    version('2.0.0', { systemMessage: 'Be warm.', userMessage: 'REPLY: Welcome, ${name}!', config: config({ model: MODEL, temperature: 1.5 }) }),
    version('3.0.0', { published: false, systemMessage: 'Draft.', userMessage: 'REPLY: draft for ${name}', config: config({ model: MODEL }) }),
  ],
  { labels: { production: '1.0.0' } },
);

const ticket = prompt('ticket', [
  version('1.0.0', {
    systemMessage: 'Classify the ticket.',
    userMessage: 'REPLY: ${answer}',
    config: config({
      model: MODEL,
      schema: [
        { name: 'reply', type: 'string', description: 'The answer to send' },
        { name: 'urgency', type: 'string', enum: ['low', 'normal', 'high'] },
      ],
    }),
  }),
]);

beforeAll(async () => {
  world = await startRunsWorld();
  await world.fixtures.account(ACCOUNT);
  await world.fixtures.account(OTHER);
  await world.fixtures.prompts(ACCOUNT, greeting, ticket);
  await world.fixtures.prompts(OTHER, prompt('secret', [version('1.0.0', { userMessage: 'REPLY: other account' })]));
});

afterAll(() => world.close());

const run = (ask: Partial<RunAsk>, deadlineMs?: number) =>
  runPrompt(
    { table: world.table, models: world.models, ...(deadlineMs === undefined ? {} : { deadlineMs }) },
    { accountId: ACCOUNT, source: { promptId: 'greeting', version: '1.0.0' }, variables: { name: 'Ada', tone: 'kind' }, by: 'ada@example.com', ...ask },
  );

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => new Error('it ran'),
    (error: unknown) => error,
  );
const storedRuns = async (accountId = ACCOUNT) => (await listRuns(world.table, accountId, { limit: 1_000 })).runs;
const tokensUsed = async (accountId = ACCOUNT) => (await modelTokensOf(world.table, accountId, new Date().toISOString().slice(0, 7))).used;

describe('a run', () => {
  test('of a version sends its system message and compiled user message, and answers with the whole run', async () => {
    const answer = await run({});
    expect(answer).toMatchObject({
      promptId: 'greeting',
      version: '1.0.0',
      label: null,
      provider: 'local',
      model: MODEL,
      params: { temperature: 0.7, maxTokens: 1024 },
      variables: { name: 'Ada', tone: 'kind' },
      messages: [
        { role: 'system', content: 'Be brief, kind.' },
        { role: 'user', content: 'Greet Ada. REPLY: Hello Ada!' },
      ],
      output: { text: 'Hello Ada!', json: null },
      schema: null,
      // ceil((15 + 28) / 4) in, ceil(10 / 4) out.
      usage: { inputTokens: 11, outputTokens: 3 },
      stopReason: 'end_turn',
      attempts: 1,
      state: 'completed',
      error: null,
      by: 'ada@example.com',
    });
    expect(answer.runId).toMatch(/^run_\d{8}T\d{9}Z_[0-9a-f]{8}$/);
    // gpt-4o-mini's prices: $0.15 and $0.60 per million tokens.
    expect(answer.costUsd).toBeCloseTo((11 * 0.15 + 3 * 0.6) / 1e6, 12);
    expect(answer.firstTokenMs).not.toBeNull();
  });

  test('is kept as it was answered, 90 days', async () => {
    const answer = await run({});
    expect(await getRun(world.table, ACCOUNT, answer.runId)).toEqual(answer);
    const item = await world.table.get<RunItem>('test', runKeys.run(ACCOUNT, answer.runId));
    expect(item?.ttl).toBe(Math.floor(Date.parse(answer.at) / 1000) + 90 * 24 * 3600);
  });

  test('of a label runs the version it points at, and says both', async () => {
    expect(await run({ source: { promptId: 'greeting', label: 'production' } })).toMatchObject({
      version: '1.0.0',
      label: 'production',
      output: { text: 'Hello Ada!' },
    });
    expect(await run({ source: { promptId: 'greeting', label: 'latest' } })).toMatchObject({
      version: '2.0.0',
      label: 'latest',
      output: { text: 'Welcome, Ada!' },
    });
  });

  test('of a draft runs it', async () => {
    expect(await run({ source: { promptId: 'greeting', version: '3.0.0' } })).toMatchObject({ version: '3.0.0', output: { text: 'draft for Ada' } });
  });

  test('of unsaved content runs what the editor holds, of a prompt or of none', async () => {
    const unsaved = { systemMessage: '', userMessage: 'REPLY: unsaved ${name}', config: { model: MODEL, temperature: 0.2 } };
    expect(await run({ source: { prompt: unsaved, promptId: 'greeting' } })).toMatchObject({
      promptId: 'greeting',
      version: null,
      label: null,
      output: { text: 'unsaved Ada' },
      params: { temperature: 0.2 },
    });
    expect(await run({ source: { prompt: unsaved } })).toMatchObject({ promptId: null, output: { text: 'unsaved Ada' } });
  });

  test('takes the parameters it is given, and sends them to the model', async () => {
    const answer = await run({ params: { temperature: 0, maxTokens: 1, topP: 0.5, stop: ['!'] } });
    expect(answer).toMatchObject({ params: { temperature: 0, maxTokens: 1, topP: 0.5, stop: ['!'] }, output: { text: 'Hell' }, stopReason: 'max_tokens' });
  });

  test('sends a prompt’s temperature above what the model takes as the model’s highest', async () => {
    expect((await run({ source: { promptId: 'greeting', version: '2.0.0' } })).params.temperature).toBe(1);
  });

  test('hands each piece to the listener as the model writes it, after its start', async () => {
    const seen: string[] = [];
    const answer = await runPrompt(
      { table: world.table, models: world.models },
      { accountId: ACCOUNT, source: { promptId: 'greeting', version: '2.0.0' }, variables: { name: 'Grace Hopper' }, by: 'ada@example.com' },
      { onStart: (start) => seen.push(`start ${start.model} ${start.provider} ${start.runId}`), onDelta: (text) => seen.push(text) },
    );
    expect(seen).toEqual([`start ${MODEL} local ${answer.runId}`, 'Welcome,', ' Grace H', 'opper!']);
  });
});

describe('structured output', () => {
  test('is asked for as the prompt’s schema and checked: a valid answer', async () => {
    const answer = await run({ source: { promptId: 'ticket', version: '1.0.0' }, variables: { answer: '{"reply": "On it", "urgency": "high"}' } });
    expect(answer.output).toEqual({ text: '{"reply":"On it","urgency":"high"}', json: { reply: 'On it', urgency: 'high' } });
    expect(answer.schema).toEqual({ valid: true, errors: [] });
    expect(answer.stopReason).toBe('tool_use');
  });

  test('an answer that misses the schema says how', async () => {
    const answer = await run({ source: { promptId: 'ticket', version: '1.0.0' }, variables: { answer: '{"urgency": "urgent", "mood": 3}' } });
    expect(answer.schema).toEqual({
      valid: false,
      errors: ['reply: is missing', 'urgency: must be one of "low", "normal", "high"', 'mood: is not a field of the schema'],
    });
    expect(answer.state).toBe('completed');
  });

  test('an answer that is not JSON is no valid output', async () => {
    const answer = await run({ source: { promptId: 'ticket', version: '1.0.0' }, variables: { answer: 'sorry, no' } });
    expect(answer.output).toEqual({ text: 'sorry, no', json: null });
    expect(answer.schema).toEqual({ valid: false, errors: ['the answer is not JSON'] });
  });

  test('a model without structured output is asked in its system message', async () => {
    const plain = localCatalog().map((model) => ({ ...model, structuredOutput: false }));
    const models = createModels({ catalog: plain, region: 'us-east-1', standInEndpoint: world.standIn.url, endpointKeys: new Map() }, QUICK_RETRIES);
    const answer = await runPrompt(
      { table: world.table, models },
      { accountId: ACCOUNT, source: { promptId: 'ticket', version: '1.0.0' }, variables: { answer: '{"reply": "ok", "urgency": "low"}' }, by: 'a@example.com' },
    );
    expect(answer.messages[0]?.content).toMatch(
      /^Classify the ticket\.\n\nAnswer with one JSON object and nothing else, matching this JSON Schema: \{"type":"object"/,
    );
    expect(answer).toMatchObject({ output: { json: { reply: 'ok', urgency: 'low' } }, schema: { valid: true }, stopReason: 'end_turn' });
  });
});

describe('what a run refuses, changing nothing', () => {
  test.each([
    ['a placeholder without a value', 'variables.tone', { variables: { name: 'Ada' } }],
    ['a value that is not a string', 'variables.tone', { variables: { name: 'Ada', tone: 3 } }],
    ['a model the catalog does not hold', 'model', { model: 'gpt-5-ultra' }],
    ['a temperature above the model’s', 'params.temperature', { params: { temperature: 1.5 } }],
    ['maxTokens of 0', 'params.maxTokens', { params: { maxTokens: 0 } }],
    ['maxTokens above 8,192', 'params.maxTokens', { params: { maxTokens: 8193 } }],
    ['topP above 1', 'params.topP', { params: { topP: 1.1 } }],
    ['five stop sequences', 'params.stop', { params: { stop: ['a', 'b', 'c', 'd', 'e'] } }],
  ])('%s is a 400 naming %s', async (_what, field, ask: Partial<RunAsk>) => {
    const [runsBefore, tokensBefore] = [await storedRuns(), await tokensUsed()];
    const failure = await failureOf(run(ask));
    expect(failure).toBeInstanceOf(InvalidRunError);
    expect(failure).toMatchObject({ field });
    expect(await storedRuns()).toEqual(runsBefore);
    expect(await tokensUsed()).toBe(tokensBefore);
  });

  test('a model unnamed whose prompt’s model is not in the catalog is a 400 naming model, listing the catalog', async () => {
    const failure = await failureOf(run({ source: { prompt: { systemMessage: '', userMessage: 'hi', config: { model: 'claude-2', temperature: 0 } } } }));
    expect(failure).toMatchObject({ field: 'model' });
    expect((failure as Error).message).toContain('gpt-4o-mini');
  });

  test.each([
    ['a version the prompt does not have', { source: { promptId: 'greeting', version: '9.9.9' } }],
    ['a label the prompt does not have', { source: { promptId: 'greeting', label: 'staging' } }],
    ['a prompt the account does not have', { source: { promptId: 'nope', version: '1.0.0' } }],
    ['another account’s prompt', { source: { promptId: 'secret', version: '1.0.0' } }],
    [
      'unsaved content of a prompt the account does not have',
      { source: { prompt: { systemMessage: '', userMessage: 'x', config: { model: MODEL, temperature: 0 } }, promptId: 'secret' } },
    ],
    ['an account that does not exist', { accountId: 'acct_nobody' }],
  ])('%s is not found', async (_what, ask: Partial<RunAsk>) => {
    const runsBefore = await storedRuns();
    expect(await failureOf(run(ask))).toBeInstanceOf(NotFoundError);
    expect(await storedRuns()).toEqual(runsBefore);
  });
});

describe('a model that fails the run', () => {
  test.each([
    ['ERROR:AccessDeniedException REPLY: x', 'MODEL_ERROR', 502, 1],
    [`THROTTLE:9 REPLY: throttled ${Date.now()}`, 'MODEL_THROTTLED', 503, 4],
  ])('%s, before any answer, is kept as a failed run and thrown with it (%s, %d), no token counted', async (userMessage, code, status, attempts) => {
    const failure = await failureOf(run({ source: { prompt: { systemMessage: '', userMessage, config: { model: MODEL, temperature: 0 } } } }));
    expect(failure).toBeInstanceOf(RunFailedError);
    const { run: failed, failure: cause } = failure as RunFailedError;
    expect(cause).toMatchObject({ code, status });
    expect(failed).toMatchObject({ state: 'failed', attempts, error: { code }, output: { text: '' }, usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0 });
    expect(failed.firstTokenMs).toBeNull();
    expect(failed.error?.message).not.toMatch(/\n\s+at /);
    expect(await getRun(world.table, ACCOUNT, failed.runId)).toEqual(failed);
  });

  test('a model that fails after it started writing: the run keeps what it wrote, its times and the tokens of that part (MODEL_ERROR, 502)', async () => {
    const userMessage = 'PACE:20 ERROR:ValidationException REPLY: written before the fault';
    const failure = await failureOf(run({ source: { prompt: { systemMessage: '', userMessage, config: { model: MODEL, temperature: 0 } } } }));
    expect(failure).toBeInstanceOf(RunFailedError);
    const { run: failed } = failure as RunFailedError;
    expect(failed).toMatchObject({ state: 'failed', error: { code: 'MODEL_ERROR' }, output: { text: 'written before the fault' } });
    // Counted as the stand-in counts them: a token per 4 characters, the messages sent and the part written.
    expect(failed.usage).toEqual({ inputTokens: Math.ceil(userMessage.length / 4), outputTokens: Math.ceil('written before the fault'.length / 4) });
    expect(failed.costUsd).toBeGreaterThan(0);
    expect(failed.firstTokenMs).not.toBeNull();
    expect(failed.latencyMs).toBeGreaterThanOrEqual(failed.firstTokenMs ?? 0);
    expect(failed.latencyMs).toBeGreaterThan(0);
    expect(failed.error?.message).not.toMatch(/\n\s+at /);
    expect(await getRun(world.table, ACCOUNT, failed.runId)).toEqual(failed);
  });

  test('past the run’s deadline is a failed run, 504 MODEL_TIMEOUT, at the deadline', async () => {
    const started = Date.now();
    const failure = await failureOf(
      run({ source: { prompt: { systemMessage: '', userMessage: 'SLOW:5000 REPLY: late', config: { model: MODEL, temperature: 0 } } } }, 300),
    );
    expect(failure).toBeInstanceOf(RunFailedError);
    expect((failure as RunFailedError).failure).toMatchObject({ code: 'MODEL_TIMEOUT', status: 504 });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(await getRun(world.table, ACCOUNT, (failure as RunFailedError).run.runId)).toMatchObject({ state: 'failed', error: { code: 'MODEL_TIMEOUT' } });
  });
});

describe('runs listed', () => {
  test('newest first, 50 a page, of one prompt when asked, and never another account’s', async () => {
    const fresh = 'acct_lists';
    await world.fixtures.account(fresh);
    await world.fixtures.prompts(fresh, greeting, ticket);
    const ids: string[] = [];
    for (let index = 0; index < 4; index += 1) {
      const promptId = index % 2 === 0 ? 'greeting' : 'ticket';
      const source = { promptId, version: '1.0.0' };
      ids.push(
        (
          await runPrompt(
            { table: world.table, models: world.models },
            { accountId: fresh, source, variables: { name: 'A', tone: 'b', answer: '{}' }, by: 'x@example.com' },
          )
        ).runId,
      );
    }
    const all = await listRuns(world.table, fresh);
    expect(all.runs.map((entry) => entry.runId)).toEqual([...ids].reverse());
    expect(all.next).toBeUndefined();
    expect(all.runs[0]).not.toHaveProperty('messages');
    expect((await listRuns(world.table, fresh, { promptId: 'greeting' })).runs.map((entry) => entry.runId)).toEqual([ids[2], ids[0]]);
    const first = await listRuns(world.table, fresh, { limit: 3 });
    expect(first.runs).toHaveLength(3);
    expect(first.next).toBe(ids[1]);
    expect((await listRuns(world.table, fresh, { before: first.next, limit: 3 })).runs.map((entry) => entry.runId)).toEqual([ids[0]]);
    await expect(getRun(world.table, OTHER, ids[0] ?? '')).rejects.toBeInstanceOf(NotFoundError);
    expect((await listRuns(world.table, OTHER)).runs).toEqual([]);
  });
});

describe('the store operations of a run', () => {
  test('are three, whatever it comes to: a BatchGetItem, the reservation’s transaction, the record’s transaction', async () => {
    for (const userMessage of ['REPLY: fine', 'ERROR:ValidationException']) {
      world.calls.length = 0;
      await run({ source: { prompt: { systemMessage: '', userMessage, config: { model: MODEL, temperature: 0 } }, promptId: 'greeting' } }).catch(
        () => undefined,
      );
      expect(world.calls.map((call) => call.operation)).toEqual(['BatchGetItem', 'TransactWriteItems', 'TransactWriteItems']);
    }
  });
});

describe('the budget of model tokens', () => {
  const month = () => new Date().toISOString().slice(0, 7);
  const day = () => new Date().toISOString().slice(8, 10);

  test('counts what each run used, in the month and the day, holding nothing once it settled', async () => {
    const accountId = 'acct_count';
    await world.fixtures.account(accountId);
    const answer = await runPrompt(
      { table: world.table, models: world.models },
      {
        accountId,
        source: { prompt: { systemMessage: '', userMessage: 'REPLY: twelve chars', config: { model: MODEL, temperature: 0 } } },
        variables: {},
        by: 'x@example.com',
      },
    );
    const used = answer.usage.inputTokens + answer.usage.outputTokens;
    expect(await modelTokensOf(world.table, accountId, month())).toEqual({ used, days: { [day()]: used } });
    const item = await world.table.get<{ held: number }>('test', runKeys.modelTokens(accountId, month()));
    expect(item?.held).toBe(used);
  });

  test('refuses a run it cannot cover with 429 BUDGET_EXCEEDED, used and limit, nothing run or held', async () => {
    const accountId = 'acct_poor';
    await world.fixtures.account(accountId);
    await world.fixtures.prompts(accountId, greeting);
    await setModelBudget(world.table, accountId, 500);
    const failure = await failureOf(
      runPrompt(
        { table: world.table, models: world.models },
        { accountId, source: { promptId: 'greeting', version: '1.0.0' }, variables: { name: 'A', tone: 'b' }, by: 'x@example.com' },
      ),
    );
    expect(failure).toBeInstanceOf(BudgetExceededError);
    expect(failure).toMatchObject({ used: 0, limit: 500 });
    expect(await storedRuns(accountId)).toEqual([]);
    expect(await world.table.get<{ held: number }>('test', runKeys.modelTokens(accountId, month()))).toBeUndefined();
  });

  test('is never passed by runs at once: exactly as many run as fit, and the tokens counted stay within it', async () => {
    const accountId = 'acct_race';
    await world.fixtures.account(accountId);
    // Each run uses exactly what it reserves: a reply longer than maxTokens x 4 characters is cut there.
    const userMessage = `SLOW:300 REPLY: ${'x'.repeat(400)}`;
    const perRun = Math.ceil([...userMessage].length / 4) + 50;
    await setModelBudget(world.table, accountId, Math.floor(5.5 * perRun));
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, () =>
        runPrompt(
          { table: world.table, models: world.models },
          {
            accountId,
            source: { prompt: { systemMessage: '', userMessage, config: { model: MODEL, temperature: 0 } } },
            variables: {},
            params: { maxTokens: 50 },
            by: 'x@example.com',
          },
        ),
      ),
    );
    const completed = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected' && outcome.reason instanceof BudgetExceededError);
    expect([completed.length, refused.length]).toEqual([5, 15]);
    for (const outcome of completed) expect(outcome.value.usage.inputTokens + outcome.value.usage.outputTokens).toBe(perRun);
    expect(await tokensUsed(accountId)).toBe(5 * perRun);
    expect(await tokensUsed(accountId)).toBeLessThanOrEqual(5.5 * perRun);
    expect(await storedRuns(accountId)).toHaveLength(5);
  }, 30_000);

  test('a budget an owner changed since it was read is the one a reservation holds to', async () => {
    const accountId = 'acct_changed';
    await world.fixtures.account(accountId);
    await setModelBudget(world.table, accountId, 100);
    const failure = await failureOf(reserveTokens(world.table, accountId, 1_000_000, 500, new Date()));
    expect(failure).toBeInstanceOf(BudgetExceededError);
    expect(failure).toMatchObject({ limit: 100 });
    await setModelBudget(world.table, accountId, null);
    await expect(reserveTokens(world.table, accountId, 100, 500, new Date())).resolves.toMatchObject({ tokens: 500 });
  });
});
