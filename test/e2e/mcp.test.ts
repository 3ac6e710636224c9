/**
 * @run-alone a stalled store is answered within 5 s: another test file's CPU would be in that time.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { hashApiKey } from '../../lambda/domain/api-key';
import { quotaPeriodAt } from '../../lambda/domain/quota-period';
import { createDocumentClient } from '../../lambda/table/client';
import { assertFuzz, fuzzRuns, PROTOTYPE_NAMES } from '../support/fuzz';
import { Fixtures, prompt, version } from '../support/fixtures';
import { type StoreProcess, startStoreProcess } from '../support/store-process';
import { type StackProcess, StackSet, temporaryFolder } from './support/processes';

/**
 * POST /mcp as an agent meets it: the official SDK's own client (`Client` over `StreamableHTTPClientTransport`)
 * against `npm start` as a child process, on a store process the test can stall. Keys, scopes, labels and
 * the quota work exactly as on GET (docs/mcp.md); faults are the read API's 503 within 5 s.
 */

const ACCOUNT = 'agents';
const OTHER_ACCOUNT = 'strangers';
const TABLE = 'prompts-mcp';
const ANSWER_WITHIN_MS = 5_000;

let store: StoreProcess;
const stacks = new StackSet();
let stack: StackProcess;
let fixtures: Fixtures;
let operatorClient: ReturnType<typeof createDocumentClient>;
let removeDataDir: () => Promise<void>;

/** What the transport last received over HTTP: status and headers, which the SDK's results do not carry. */
interface Wire {
  status?: number;
  headers?: Headers;
}

async function connect(apiKey: string, query = ''): Promise<{ client: Client; wire: Wire }> {
  const wire: Wire = {};
  const recording: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if ((init?.method ?? 'GET') === 'POST') {
      wire.status = response.status;
      wire.headers = response.headers;
    }
    return response;
  };
  const transport = new StreamableHTTPClientTransport(new URL(`${stack.apiUrl}/mcp${query}`), {
    requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
    fetch: recording,
  });
  const client = new Client({ name: 'mcp-e2e-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, wire };
}

const usageOf = (apiKey: string) => fixtures.admin.usage(hashApiKey(apiKey), quotaPeriodAt(new Date()).month);

async function rpcError(call: Promise<unknown>): Promise<McpError> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof McpError)) throw new Error(`expected a JSON-RPC error, got ${String(error)}`);
  return error;
}

beforeAll(async () => {
  const dataDir = await temporaryFolder('mcp');
  removeDataDir = dataDir.remove;
  store = await startStoreProcess(dataDir.path);
  stack = await stacks.start({ DYNAMODB_ENDPOINT: store.endpoint, SEED_FILE: '', TABLE_NAME: TABLE, DATA_DIR: `${dataDir.path}/stack` });
  operatorClient = createDocumentClient({ region: 'us-east-1', endpoint: store.endpoint });
  fixtures = new Fixtures(operatorClient, TABLE);
  await fixtures.account(ACCOUNT);
  await fixtures.account(OTHER_ACCOUNT);
  await fixtures.prompts(
    ACCOUNT,
    prompt(
      'welcome',
      [
        version('1.0.0', { systemMessage: 'You greet ${name}.', userMessage: 'Old welcome for ${name}' }),
        version('1.1.0', { systemMessage: 'You greet ${name} from ${company}.', userMessage: 'Welcome ${name} to ${company}' }),
      ],
      { labels: { production: '1.0.0' } },
    ),
    prompt('plain', [version('1.0.0', { systemMessage: '', userMessage: 'No variables here' })]),
  );
  await fixtures.prompts(OTHER_ACCOUNT, prompt('secret', [version('1.0.0', { userMessage: 'Not yours, ${name}' })]));
}, 90_000);

afterAll(async () => {
  await stacks.stopAll();
  operatorClient?.destroy();
  await store?.close();
  await removeDataDir?.();
});

afterEach(() => store.resume());

describe('prompts/list', () => {
  test("lists the key's account's prompts, each placeholder a required argument, system message first", async () => {
    const { client } = await connect(await fixtures.apiKey(ACCOUNT));
    const { prompts } = await client.listPrompts();
    expect(prompts).toEqual([
      { name: 'plain', title: 'Prompt plain', description: expect.stringContaining('1.0.0'), arguments: [] },
      {
        name: 'welcome',
        title: 'Prompt welcome',
        description: expect.stringContaining('1.1.0'),
        arguments: [
          { name: 'name', required: true },
          { name: 'company', required: true },
        ],
      },
    ]);
    await client.close();
  });

  test('with ?label=, only the prompts that carry it, at the labelled version and its placeholders', async () => {
    const { client } = await connect(await fixtures.apiKey(ACCOUNT), '?label=production');
    const { prompts } = await client.listPrompts();
    expect(prompts.map((listed) => [listed.name, listed.arguments])).toEqual([['welcome', [{ name: 'name', required: true }]]]);
    await client.close();
  });
});

