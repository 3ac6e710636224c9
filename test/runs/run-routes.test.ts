import { localCatalog } from '../../lambda/models/catalog';
import { createModels } from '../../lambda/models/models';
import { type ModelStandIn, startModelStandIn } from '../../local/model-stand-in/server';
import { config, prompt, version } from '../support/fixtures';
import { ManagementHarness, type Person } from '../support/management-harness';
import { QUICK_RETRIES, setModelBudget } from '../support/runs';

/**
 * docs/runs.md, the management API's routes of runs, served by the run function (RunPrompts) as deployed behind
 * the REST API: every answer held to openapi-management.yaml (the harness checks each), on the local stand-in model.
 */

const harness = new ManagementHarness();
let standIn: ModelStandIn;
let viewer: Person;
let editor: Person;
let stranger: Person;
const ACCOUNT = 'acct_api';
const OTHER = 'acct_api_other';
const RUNS = `/api/accounts/${ACCOUNT}/runs`;

beforeAll(async () => {
  await harness.start();
  standIn = await startModelStandIn();
  harness.models = createModels({ catalog: localCatalog(), region: 'us-east-1', standInEndpoint: standIn.url, endpointKeys: new Map() }, QUICK_RETRIES);
  await harness.fixtures.account(ACCOUNT);
  await harness.fixtures.account(OTHER);
  await harness.fixtures.prompts(
    ACCOUNT,
    prompt('greeting', [version('1.0.0', { systemMessage: 'Be brief.', userMessage: 'REPLY: Hello ${name}!', config: config({ model: 'gpt-4o-mini' }) })], {
      labels: { production: '1.0.0' },
    }),
  );
  viewer = await harness.person('viewer@acme.test', ACCOUNT, 'viewer');
  editor = await harness.person('editor@acme.test', ACCOUNT, 'editor');
  stranger = await harness.person('stranger@other.test', OTHER, 'owner');
});

afterAll(async () => {
  await harness.stop();
  await standIn.close();
});

const runBody = (overrides: Record<string, unknown> = {}) => ({ source: { promptId: 'greeting', version: '1.0.0' }, variables: { name: 'Ada' }, ...overrides });
const runs = async () => (await harness.send('GET', `${RUNS}?promptId=greeting`, { as: viewer })).body as { runs: { runId: string }[] };

test('an editor runs a prompt and gets the run as JSON, with who ran it', async () => {
  const response = await harness.send('POST', RUNS, { as: editor, body: runBody() });
  expect(response.status).toBe(200);
  expect(response.headers['cache-control']).toBe('no-store');
  expect((response.body as { run: unknown }).run).toMatchObject({
    promptId: 'greeting',
    version: '1.0.0',
    provider: 'local',
    model: 'gpt-4o-mini',
    output: { text: 'Hello Ada!', json: null },
    state: 'completed',
    by: 'editor@acme.test',
  });
});

test('a viewer may not run a prompt (403), nothing run; but reads the runs, one with its messages, and the models', async () => {
  const before = await runs();
  expect((await harness.send('POST', RUNS, { as: viewer, body: runBody() })).status).toBe(403);
  expect(await runs()).toEqual(before);
  const { runs: list } = await runs();
  expect(list.length).toBeGreaterThan(0);
  const one = await harness.send('GET', `${RUNS}/${list[0]?.runId}`, { as: viewer });
  expect(one.status).toBe(200);
  expect((one.body as { run: { messages: unknown } }).run.messages).toEqual([
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'REPLY: Hello Ada!' },
  ]);
  const models = await harness.send('GET', `/api/accounts/${ACCOUNT}/models`, { as: viewer });
  expect((models.body as { models: { modelId: string }[] }).models.map((model) => model.modelId)).toEqual(localCatalog().map((model) => model.modelId));
});

test('another account’s member reaches neither the account’s runs nor one of them (404)', async () => {
  const { runs: list } = await runs();
  expect((await harness.send('GET', RUNS, { as: stranger })).status).toBe(404);
  expect((await harness.send('POST', RUNS, { as: stranger, body: runBody() })).status).toBe(404);
  expect((await harness.send('GET', `/api/accounts/${OTHER}/runs/${list[0]?.runId}`, { as: stranger })).status).toBe(404);
});

