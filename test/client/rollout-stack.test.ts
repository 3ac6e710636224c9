import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createPromptClient } from '../../client/src/index';
import { createDocumentClient } from '../../lambda/table/client';
import { prompt, version } from '../support/fixtures';
import { startRollout } from '../support/rollouts';
import { CLIENT_PYTHON } from '../python/support/python';
import { ClientStack } from './support/client-stack';

/**
 * A rollout end to end, against `npm start`'s stack (the real read path and the embedded store): what the
 * service answers each subject, and what the TypeScript and the Python clients decide for it from their
 * caches, agree; and a warm client makes no request per subject. Requests are counted from the stack's
 * request log, one key per reader.
 */
const stack = new ClientStack();
const ROLLOUT_ID = 'ro_20261127060000000_00c0ffee';
const PERCENT = 30;
const SUBJECTS = Array.from({ length: 1000 }, (_, n) => `user-${n}`);
/** The subjects the service itself is asked about, one request each. */
const ASKED = SUBJECTS.slice(0, 150);
let keys: { server: string; ts: string; python: string };
let served: Map<string, { version: string; rollout: unknown; header: string | null }>;

beforeAll(async () => {
  await stack.start();
  await stack.fixtures.account('rollout-e2e', 'pro');
  await stack.fixtures.prompts('rollout-e2e', prompt('welcome-email', [version('1.0.0'), version('2.0.0')], { labels: { production: '1.0.0' } }));
  keys = {
    server: await stack.fixtures.apiKey('rollout-e2e'),
    ts: await stack.fixtures.apiKey('rollout-e2e'),
    python: await stack.fixtures.apiKey('rollout-e2e'),
  };
  const store = createDocumentClient({ region: 'us-east-1', endpoint: stack.storeEndpoint });
  try {
    await startRollout(
      { client: store, tableName: stack.tableName },
      { accountId: 'rollout-e2e', promptId: 'welcome-email', label: 'production' },
      { rolloutId: ROLLOUT_ID, percent: PERCENT, to: '2.0.0' },
    );
  } finally {
    store.destroy();
  }
  served = new Map();
  for (const subject of ASKED) {
    const response = await fetch(`${stack.url}/prompts/welcome-email?label=production`, {
      headers: { authorization: `Bearer ${keys.server}`, 'x-prompt-subject': subject },
    });
    const body = (await response.json()) as { version: string; rollout: unknown };
    served.set(subject, { version: body.version, rollout: body.rollout, header: response.headers.get('x-prompt-rollout') });
  }
}, 120_000);
afterAll(() => stack.remove());
afterEach(() => expect(stack.failures).toEqual([]));

test('the service answers each subject with a side, the rollout header and the rollout in the body', () => {
  const answers = [...served.values()];

  expect(new Set(answers.map((answer) => answer.version))).toEqual(new Set(['1.0.0', '2.0.0']));
  for (const answer of answers) {
    expect(answer.header).toBe(ROLLOUT_ID);
    expect(answer.rollout).toEqual({ rolloutId: ROLLOUT_ID, percent: PERCENT, from: '1.0.0', to: '2.0.0' });
  }
});

test("the TypeScript client's decisions from its cache agree with the service's answers, with no request per subject once warm", async () => {
  const client = createPromptClient({ baseUrl: stack.url, apiKey: keys.ts });
  await client.get('welcome-email', { label: 'production', subject: 'warm-up' });
  await client.idle();
  const warm = stack.requestsOf(keys.ts).length;

  const decided = new Map<string, string>();
  for (const subject of SUBJECTS) decided.set(subject, (await client.get('welcome-email', { label: 'production', subject })).version);
  await client.idle();

  expect(warm).toBe(2);
  expect(stack.requestsOf(keys.ts)).toHaveLength(warm);
  expect(ASKED.filter((subject) => decided.get(subject) !== served.get(subject)?.version)).toEqual([]);
});

test("the Python client's decisions from its cache agree with the service's answers, with no request per subject once warm", async () => {
  const answers = await pythonClient({ url: stack.url, promptId: 'welcome-email', label: 'production', subjects: SUBJECTS }, keys.python);

  expect(answers).toHaveLength(SUBJECTS.length);
  expect(ASKED.filter((subject, index) => answers[index]?.version !== served.get(subject)?.version)).toEqual([]);
  expect(answers.every((answer) => answer.side === (answer.version === '2.0.0' ? 'to' : 'from'))).toBe(true);
  // The first read at the label, and the other side once: nothing for the 1,000 subjects after them.
  expect(stack.requestsOf(keys.python)).toHaveLength(2);
});

test('both clients give every one of the 1,000 subjects the same side', async () => {
  const ts = createPromptClient({ baseUrl: stack.url, apiKey: keys.ts });
  const python = await pythonClient({ url: stack.url, promptId: 'welcome-email', label: 'production', subjects: SUBJECTS }, keys.python);

  const fromTs = [];
  for (const subject of SUBJECTS) fromTs.push((await ts.get('welcome-email', { label: 'production', subject })).version);
  await ts.idle();

  expect(python.map((answer) => answer.version)).toEqual(fromTs);
});

function pythonClient(input: object, apiKey: string): Promise<Array<{ version: string; side: string | null; source: string }>> {
  return new Promise((done, fail) => {
    const script = join(__dirname, 'support', 'python_rollout_client.py');
    const child = spawn('python3', [script, join(CLIENT_PYTHON, 'src')], {
      env: { ...process.env, PROMPTS_API_KEY: apiKey, PYTHONDONTWRITEBYTECODE: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.once('error', fail);
    child.once('close', (code) => (code === 0 ? done(JSON.parse(output)) : fail(new Error(`python3 exited ${code}:\n${errors}`))));
    child.stdin.end(JSON.stringify(input));
  });
}