describe('prompts/get', () => {
  test('fills every placeholder with the same template code the clients use: the system message first, as a user message', async () => {
    const { client } = await connect(await fixtures.apiKey(ACCOUNT));
    const result = await client.getPrompt({ name: 'welcome', arguments: { name: 'Ada', company: 'Acme' } });
    expect(result.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'You greet Ada from Acme.' } },
      { role: 'user', content: { type: 'text', text: 'Welcome Ada to Acme' } },
    ]);
    expect(result._meta).toMatchObject({ promptId: 'welcome', version: '1.1.0', systemMessage: 'You greet Ada from Acme.' });
    await client.close();
  });

  test('a prompt without placeholders is got without arguments', async () => {
    const { client } = await connect(await fixtures.apiKey(ACCOUNT));
    const result = await client.getPrompt({ name: 'plain' });
    expect(result.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'No variables here' } }]);
    await client.close();
  });

  test('a missing argument is -32602 naming it, and still counts one unit, as a GET with a bad parameter does', async () => {
    const apiKey = await fixtures.apiKey(ACCOUNT);
    const { client } = await connect(apiKey);
    const before = await usageOf(apiKey);
    const error = await rpcError(client.getPrompt({ name: 'welcome', arguments: { name: 'Ada' } }));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toContain('company');
    expect(await usageOf(apiKey)).toBe(before + 1);
    await client.close();
  });

  test('an unknown prompt and another account\'s prompt are the same -32602 "Unknown prompt"', async () => {
    const { client } = await connect(await fixtures.apiKey(ACCOUNT));
    const unknown = await rpcError(client.getPrompt({ name: 'nowhere' }));
    const foreign = await rpcError(client.getPrompt({ name: 'secret', arguments: { name: 'Ada' } }));
    expect([unknown.code, foreign.code]).toEqual([ErrorCode.InvalidParams, ErrorCode.InvalidParams]);
    expect(unknown.message).toContain('Unknown prompt: nowhere');
    expect(foreign.message).toContain('Unknown prompt: secret');
    await client.close();
  });

  test('with ?label=production, the version the label points at', async () => {
    const { client } = await connect(await fixtures.apiKey(ACCOUNT), '?label=production');
    const result = await client.getPrompt({ name: 'welcome', arguments: { name: 'Ada' } });
    expect(result.messages.map((message) => (message.content as { text: string }).text)).toEqual(['You greet Ada.', 'Old welcome for Ada']);
    expect(result._meta).toMatchObject({ version: '1.0.0' });
    await client.close();
  });
});

describe('keys, scopes and the quota, exactly as on GET', () => {
  test('a scoped key lists and gets only the prompts of its scope', async () => {
    const { client } = await connect(await fixtures.apiKey(ACCOUNT, { scope: ['plain'] }));
    expect((await client.listPrompts()).prompts.map((listed) => listed.name)).toEqual(['plain']);
    expect((await rpcError(client.getPrompt({ name: 'welcome', arguments: { name: 'A', company: 'B' } }))).code).toBe(ErrorCode.InvalidParams);
    await client.close();
  });

  test('a revoked key is refused with 401 from the next request', async () => {
    const apiKey = await fixtures.apiKey(ACCOUNT);
    const { client, wire } = await connect(apiKey);
    await client.listPrompts();
    await fixtures.admin.revokeApiKey(hashApiKey(apiKey));
    await expect(client.listPrompts()).rejects.toThrow();
    expect(wire.status).toBe(401);
    await client.close();
  });

  test('each prompts/list, prompts/get and tools/call counts one unit, initialize, ping and tools/list none, and every answer carries the rate-limit headers', async () => {
    const apiKey = await fixtures.apiKey(ACCOUNT);
    const { client, wire } = await connect(apiKey);
    await client.ping();
    await client.listTools();
    expect(await usageOf(apiKey)).toBe(0);
    expect(wire.headers?.get('x-ratelimit-remaining')).toBe('5000');
    await client.listPrompts();
    await client.getPrompt({ name: 'plain' });
    await client.callTool({ name: 'get_prompt', arguments: { promptId: 'plain' } });
    expect(await usageOf(apiKey)).toBe(3);
    expect(wire.headers?.get('x-ratelimit-remaining')).toBe('4997');
    await client.close();
  });

  test('the quota running out is HTTP 429 with Retry-After, and counts nothing more', async () => {
    const apiKey = await fixtures.apiKey(ACCOUNT, { monthlyLimit: 2 });
    const { client, wire } = await connect(apiKey);
    await client.listPrompts();
    await client.getPrompt({ name: 'plain' });
    await expect(client.listPrompts()).rejects.toThrow();
    expect(wire.status).toBe(429);
    expect(Number(wire.headers?.get('retry-after'))).toBeGreaterThan(0);
    expect(await usageOf(apiKey)).toBe(2);
    await client.close();
  });
});

