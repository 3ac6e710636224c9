import {
  connectWithConfiguration,
  createWorkspace,
  DEMO_KEY,
  McpConfiguration,
  runPython,
  runShell,
  runTypeScript,
  substitute,
  type Workspace,
} from './support/doc-block-runner';
import { blocksOf, type DocBlock, documentedFiles, kindOf, programOf } from './support/doc-blocks';
import { REPO_ROOT, type StackProcess, StackSet, temporaryFolder } from './support/processes';

/**
 * Every block of the README, docs/ and the clients' READMEs that a reader would run is run here, extracted
 * from the Markdown, against `npm start`'s demo: TypeScript with the repository's tsx, Python with the
 * client's source on the path, shell lines (curl, the admin CLI, the smoke command) with bash, an MCP
 * configuration by connecting with it. A block that must not run says why in the Markdown
 * (`<!-- not run: ... -->`); any other block of a language the test does not know fails it. The blocks run
 * in document order against one stack, as a reader goes through the pages.
 */

jest.setTimeout(60_000);

const stacks = new StackSet();
let stack: StackProcess;
let workspace: Workspace;
let removeDataDir: () => Promise<void>;

const blocks: DocBlock[] = documentedFiles(REPO_ROOT).flatMap((file) => blocksOf(REPO_ROOT, file));
const place = (block: DocBlock) => `${block.file}:${block.line} (${block.language || 'no language'})`;
const toRun = blocks.filter((block) => kindOf(block) !== 'data' && kindOf(block) !== undefined && block.marker?.kind !== 'not run');

beforeAll(async () => {
  const dataDir = await temporaryFolder('doc-blocks');
  removeDataDir = dataDir.remove;
  stack = await stacks.start({ DATA_DIR: dataDir.path });
  workspace = await createWorkspace(REPO_ROOT, stack, dataDir.path);
}, 90_000);

afterAll(async () => {
  await stacks.stopAll();
  await workspace?.remove();
  await removeDataDir?.();
});

test('every block has a language the test knows, or says why it is not run', () => {
  const unknown = blocks.filter((block) => kindOf(block) === undefined && block.marker?.kind !== 'not run').map(place);
  expect(unknown).toEqual([]);
});

test('every block marked not run says why', () => {
  const silent = blocks.filter((block) => block.marker?.kind === 'not run' && block.marker.reason === '').map(place);
  expect(silent).toEqual([]);
});

test('the documents have runnable blocks in each language the issue names', () => {
  const kinds = new Set(toRun.map(kindOf));
  expect([...kinds].sort()).toEqual(['mcp configuration', 'python', 'shell', 'typescript']);
});

describe.each(toRun.map((block) => [place(block), block] as const))('%s', (_, block) => {
  test('runs as written against the demo', async () => {
    const program = substitute(programOf(block, blocks), stack, REPO_ROOT);
    switch (kindOf(block)) {
      case 'mcp configuration': {
        const prompts = await connectWithConfiguration(program);
        expect(prompts).toContain('welcome-email');
        return;
      }
      case 'typescript':
        return expectSuccess(await runTypeScript(program, workspace));
      case 'python':
        return expectSuccess(await runPython(program, workspace));
      case 'shell':
        return expectSuccess(await runShell(program, workspace));
      default:
        throw new Error(`${place(block)}: not a block to run`);
    }
  });
});

describe('the MCP recipes that download third-party tools (not run)', () => {
  const mcpBlocks = blocks.filter((block) => block.file === 'docs/mcp.md');
  const configuration = mcpBlocks.find((block) => kindOf(block) === 'mcp configuration');
  const recipes = mcpBlocks.filter((block) => block.marker?.kind === 'not run' && /:\/\/|Bearer /.test(block.text));

  test('docs/mcp.md has a configuration block the test connects with, and recipes beside it', () => {
    expect(configuration?.marker).toBeUndefined();
    expect(recipes.length).toBeGreaterThanOrEqual(2);
  });

  test.each(recipes.map((block) => [place(block), block] as const))('%s uses the URL and key of that tested configuration', (_, block) => {
    const server = McpConfiguration.parse(JSON.parse(configuration?.text ?? '{}')).mcpServers.prompts;
    if (server === undefined) throw new Error('the tested configuration has no server named prompts');
    const urls = block.text.match(/https?:\/\/[^\s'"`]+\/mcp[^\s'"`]*/g) ?? [];
    const bearers = block.text.match(/Bearer [^\s'"`]+/g) ?? [];
    expect(urls.length).toBeGreaterThan(0);
    expect(bearers.length).toBeGreaterThan(0);
    for (const url of urls) expect(url).toBe(server.url);
    for (const bearer of bearers) expect(bearer).toBe(server.headers?.Authorization);
  });
});

test.each([
  ['npx cdk deploy', 'cdk'],
  ['npm install --global /tmp/prompt-retrieval-cli-0.1.0.tgz', 'npm install'],
  ['npm pack ./client', 'npm pack'],
  ['pip install ./client-python', 'pip install'],
  ['npm start', 'npm start'],
])('an unmarked block that would run `%s` fails, asking for a marker, and runs nothing', async (line, what) => {
  const ran = await runShell(line, workspace);

  expect(ran.code).toBe(97);
  expect(ran.output).toContain(`doc-blocks: ${what} is never run here; mark the block <!-- not run: why -->`);
});

test('the demo key the blocks use is the one npm start prints', () => {
  expect(stack.output()).toContain(`Demo key   ${DEMO_KEY}`);
});

function expectSuccess(ran: { code: number | null; output: string }): void {
  if (ran.code !== 0) throw new Error(`exited with ${ran.code}:\n${ran.output}`);
}