test.each([
  ['no source', 'source', { source: undefined }],
  ['a version without its prompt', 'source.promptId', { source: { version: '1.0.0' } }],
  ['both a version and a label', 'source', { source: { promptId: 'greeting', version: '1.0.0', label: 'production' } }],
  ['a variable that is not a string', 'variables.name', { variables: { name: 7 } }],
  ['a placeholder without a value', 'variables.name', { variables: {} }],
  ['a temperature above 2', 'params.temperature', { params: { temperature: 2.5 } }],
  ['a temperature above the model’s', 'params.temperature', { params: { temperature: 1.5 } }],
  ['a model not in the catalog', 'model', { model: 'gpt-9' }],
  ['an unknown field', 'seed', { seed: 1 }],
])('%s is a 400 naming %s, nothing run', async (_what, field, overrides: Record<string, unknown>) => {
  const before = await runs();
  const response = await harness.send('POST', RUNS, { as: editor, body: runBody(overrides) });
  expect(response.status).toBe(400);
  expect(response.body).toMatchObject({ code: 'BAD_REQUEST', field });
  expect(await runs()).toEqual(before);
});

test('thousands of unknown fields are a 400 naming the first, its message short, nothing run', async () => {
  const before = await runs();
  const unknown = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`field${i}`, i]));
  const response = await harness.send('POST', RUNS, { as: editor, body: runBody({ params: unknown }) });
  expect(response.status).toBe(400);
  expect(response.body).toMatchObject({ code: 'BAD_REQUEST', field: 'params.field0' });
  expect((response.body as { error: string }).error).toBe('params.field0: unknown field (and 4999 more: field1, field2, field3, ...)');
  expect(await runs()).toEqual(before);
});

test('a model that fails the run is a 502 MODEL_ERROR with the provider’s words and the failed run’s id, kept', async () => {
  const response = await harness.send('POST', RUNS, {
    as: editor,
    body: runBody({ source: { promptId: 'greeting', prompt: { systemMessage: '', userMessage: 'ERROR:AccessDeniedException', config: config() } } }),
  });
  expect(response.status).toBe(502);
  const body = response.body as { code: string; error: string; runId: string };
  expect(body.code).toBe('MODEL_ERROR');
  expect(body.error).toMatch(/^AccessDeniedException: /);
  const kept = await harness.send('GET', `${RUNS}/${body.runId}`, { as: viewer });
  expect(kept.body).toMatchObject({ run: { state: 'failed', error: { code: 'MODEL_ERROR' } } });
});

test('throttling past every attempt is 503 MODEL_THROTTLED', async () => {
  const response = await harness.send('POST', RUNS, {
    as: editor,
    body: runBody({ source: { prompt: { systemMessage: '', userMessage: `THROTTLE:9 REPLY: ${Date.now()}`, config: config() } } }),
  });
  expect(response.status).toBe(503);
  expect(response.body).toMatchObject({ code: 'MODEL_THROTTLED' });
});

test('a run the budget cannot cover is 429 BUDGET_EXCEEDED with used and limit, nothing run', async () => {
  const accountId = 'acct_api_budget';
  await harness.fixtures.account(accountId);
  const owner = await harness.person('owner@budget.test', accountId, 'owner');
  await setModelBudget(harness.deps.table, accountId, 100);
  const response = await harness.send('POST', `/api/accounts/${accountId}/runs`, {
    as: owner,
    body: { source: { prompt: { systemMessage: '', userMessage: 'REPLY: hi', config: config() } } },
  });
  expect(response.status).toBe(429);
  expect(response.body).toEqual({ error: expect.any(String), code: 'BUDGET_EXCEEDED', used: 0, limit: 100 });
  expect(((await harness.send('GET', `/api/accounts/${accountId}/runs`, { as: owner })).body as { runs: unknown[] }).runs).toEqual([]);
});