describe('the tools', () => {
  test("get_prompt answers the read API's body as structured content, and the filled messages when given variables", async () => {
    const { client } = await connect(await fixtures.apiKey(ACCOUNT));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['get_prompt', 'list_prompts']);
    for (const tool of tools) expect(tool.outputSchema).toMatchObject({ type: 'object' });
    const result = await client.callTool({ name: 'get_prompt', arguments: { promptId: 'welcome', variables: { name: 'Ada', company: 'Acme' } } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ promptId: 'welcome', version: '1.1.0', userMessage: 'Welcome ${name} to ${company}' });
    expect(JSON.stringify(result.structuredContent)).toContain('Welcome Ada to Acme');
    await client.close();
  });
});

test('a stalled store is answered 503 within 5 s, never a JSON-RPC error in a 200, and the request costs at most one unit', async () => {
  const apiKey = await fixtures.apiKey(ACCOUNT);
  const { client, wire } = await connect(apiKey);
  await client.getPrompt({ name: 'plain' });
  // A new latest, so the warm function must read the store for the next get.
  await fixtures.prompts(ACCOUNT, prompt('plain', [version('1.0.1', { systemMessage: '', userMessage: 'No variables here' })]));
  store.stop();
  const started = performance.now();
  await expect(client.getPrompt({ name: 'plain' })).rejects.toThrow();
  expect(performance.now() - started).toBeLessThan(ANSWER_WITHIN_MS);
  expect(wire.status).toBe(503);
  store.resume();
  expect(await usageOf(apiKey)).toBeLessThanOrEqual(2);
  await client.close();
}, 30_000);

describe('fuzzing: arbitrary JSON-RPC bodies', () => {
  const method = fc.oneof(
    fc.constantFrom('initialize', 'ping', 'prompts/list', 'prompts/get', 'tools/list', 'tools/call', 'notifications/initialized', 'resources/list'),
    fc.constantFrom(...PROTOTYPE_NAMES),
    fc.string({ maxLength: 20 }),
  );
  const value = fc.jsonValue({ maxDepth: 4 });
  const params = fc.oneof(
    fc.constant(undefined),
    value,
    fc.record(
      {
        name: fc.oneof(fc.constantFrom('welcome', 'plain', 'secret', 'get_prompt', 'list_prompts', ...PROTOTYPE_NAMES), fc.string()),
        arguments: fc.oneof(value, fc.dictionary(fc.oneof(fc.constantFrom('name', 'company', 'promptId', 'label', ...PROTOTYPE_NAMES), fc.string()), value)),
        cursor: fc.oneof(fc.string(), value),
        protocolVersion: fc.constantFrom('2025-06-18', '2025-03-26', 'x'),
      },
      { requiredKeys: [] },
    ),
  );
  const message = fc.record(
    {
      jsonrpc: fc.oneof({ weight: 5, arbitrary: fc.constant('2.0') }, { weight: 1, arbitrary: value }),
      id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null), value),
      method,
      params,
    },
    { requiredKeys: [] },
  );
  const body = fc.oneof(
    { weight: 6, arbitrary: message.map((sent) => JSON.stringify(sent)) },
    { weight: 1, arbitrary: fc.array(message, { maxLength: 3 }).map((sent) => JSON.stringify(sent)) },
    { weight: 1, arbitrary: value.map((sent) => JSON.stringify(sent)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  );
  const headers = fc.record({
    accept: fc.constantFrom('application/json, text/event-stream', 'application/json', 'text/event-stream', '*/*', ''),
    contentType: fc.constantFrom('application/json', 'text/plain', ''),
    version: fc.constantFrom(undefined, '2025-06-18', '2025-03-26', '1999-01-01', '__proto__'),
    label: fc.constantFrom('', '?label=production', '?label=__proto__', '?label=BAD', '?label=nowhere'),
  });

  test('never give a 5xx, never count more than one unit a request, and count none for what reads no prompt', async () => {
    const apiKey = await fixtures.apiKey(ACCOUNT, { monthlyLimit: 100_000 });
    await assertFuzz(
      'test/e2e/mcp.test.ts',
      fc.tuple(body, headers),
      async ([sent, { accept, contentType, version: protocolVersion, label }]) => {
        const before = await usageOf(apiKey);
        const response = await fetch(`${stack.apiUrl}/mcp${label}`, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${apiKey}`,
            ...(accept ? { Accept: accept } : {}),
            ...(contentType ? { 'Content-Type': contentType } : {}),
            ...(protocolVersion ? { 'Mcp-Protocol-Version': protocolVersion } : {}),
          },
          body: sent,
        });
        await response.arrayBuffer();
        expect([sent, response.status < 500]).toEqual([sent, true]);
        const counted = (await usageOf(apiKey)) - before;
        expect([sent, counted <= 1]).toEqual([sent, true]);
        let parsed: unknown;
        try {
          parsed = JSON.parse(sent);
        } catch {
          parsed = undefined;
        }
        const reads = ['prompts/list', 'prompts/get', 'tools/call'];
        const method = (parsed as { method?: unknown } | undefined)?.method;
        const isRequest = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && 'id' in parsed;
        if (!(isRequest && typeof method === 'string' && reads.includes(method))) expect([sent, counted]).toEqual([sent, 0]);
      },
      fuzzRuns(120),
    );
  }, 180_000);
});
