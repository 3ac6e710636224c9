import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { runAdmin } from '../../admin/cli';
import { createPromptClient, type PromptSnapshot } from '../../client/src/index';
import { fetchApi } from '../e2e/support/api-fetch';
import { temporaryFolder } from '../e2e/support/processes';
import { registerApiKey } from '../support/log-capture';
import { ClientStack } from './support/client-stack';

/**
 * Names are data all the way (docs/behaviour-rules.md, "Names are data"): an account and prompts named
 * after what every object inherits, whose config, schema and inputData hold keys named `__proto__`,
 * `constructor` and `prototype`, round-trip exactly: seed file -> store -> API -> client -> snapshot.
 */

const API_KEY = 'prs_names_are_data_only_0001';
const PROMPT_IDS = ['__proto__', 'constructor', 'prototype'];

/**
 * The config as written in the seed file, as text: in a JavaScript object literal `"__proto__": ...`
 * would set the prototype instead of making a key. Key order is the author's, and is kept.
 */
const CONFIG_TEXT =
  '{"model":"gpt-4o-mini","temperature":0.5,' +
  '"schema":[{"__proto__":{"type":"string"},"constructor":{"name":"Set"},"prototype":1,"toString":"text"}],' +
  '"inputData":{"__proto__":{"polluted":true},"constructor":{"prototype":{"name":"Map"}},"prototype":null,"hasOwnProperty":[1]},' +
  '"inputDataRootName":"__proto__"}';

const SEED_TEXT = `{"accounts":[{"accountId":"constructor","name":"Names are data","plan":"free",
  "keys":[{"apiKey":"${API_KEY}"}],
  "prompts":[${PROMPT_IDS.map(
    (promptId) => `{"promptId":"${promptId}","promptName":"${promptId}","versions":[
      {"version":"1.0.0","published":true,"systemMessage":"s","userMessage":"u \${__proto__} \${constructor}","config":${CONFIG_TEXT}},
      {"version":"1.1.0","published":true,"systemMessage":"s2","userMessage":"v \${prototype}","config":${CONFIG_TEXT}}]}`,
  ).join(',')}]}]}`;

const stack = new ClientStack();
let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let seedPath: string;

async function admin(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const env = { DYNAMODB_ENDPOINT: stack.storeEndpoint, TABLE_NAME: stack.tableName, AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' };
  const code = await runAdmin(argv, env, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

/** The config as JSON text: equal text means every key, own `__proto__` included, and its order. */
const configText = (prompt: unknown) => JSON.stringify((prompt as { config: unknown }).config);

beforeAll(async () => {
  registerApiKey(API_KEY);
  await stack.start();
  folder = await temporaryFolder('names-as-data');
  seedPath = join(folder.path, 'seed.json');
  await writeFile(seedPath, SEED_TEXT);
  expect(await admin('prompts', 'import', seedPath)).toMatchObject({ code: 0, stderr: '' });
}, 60_000);

afterAll(async () => {
  await stack.remove();
  await folder.remove();
});

test('the seed file parses with every key of its config kept', () => {
  expect(JSON.stringify(JSON.parse(CONFIG_TEXT))).toBe(CONFIG_TEXT);
  expect(Object.keys(JSON.parse(CONFIG_TEXT).inputData)).toEqual(['__proto__', 'constructor', 'prototype', 'hasOwnProperty']);
});

test('importing the same seed again changes nothing: the stored content compares equal, key for key', async () => {
  const again = await admin('prompts', 'import', seedPath, '--json');
  expect(again.code).toBe(0);
  expect(JSON.parse(again.stdout)).toMatchObject({
    summary: { prompts: { created: 0, updated: 0, unchanged: 3 }, versions: { created: 0, updated: 0, unchanged: 6 } },
  });
});

test.each(PROMPT_IDS)('the API serves prompt %s with its config exactly as written, latest and pinned', async (promptId) => {
  const headers = { Authorization: `Bearer ${API_KEY}` };
  const latest = await fetchApi(`${stack.url}/prompts/${promptId}`, { headers });
  expect(latest.status).toBe(200);
  const body = await latest.json();
  expect(body).toMatchObject({ promptId, version: '1.1.0' });
  expect(configText(body)).toBe(CONFIG_TEXT);

  const pinned = await (await fetchApi(`${stack.url}/prompts/${promptId}?version=1.0.0`, { headers })).json();
  expect(configText(pinned)).toBe(CONFIG_TEXT);
});

test('the list serves every prompt of the account, each config exactly as written', async () => {
  const response = await fetchApi(`${stack.url}/prompts?include_versions=true`, { headers: { Authorization: `Bearer ${API_KEY}` } });
  const prompts = (await response.json()) as { promptId: string; config: unknown }[];
  expect(prompts.map((prompt) => prompt.promptId)).toEqual([...PROMPT_IDS].sort());
  for (const prompt of prompts) expect(configText(prompt)).toBe(CONFIG_TEXT);
});

test('the client gets them, and its snapshot, read back by a client offline, still holds every key', async () => {
  const online = createPromptClient({ baseUrl: stack.url, apiKey: API_KEY });
  await online.preload();
  for (const promptId of PROMPT_IDS) {
    expect(configText(await online.get(promptId))).toBe(CONFIG_TEXT);
    expect(configText(await online.get(promptId, { version: '1.0.0' }))).toBe(CONFIG_TEXT);
  }
  const snapshotText = JSON.stringify(await online.snapshot());

  const offline = createPromptClient({ baseUrl: await deadUrl(), apiKey: API_KEY, snapshot: snapshotText });
  for (const promptId of PROMPT_IDS) {
    const latest = await offline.get(promptId);
    expect(latest).toMatchObject({ promptId, version: '1.1.0', source: 'snapshot' });
    expect(configText(latest)).toBe(CONFIG_TEXT);
    expect(configText(await offline.get(promptId, { version: '1.0.0' }))).toBe(CONFIG_TEXT);
  }
});

test('prompts export writes the same config into its snapshot', async () => {
  const out = join(folder.path, 'export.json');
  expect(await admin('prompts', 'export', '--account', 'constructor', '--out', out)).toMatchObject({ code: 0 });
  const snapshot = JSON.parse(await readFile(out, 'utf8')) as PromptSnapshot;
  expect(snapshot.prompts.map((prompt) => prompt.promptId)).toEqual([...PROMPT_IDS].sort());
  for (const prompt of [...snapshot.prompts, ...snapshot.versions]) expect(configText(prompt)).toBe(CONFIG_TEXT);
});

test('prompts show prints the stored config with every key', async () => {
  const shown = await admin('prompts', 'show', '--account', 'constructor', '--prompt', '__proto__', '--version', '1.0.0', '--json');
  expect(shown.code).toBe(0);
  expect(configText(JSON.parse(shown.stdout))).toBe(CONFIG_TEXT);
});

test('placeholders named __proto__ and constructor are variables like any other', async () => {
  const prompts = createPromptClient({ baseUrl: stack.url, apiKey: API_KEY });
  const prompt = await prompts.get('constructor', { version: '1.0.0' });
  expect(prompt.variables).toEqual(['__proto__', 'constructor']);
  expect(() => prompt.compile({})).toThrow(/missing \$\{__proto__\}, \$\{constructor\}/);
  const values = JSON.parse('{"__proto__":"A","constructor":"B"}') as Record<string, string>;
  expect(prompt.compile(values).userMessage).toBe('u A B');
});
