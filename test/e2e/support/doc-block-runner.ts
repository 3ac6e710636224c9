import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { childOutputCapture } from '../../support/log-capture';
import type { StackProcess } from './processes';

/**
 * Runs a document's block as a reader would, against the stack the test started: in a folder that looks
 * like the clone (every top-level entry linked, so what a block writes lands there and not in the
 * repository), with the variables the README has the reader export, the stack's real URLs where the
 * documents name `npm start`'s default ports, and nothing fetched from a registry.
 */

export const DEMO_KEY = 'prs_demo_local_development_only';
const BLOCK_TIMEOUT_MS = 45_000;
const CLIENT_PACKAGE = '@prompt-retrieval/client';

export interface Ran {
  readonly code: number | null;
  readonly output: string;
}

export interface Workspace {
  readonly path: string;
  readonly env: NodeJS.ProcessEnv;
  remove(): Promise<void>;
}

/** `npm start`'s default address of each server, as the documents write it, and the stack's own. */
function defaultAddresses(stack: StackProcess): [string, string][] {
  const pairs: [number, string][] = [
    [3000, stack.apiUrl],
    [3001, stack.playgroundUrl],
    [3002, stack.dashboardUrl],
    [3003, stack.identityUrl],
    [3004, stack.modelUrl],
    [8000, stack.storeUrl],
  ];
  return pairs.flatMap(([port, url]) => [
    [`http://127.0.0.1:${port}`, url],
    [`http://localhost:${port}`, url],
  ]);
}

/** The block as it runs here: the stack's addresses for the default ones, and the client from its source. */
export function substitute(text: string, stack: StackProcess, root: string): string {
  let result = text;
  for (const [documented, actual] of defaultAddresses(stack)) result = result.replaceAll(documented, actual);
  // The client is installed from a packed file in an app (client/README.md); here its source stands for it.
  return result.replaceAll(`'${CLIENT_PACKAGE}'`, `'${join(root, 'client/src/index.ts')}'`);
}

export async function createWorkspace(root: string, stack: StackProcess, dataDir: string): Promise<Workspace> {
  const path = await mkdtemp(join(tmpdir(), 'doc-blocks-'));
  const clone = join(path, 'clone');
  const shims = join(path, 'bin');
  await mkdir(clone);
  await mkdir(shims);
  for (const entry of readdirSync(root)) {
    if (entry === '.git' || entry === '.data') continue;
    await symlink(join(root, entry), join(clone, entry));
  }
  // `.data` is the stack's data folder, as it is the clone's for npm start: what a block reads there (the webhook
  // sealing key) is the running stack's, and the repository's own .data is never touched.
  await symlink(dataDir, join(clone, '.data'));
  await writeShims(root, shims);
  const env: NodeJS.ProcessEnv = {
    PATH: `${shims}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME,
    LANG: process.env.LANG ?? 'C.UTF-8',
    // What the README has the reader export before the examples.
    PROMPTS_URL: stack.apiUrl,
    PROMPTS_API_KEY: DEMO_KEY,
    PYTHONPATH: [join(root, 'client-python/src'), join(__dirname, 'doc-blocks-python')].join(':'),
    PYTHONDONTWRITEBYTECODE: '1',
    // Nothing a block runs may reach a registry: npm and npx work from the lockfile's install alone.
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    // No AWS credentials reach a block: what it would do to AWS fails instead.
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_CONFIG_FILE: join(path, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(path, 'no-aws-credentials'),
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  return { path: clone, env, remove: () => rm(path, { recursive: true, force: true }) };
}

/**
 * Commands a block may name that are not the machine's own: each bin of the repository's packages (as
 * installing them provides), curl failing on an HTTP error as a reader would notice one, and npx never
 * installing anything. What would change more than the demo (AWS, this machine's packages, a second stack)
 * is refused, saying the block needs a marker: a block that deploys, installs or packs must say it is not run.
 */
async function writeShims(root: string, shims: string): Promise<void> {
  const script = async (name: string, lines: readonly string[]) => {
    await writeFile(join(shims, name), `#!/bin/sh\n${lines.join('\n')}\n`);
    await chmod(join(shims, name), 0o755);
  };
  const refuse = (what: string) => `echo "doc-blocks: ${what} is never run here; mark the block <!-- not run: why -->" >&2; exit 97`;
  const bins = packageBins(root);
  for (const [name, file] of bins) await script(name, [`exec "${process.execPath}" --import tsx "${file}" "$@"`]);
  for (const name of ['aws', 'cdk', 'sam', 'docker']) await script(name, [refuse(name)]);
  await script('curl', ['exec /usr/bin/curl --fail-with-body --silent --show-error "$@"']);
  const npm = realCommand('npm', 'npm-cli.js');
  await script('npm', [`case "$1" in ci|install|i|add|uninstall|update|pack|publish|link|start|test|t) ${refuse('npm $1')};; esac`, `exec ${npm} "$@"`]);
  for (const pip of ['pip', 'pip3']) {
    await script(pip, [`case "$1" in install|uninstall|wheel|download) ${refuse(`${pip} $1`)};; esac`, `exec "${onPath(pip) ?? pip}" "$@"`]);
  }
  // `npx <a command above>` runs that command; anything else goes to npx, which may not install (--no).
  await script('npx', [
    'while [ "$1" = "--no" ] || [ "$1" = "--yes=false" ] || [ "$1" = "--" ]; do shift; done',
    `[ -x "${shims}/$1" ] && [ "$1" != npx ] && { name="$1"; shift; exec "${shims}/$name" "$@"; }`,
    `exec ${realCommand('npx', 'npx-cli.js')} --no "$@"`,
  ]);
}

