/**
 * `npm run bench:mcp`: what the MCP endpoint costs beside GET. Store operations per counted request of each kind,
 * warm (one at a time, against the local stack on a counting store), and every read API function's bundle: size
 * and load time in a fresh process (its cold start's own part). bench/MCP-RESULTS.md keeps the figures.
 */
import { writeFileSync } from 'node:fs';
import { cpus, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { AccountImporter } from '../admin/table/account-importer';
import { ensureTable } from '../admin/table/ensure-table';
import { generateApiKey, hashApiKey, keyIdFromHash } from '../lambda/domain/api-key';
import { createDocumentClient } from '../lambda/table/client';
import { loadLocalConfig } from '../local/local-config';
import { startLocalStack } from '../local/local-stack';
import { measureBundles } from './bundles';
import { table, units } from './markdown-table';
import { startCountingStore } from './counting-store';
import { type Probe, perRequestMeter } from './per-request';
import { tallyServiceLogLines } from './service-log-lines';

const TABLE = 'prompts-bench-mcp';
const ACCOUNT = 'bench-mcp';
const PROMPTS = 10;
const STORE_LATENCY_MS = 3;
const READ_FUNCTIONS = ['GetPromptFunction', 'ListPromptsFunction', 'FallbackFunction', 'McpFunction'];

function probes(apiUrl: string, apiKey: string): Probe[] {
  const bearer = { authorization: `Bearer ${apiKey}` };
  const mcp = (name: string, method: string, params: unknown, count = 50): Probe => ({
    name,
    url: `${apiUrl}/mcp`,
    method: 'POST',
    headers: { ...bearer, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    status: 200,
    count,
  });
  return [
    { name: 'GET /prompts/{id} (latest)', url: `${apiUrl}/prompts/p-0001`, headers: bearer, status: 200, count: 50 },
    { name: `GET /prompts (${PROMPTS} prompts)`, url: `${apiUrl}/prompts`, headers: bearer, status: 200, count: 50 },
    mcp('MCP prompts/get', 'prompts/get', { name: 'p-0001', arguments: { name: 'Ada', topic: 'billing' } }),
    mcp(`MCP prompts/list (${PROMPTS} prompts)`, 'prompts/list', {}),
    mcp('MCP tools/call get_prompt', 'tools/call', { name: 'get_prompt', arguments: { promptId: 'p-0001' } }),
    mcp('MCP tools/call list_prompts', 'tools/call', { name: 'list_prompts', arguments: {} }),
    mcp('MCP ping (counts nothing)', 'ping', {}),
    mcp('MCP tools/list (counts nothing)', 'tools/list', {}),
  ];
}

async function main(): Promise<void> {
  const bundles = (await measureBundles()).filter((bundle) => READ_FUNCTIONS.includes(bundle.functionName));
  const logLines = tallyServiceLogLines();
  const store = await startCountingStore(STORE_LATENCY_MS);
  const client = createDocumentClient({ region: 'us-east-1', endpoint: store.endpoint });
  await ensureTable(client, TABLE);
  const apiKey = generateApiKey();
  const keyHash = hashApiKey(apiKey);
  const text = (what: string, id: number) => `${what} for prompt ${id}: answer the customer \${name} about \${topic}. `.repeat(6);
  await new AccountImporter(client, TABLE).importAccounts([
    {
      accountId: ACCOUNT,
      name: ACCOUNT,
      plan: 'pro',
      keys: [{ keyHash, keyId: keyIdFromHash(keyHash), displayPrefix: apiKey.slice(0, 8), monthlyLimit: 1_000_000_000 }],
      prompts: Array.from({ length: PROMPTS }, (_, id) => ({
        promptId: `p-${String(id).padStart(4, '0')}`,
        promptName: `Prompt ${id}`,
        versions: [
          {
            version: '1.0.0',
            published: true,
            systemMessage: text('System message', id),
            userMessage: text('User message', id),
            config: { model: 'gpt-4o-mini', temperature: 0.3, schema: [], inputData: null, inputDataRootName: null },
          },
        ],
      })),
    },
  ]);
  const meter = perRequestMeter(store, logLines);
  const stack = await startLocalStack(
    { ...loadLocalConfig({}), port: 0, storeEndpoint: store.endpoint, seedPath: undefined, tableName: TABLE },
    { onFunctionError: (name, error) => console.error(`${name} failed:`, error), log: meter.observe },
  );
  try {
    const measured = [];
    for (const probe of probes(stack.apiUrl, apiKey)) measured.push(await meter.measure(probe));
    const cpu = cpus();
    const report = [
      `Command: \`npm run bench:mcp\` (the local stack on dynalite in its own process, +${STORE_LATENCY_MS} ms per store round trip)`,
      `Machine: ${cpu.length} x ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ${platform()} ${release()}, Node ${process.version}; ${new Date().toISOString().slice(0, 10)}`,
      '',
      "Store operations per request, warm (each kind sent on its own, one at a time, after one request to warm it; the function's own time as its log line reports it, the median):",
      '',
      table(
        measured.map((each) => [
          each.name,
          String(each.status),
          units(each.storeOps),
          units(each.readUnits),
          units(each.writeUnits),
          each.durationMs.toFixed(1),
        ]),
        ['request', 'status', 'store ops', 'read units', 'write units', 'function ms'],
      ),
      '',
      "The read API's bundles (what `cdk synth` builds; load = `import()` of the bundle in a fresh Node process, module scope included, the part of a cold start the bundle decides):",
      '',
      table(
        bundles.map((bundle) => [
          bundle.functionName,
          `${(bundle.bytes / 1024).toFixed(0)} KiB`,
          `${(bundle.gzipBytes / 1024).toFixed(0)} KiB`,
          bundle.loadMs.toFixed(1),
          bundle.loadRunsMs.map((ms) => ms.toFixed(1)).join(', '),
        ]),
        ['function', 'size', 'gzip', 'load ms (median of 5)', 'runs'],
      ),
    ].join('\n');
    writeFileSync(join(__dirname, 'MCP-RESULTS.md'), `# MCP endpoint: benchmark results\n\n${report}\n`);
    process.stdout.write(`${report}\n`);
  } finally {
    await stack.stop();
    client.destroy();
    await store.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
