import fc from 'fast-check';
import { createDocumentClient } from '../../lambda/table/client';
import { hashApiKey } from '../../lambda/domain/api-key';
import { DEFAULT_TABLE_NAME } from '../../local/local-config';
import { Fixtures, prompt, version } from '../support/fixtures';
import {
  answerProblems,
  assertFuzz,
  countProblems,
  type FuzzKeys,
  type FuzzRequest,
  fuzzRequests,
  fuzzRuns,
  invalidHeaderName,
  KEY_ROLES,
  type KeyRole,
  targetOf,
  withKeys,
} from '../support/fuzz';
import { type RawRequest, sendRaw } from '../support/raw-http';
import { isRunning, type StackProcess, StackSet, temporaryFolder } from './support/processes';

/**
 * `npm start` fuzzed over HTTP (test/support/fuzz.ts), on raw sockets so that anything a client can
 * put on the wire is sent: repeated and case-varied headers, names that are not HTTP tokens, methods
 * HTTP does not know, request heads past node:http's limit. The process must stay up and answer each.
 */

const TEST_FILE = 'test/e2e/fuzz-http.test.ts';
const stacks = new StackSet();
let stack: StackProcess;
let fixtures: Fixtures;
let client: ReturnType<typeof createDocumentClient>;
let removeDataDir: () => Promise<void>;
let keys: FuzzKeys;

beforeAll(async () => {
  const dataDir = await temporaryFolder('fuzz-http');
  removeDataDir = dataDir.remove;
  stack = await stacks.start({ DATA_DIR: dataDir.path, SEED_FILE: '' });
  client = createDocumentClient({ region: 'us-east-1', endpoint: stack.storeUrl });
  fixtures = new Fixtures(client, DEFAULT_TABLE_NAME);
  await fixtures.account('acme');
  await fixtures.account('globex');
  await fixtures.prompts(
    'acme',
    prompt('welcome', [version('1.0.0'), version('1.1.0'), version('2.0.0', { published: false })]),
    prompt('draft-only', [version('1.0.0', { published: false })]),
    prompt('retired', [version('1.0.0')], { deleted: true }),
    prompt('constructor', [version('1.0.0')]),
  );
  await fixtures.prompts('globex', prompt('other', [version('1.0.0')]));
  keys = {
    valid: await fixtures.apiKey('acme', { monthlyLimit: 1_000_000 }),
    limited: await fixtures.apiKey('acme', { monthlyLimit: 3 }),
    revoked: await fixtures.apiKey('acme', { revoked: true }),
  };
}, 90_000);

afterAll(async () => {
  client?.destroy();
  await stacks.stopAll();
  await removeDataDir?.();
});

const thisMonth = () => new Date().toISOString().slice(0, 7);

async function counts(): Promise<Record<KeyRole, number>> {
  const entries = await Promise.all(KEY_ROLES.map(async (role) => [role, await fixtures.admin.usage(hashApiKey(keys[role]), thisMonth())] as const));
  return Object.fromEntries(entries) as Record<KeyRole, number>;
}

/** The request as JSON, long values cut short: enough to recognise it, and the seed replays it whole. */
function describe(request: FuzzRequest): string {
  return JSON.stringify({ ...request, body: `${request.body.length} bytes` }, (_, value: unknown) =>
    typeof value === 'string' && value.length > 120 ? `${value.slice(0, 60)}...(${value.length} characters)` : value,
  );
}

async function exitsWithin(pid: number, ms: number): Promise<boolean> {
  await new Promise((resolve) => setTimeout(resolve, ms));
  return !isRunning(pid);
}

/** Text as its UTF-8 bytes on the wire (raw-http writes the head as latin1, one byte a character). */
const utf8 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

function onTheWire(request: FuzzRequest): RawRequest {
  return {
    method: request.method,
    target: utf8(targetOf(request)),
    headers: withKeys(request, keys).map(([name, value]) => [utf8(name), utf8(value)]),
    body: Buffer.from(request.body),
  };
}

test('every generated request is answered, in the API format or with a body openapi.yaml documents, and counted at most once; the stack stays up', async () => {
  const requests = fuzzRequests({
    extraHeaderNames: invalidHeaderName,
    methods: fc.constantFrom('CONNECT', 'TRACE', 'get', 'FETCH'),
  });
  let stoppedBy: string | undefined;
  await assertFuzz(
    TEST_FILE,
    requests,
    async (request) => {
      // Once the stack is down every request fails, and shrinking cannot find the culprit: name it.
      if (stoppedBy !== undefined) throw new Error(`the stack stopped running during ${stoppedBy}`);
      let failure: unknown;
      try {
        const before = await counts();
        const response = await sendRaw(stack.apiUrl, onTheWire(request));
        const after = await counts();
        // Answered by a function, so openapi.yaml describes it; else by the gateway before any function ran.
        const documented = response.headers['x-amzn-requestid'] !== undefined;
        const problems = [...answerProblems(request, response, keys, documented), ...countProblems(request, response, before, after)];
        if (problems.length > 0) failure = new Error(`-> ${response.status}:\n  ${problems.join('\n  ')}`);
      } catch (error) {
        failure = error;
      }
      // A process that dies closes its sockets before it is gone: give it a moment to be seen gone.
      if (!isRunning(stack.pid) || (failure !== undefined && (await exitsWithin(stack.pid, 500)))) {
        stoppedBy = describe(request);
        throw new Error(`the stack stopped running during ${stoppedBy}`);
      }
      if (failure !== undefined) throw failure;
    },
    fuzzRuns(150),
  );
  expect(isRunning(stack.pid)).toBe(true);
  const after = await sendRaw(stack.apiUrl, { method: 'GET', target: '/prompts/welcome', headers: [['Authorization', `Bearer ${keys.valid}`]] });
  expect(after.status).toBe(200);
}, 150_000);