/** npm's own commands as the npm running this test has them (npm_execpath), else the first on PATH. */
function realCommand(name: 'npm' | 'npx', cli: string): string {
  const npmCli = process.env.npm_execpath;
  if (npmCli?.endsWith('.js')) return `"${process.execPath}" "${join(dirname(npmCli), cli)}"`;
  return `"${onPath(name) ?? name}"`;
}

function onPath(name: string): string | undefined {
  return (process.env.PATH ?? '')
    .split(':')
    .map((dir) => join(dir, name))
    .find((path) => existsSync(path));
}

/** Each bin of the root and client packages, as the source file it is built from. */
function packageBins(root: string): [string, string][] {
  return ['package.json', 'client/package.json', 'client-python/package.json']
    .filter((manifest) => existsSync(join(root, manifest)))
    .flatMap((manifest) => {
      const bin: unknown = JSON.parse(readFileSync(join(root, manifest), 'utf8')).bin;
      if (typeof bin !== 'object' || bin === null) return [];
      return Object.entries(bin).flatMap(([name, file]): [string, string][] => {
        if (typeof file !== 'string') return [];
        const built = join(root, dirname(manifest), file);
        // The client builds dist/esm/ and dist/cjs/ from one src/: dist/esm/bin/prompt-types.js is src/bin/prompt-types.ts.
        const source = built.replace(/\/dist\/(?:(?:esm|cjs)\/)?/, '/src/').replace(/\.js$/, '.ts');
        return [[name, existsSync(built) ? built : source]];
      });
    });
}

export function runShell(text: string, workspace: Workspace): Promise<Ran> {
  return run('bash', ['-e', '-o', 'pipefail', '-c', text], workspace);
}

export async function runTypeScript(text: string, workspace: Workspace): Promise<Ran> {
  // .mts: an ES module, so a block may await at its top level as the examples do.
  const file = join(workspace.path, `doc-block-${process.hrtime.bigint()}.mts`);
  await writeFile(file, text);
  try {
    return await run(process.execPath, ['--import', 'tsx', file], workspace);
  } finally {
    await rm(file, { force: true });
  }
}

export function runPython(text: string, workspace: Workspace): Promise<Ran> {
  return run('python3', ['-c', text], workspace);
}

export const McpConfiguration = z.object({
  mcpServers: z.record(z.string(), z.object({ type: z.literal('http'), url: z.string().url(), headers: z.record(z.string(), z.string()).optional() })),
});

/** An MCP client's configuration, used as such: each server in it connected with the official SDK, its prompts listed. */
export async function connectWithConfiguration(text: string): Promise<string[]> {
  const { mcpServers } = McpConfiguration.parse(JSON.parse(text));
  const listed: string[] = [];
  for (const { url, headers } of Object.values(mcpServers)) {
    const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
    const client = new Client({ name: 'doc-blocks-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { prompts } = await client.listPrompts();
      listed.push(...prompts.map((prompt) => prompt.name));
    } finally {
      await client.close();
    }
  }
  return listed;
}

function run(command: string, args: readonly string[], workspace: Workspace): Promise<Ran> {
  const child = spawn(command, args, { cwd: workspace.path, env: workspace.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const capture = childOutputCapture();
  const take = (chunk: Buffer) => {
    output += chunk.toString();
    capture(chunk);
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      // The block's whole process group: a shell's children (npm, node) go with it.
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      output += `\n[doc-blocks: no end within ${BLOCK_TIMEOUT_MS / 1000} s; stopped]`;
    }, BLOCK_TIMEOUT_MS);
    child.once('error', fail);
    child.once('close', (code) => {
      clearTimeout(timer);
      done({ code, output });
    });
  });
}
