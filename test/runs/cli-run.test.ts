import { runAdmin } from '../../admin/cli';
import { listRuns } from '../../lambda/features/runs/runs';
import { config, prompt, version } from '../support/fixtures';
import { type RunsWorld, setModelBudget, startRunsWorld } from '../support/runs';

/**
 * The admin CLI's `prompts run` (docs/cli.md), in-process against a real store and the local stand-in model: the
 * output as the model writes it, then tokens, cost and time; the same run operation as the management API's.
 */

let world: RunsWorld;
const ACCOUNT = 'acct_cli';

beforeAll(async () => {
  world = await startRunsWorld();
  await world.fixtures.account(ACCOUNT);
  await world.fixtures.prompts(
    ACCOUNT,
    prompt(
      'greeting',
      [
        version('1.0.0', { systemMessage: 'Be brief.', userMessage: 'PACE:20 REPLY: Hello ${name}, welcome!', config: config({ model: 'gpt-4o-mini' }) }),
        version('1.1.0', { userMessage: 'ERROR:ValidationException', config: config({ model: 'gpt-4o-mini' }) }),
      ],
      { labels: { production: '1.0.0' } },
    ),
  );
});

afterAll(() => world.close());

async function cli(argv: string[], { models = true }: { models?: boolean } = {}) {
  const stdout: string[] = [];
  let stderr = '';
  const code = await runAdmin(
    argv,
    {
      TABLE_NAME: world.store.tableName,
      DYNAMODB_ENDPOINT: world.store.endpoint,
      PROMPTS_ADMIN_ACTOR: 'tester',
      // As npm start prints it: the CLI's own models reach the stand-in through the SDK's variable.
      AWS_ENDPOINT_URL_BEDROCK_RUNTIME: world.standIn.url,
    },
    { stdout: (text) => stdout.push(text), stderr: (text) => (stderr += text) },
    () => new Date(),
    models ? { models: world.models } : {},
  );
  return { code, stdout, stderr };
}

const run = ['prompts', 'run', '--account', ACCOUNT, '--prompt', 'greeting'];

test('the output is written as the model writes it, then tokens, cost and time; exit 0; kept as the operator’s', async () => {
  const { code, stdout } = await cli([...run, '--label', 'production', '--var', 'name=Ada Lovelace']);
  expect(code).toBe(0);
  expect(stdout.slice(0, 4)).toEqual(['Hello Ad', 'a Lovela', 'ce, welc', 'ome!']);
  expect(stdout.at(-1)).toMatch(/^\n\n\d+ in \+ 7 out tokens, \$0\.\d{6}, \d+ ms \(first token \d+ ms\), gpt-4o-mini \(local stand-in model\), run_\S+\n$/);
  const [kept] = (await listRuns(world.table, ACCOUNT)).runs;
  expect(kept).toMatchObject({ by: 'cli:tester', label: 'production', version: '1.0.0', output: { text: 'Hello Ada Lovelace, welcome!' } });
});

test('without an injected catalog, AWS_ENDPOINT_URL_BEDROCK_RUNTIME gives the stand-in’s, as npm start’s banner says', async () => {
  const { code, stdout } = await cli([...run, '--label', 'production', '--var', 'name=Grace', '--model', 'us.amazon.nova-lite-v1:0'], { models: false });
  expect(code).toBe(0);
  expect(stdout.join('')).toContain('Hello Grace, welcome!');
  expect(stdout.at(-1)).toContain('us.amazon.nova-lite-v1:0 (local stand-in model)');
});

test('--json prints the run once it ends', async () => {
  const { code, stdout } = await cli([...run, '--version', '1.0.0', '--var', 'name=Ada', '--json']);
  expect(code).toBe(0);
  expect(stdout).toHaveLength(1);
  expect(JSON.parse(stdout[0] ?? '')).toMatchObject({ run: { state: 'completed', output: { text: 'Hello Ada, welcome!' }, by: 'cli:tester' } });
});

test('a model the catalog does not hold is a clear error listing the catalog; exit 2, nothing run', async () => {
  const before = (await listRuns(world.table, ACCOUNT)).runs.length;
  const { code, stderr } = await cli([...run, '--label', 'production', '--var', 'name=Ada', '--model', 'gpt-9']);
  expect(code).toBe(2);
  expect(stderr).toMatch(/^admin: model: gpt-9 is not in the stack's catalog: .*gpt-4o-mini/);
  expect((await listRuns(world.table, ACCOUNT)).runs).toHaveLength(before);
});

test('a placeholder without a value is exit 2 naming it', async () => {
  const { code, stderr } = await cli([...run, '--label', 'production']);
  expect([code, stderr]).toEqual([2, 'admin: variables.name: needs a value: the prompt has the placeholder ${name}\n']);
});

test('a failed run says why and exits 1; the failed run is kept', async () => {
  const { code, stdout } = await cli([...run, '--version', '1.1.0', '--var', 'name=Ada']);
  expect(code).toBe(1);
  expect(stdout.join('')).toMatch(/run failed, MODEL_ERROR: ValidationException: /);
  expect((await listRuns(world.table, ACCOUNT)).runs[0]).toMatchObject({ state: 'failed', version: '1.1.0' });
});

test('a run the budget cannot cover exits 1 saying so', async () => {
  await setModelBudget(world.table, ACCOUNT, 10);
  const { code, stderr } = await cli([...run, '--label', 'production', '--var', 'name=Ada']);
  await setModelBudget(world.table, ACCOUNT, null);
  expect(code).toBe(1);
  expect(stderr).toMatch(/^admin: the account's budget of model tokens for the month is spent: \d+ of 10/);
});

test.each([
  ['--version and --label both', ['--version', '1.0.0', '--label', 'production'], 'give --version or --label, not both'],
  ['a --var without =', ['--var', 'name'], '--var must be name=value'],
  ['a temperature that is no number', ['--temperature', 'warm'], '--temperature must be a number'],
])('%s is exit 2', async (_what, extra, message) => {
  const { code, stderr } = await cli([...run, ...extra]);
  expect(code).toBe(2);
  expect(stderr).toContain(message);
});