test('a run id that is none is a 400 naming runId; one the account does not have, 404', async () => {
  expect((await harness.send('GET', `${RUNS}/nope`, { as: viewer })).body).toMatchObject({ field: 'runId' });
  expect((await harness.send('GET', `${RUNS}/run_20260101T000000000Z_00000000`, { as: viewer })).status).toBe(404);
  expect((await harness.send('GET', `${RUNS}?before=yesterday`, { as: viewer })).body).toMatchObject({ field: 'before' });
});

describe('with Accept: text/event-stream', () => {
  const stream = { Accept: 'text/event-stream' };

  test('what is refused before the run starts is the JSON error with its status, not a stream', async () => {
    const response = await harness.send('POST', RUNS, { as: editor, body: runBody({ variables: {} }), headers: stream });
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).toMatchObject({ field: 'variables.name' });
  });
});

describe('the budget of model tokens, set by owners, and counted in usage', () => {
  const accountId = 'acct_api_owners';
  let owner: Person;
  let admin: Person;

  beforeAll(async () => {
    await harness.fixtures.account(accountId);
    owner = await harness.person('owner@owners.test', accountId, 'owner');
    admin = await harness.person('admin@owners.test', accountId, 'admin');
  });

  const account = async () => (await harness.send('GET', `/api/accounts/${accountId}`, { as: admin })).body as { models: unknown };

  test('an account has none until its owners set one; GET shows it, null for none', async () => {
    expect((await account()).models).toEqual({ monthlyTokens: null });
    const set = await harness.send('PATCH', `/api/accounts/${accountId}`, { as: owner, body: { models: { monthlyTokens: 50_000 } } });
    expect(set.status).toBe(200);
    expect((await account()).models).toEqual({ monthlyTokens: 50_000 });
  });

  test('an admin may not set it (403), and it stays', async () => {
    const before = (await account()).models;
    expect((await harness.send('PATCH', `/api/accounts/${accountId}`, { as: admin, body: { models: { monthlyTokens: 1 } } })).status).toBe(403);
    expect((await account()).models).toEqual(before);
  });

  test('a budget that is not a whole number of tokens is a 400 naming it, and it stays', async () => {
    const before = (await account()).models;
    const response = await harness.send('PATCH', `/api/accounts/${accountId}`, { as: owner, body: { models: { monthlyTokens: 1.5 } } });
    expect(response.body).toMatchObject({ code: 'BAD_REQUEST', field: 'models.monthlyTokens' });
    expect((await account()).models).toEqual(before);
  });

  test('a run is held to the budget owners set, and null takes it away', async () => {
    const body = { source: { prompt: { systemMessage: '', userMessage: 'REPLY: hi', config: config() } }, params: { maxTokens: 100 } };
    await harness.send('PATCH', `/api/accounts/${accountId}`, { as: owner, body: { models: { monthlyTokens: 50 } } });
    expect((await harness.send('POST', `/api/accounts/${accountId}/runs`, { as: owner, body })).body).toMatchObject({ code: 'BUDGET_EXCEEDED', limit: 50 });
    await harness.send('PATCH', `/api/accounts/${accountId}`, { as: owner, body: { models: { monthlyTokens: null } } });
    expect((await account()).models).toEqual({ monthlyTokens: null });
    expect((await harness.send('POST', `/api/accounts/${accountId}/runs`, { as: owner, body })).status).toBe(200);
  });

  test('usage says the month’s model tokens, and each day’s', async () => {
    const usage = (await harness.send('GET', `/api/accounts/${accountId}/usage`, { as: admin })).body as {
      modelTokens: number;
      modelTokensByDay: Record<string, number>;
    };
    const { runs: list } = (await harness.send('GET', `/api/accounts/${accountId}/runs`, { as: admin })).body as {
      runs: { usage: { inputTokens: number; outputTokens: number } }[];
    };
    const counted = list.reduce((sum, run) => sum + run.usage.inputTokens + run.usage.outputTokens, 0);
    expect(counted).toBeGreaterThan(0);
    expect(usage.modelTokens).toBe(counted);
    expect(usage.modelTokensByDay).toEqual({ [new Date().toISOString().slice(8, 10)]: counted });
  });
});
