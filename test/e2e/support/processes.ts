import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { childOutputCapture } from '../../support/log-capture';

/** The repository root: the child processes run there, as a developer's shell would. */
export const REPO_ROOT = resolve(__dirname, '..', '..', '..');

/** Each child runs our TypeScript through tsx, exactly as the npm scripts do, without npm's own start-up. */
const TSX = ['--import', 'tsx'];

const QUIET_ENV = {
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  // Never reach for a developer's real AWS setup from a test.
  AWS_ACCESS_KEY_ID: undefined,
  AWS_SECRET_ACCESS_KEY: undefined,
  AWS_PROFILE: undefined,
  AWS_EC2_METADATA_DISABLED: 'true',
};

type Env = Record<string, string | undefined>;

function childEnv(env: Env): NodeJS.ProcessEnv {
  const merged: Env = { ...process.env, ...QUIET_ENV, ...env };
  for (const name of Object.keys(merged)) if (merged[name] === undefined) delete merged[name];
  return merged as NodeJS.ProcessEnv;
}

export async function temporaryFolder(prefix: string): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), `${prefix}-`));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

export interface StackProcess {
  /** The process the test started: node running bin/local.ts, or npm when started through `npm start`. */
  readonly pid: number;
  readonly apiUrl: string;
  readonly storeUrl: string;
  readonly playgroundUrl: string;
  readonly dashboardUrl: string;
  readonly identityUrl: string;
  /** The local stand-in model: AWS_ENDPOINT_URL_BEDROCK_RUNTIME. */
  readonly modelUrl: string;
  /** Everything the process printed so far, stdout and stderr. */
  output(): string;
  /** Sends the signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; output: string }>;
}

export interface Exited {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const START_TIMEOUT_MS = 60_000;

/** npm itself, as the developer's shell would run it: the npm that runs this test run, else the one on PATH. */
function npmCommand(): [string, string[]] {
  const npmCli = process.env.npm_execpath;
  return npmCli?.endsWith('.js') ? [process.execPath, [npmCli]] : ['npm', []];
}

/**
 * `npm start` as a child process (PORT, DYNAMODB_PORT, PLAYGROUND_PORT, DASHBOARD_PORT, IDENTITY_PORT and MODEL_PORT 0 unless given),
 * resolved once it prints its banner; rejected with its output if it exits first. By default bin/local.ts
 * runs without npm's start-up; `viaNpm` runs the real `npm start`, for what depends on npm itself.
 */
export function startStack(env: Env, options: { viaNpm?: boolean } = {}): Promise<StackProcess> {
  const [command, args] = options.viaNpm ? npmCommand() : [process.execPath, [...TSX]];
  const child = spawn(command, [...args, ...(options.viaNpm ? ['start'] : ['bin/local.ts'])], {
    cwd: REPO_ROOT,
    env: childEnv({ PORT: '0', DYNAMODB_PORT: '0', PLAYGROUND_PORT: '0', DASHBOARD_PORT: '0', IDENTITY_PORT: '0', MODEL_PORT: '0', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stdout.on('data', childOutputCapture());
  child.stderr.on('data', childOutputCapture());

  return new Promise((resolveStart, rejectStart) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rejectStart(new Error(`the local stack did not start within ${START_TIMEOUT_MS} ms:\n${output}`));
    }, START_TIMEOUT_MS);
    const onData = () => {
      const api = /^\s*API\s+(http:\/\/\S+)/m.exec(output)?.[1];
      const store = /^\s*Store\s+(http:\/\/\S+)/m.exec(output)?.[1];
      const playground = /^\s*Playground\s+(http:\/\/\S+)/m.exec(output)?.[1];
      const dashboard = /^\s*Dashboard\s+(http:\/\/\S+)/m.exec(output)?.[1];
      const identity = /^\s*Identity\s+(http:\/\/\S+)/m.exec(output)?.[1];
      const model = /^\s*Model\s+(http:\/\/\S+)/m.exec(output)?.[1];
      if (!api || !store || !playground || !dashboard || !identity || !model || !output.includes('Ctrl+C stops') || child.pid === undefined) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      resolveStart({
        pid: child.pid,
        apiUrl: api,
        storeUrl: store,
        playgroundUrl: playground,
        dashboardUrl: dashboard,
        identityUrl: identity,
        modelUrl: model,
        output: () => output,
        stop: async (signal = 'SIGTERM') => {
          if (child.exitCode === null) child.kill(signal);
          return { code: await exited, output };
        },
      });
    };
    child.stdout.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      rejectStart(new StartFailed(code, output));
    });
  });
}

export class StartFailed extends Error {
  constructor(
    readonly code: number | null,
    readonly output: string,
  ) {
    super(`the local stack exited with ${code} before it was ready:\n${output}`);
  }
}

/** Runs `npm start` expecting it to fail, and returns how. */
export async function failedStart(env: Env): Promise<StartFailed> {
  try {
    const stack = await startStack(env);
    await stack.stop();
  } catch (error) {
    if (error instanceof StartFailed) return error;
    throw error;
  }
  throw new Error('the local stack started, but was expected to fail');
}

/** The admin CLI as a child process, as `npm run admin -- ...args` runs it. */
export function runAdmin(args: readonly string[], env: Env): Promise<Exited> {
  return run(child(['bin/admin.ts', ...args], env));
}

/** npm itself with these arguments (`run admin ...`), as an operator's shell runs it. */
export function runNpm(args: readonly string[], env: Env): Promise<Exited> {
  const [command, prefix] = npmCommand();
  return run(spawn(command, [...prefix, ...args], { cwd: REPO_ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** npx beside that npm (`prompts-admin ...`): the form docs/cli.md documents for the admin CLI. */
export function runNpx(args: readonly string[], env: Env): Promise<Exited> {
  const npmCli = process.env.npm_execpath;
  const [command, prefix]: [string, string[]] = npmCli?.endsWith('npm-cli.js') ? [process.execPath, [join(dirname(npmCli), 'npx-cli.js')]] : ['npx', []];
  return run(spawn(command, [...prefix, ...args], { cwd: REPO_ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** `npm run invoke -- ...args`, the same way. */
export function runInvoke(args: readonly string[], env: Env): Promise<Exited> {
  return run(child(['bin/invoke.ts', ...args], env));
}

function child(args: readonly string[], env: Env): ChildProcess {
  return spawn(process.execPath, [...TSX, ...args], {
    cwd: REPO_ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function run(process: ChildProcess): Promise<Exited> {
  let stdout = '';
  let stderr = '';
  process.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  process.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done, fail) => {
    process.once('error', fail);
    process.once('close', (code) => done({ code, stdout, stderr }));
  });
}

/** Stops every stack a test file started, whatever happened to the tests. */
export class StackSet {
  private readonly stacks: StackProcess[] = [];

  async start(env: Env, options: { viaNpm?: boolean } = {}): Promise<StackProcess> {
    const stack = await startStack(env, options);
    this.stacks.push(stack);
    return stack;
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.stacks.splice(0).map((stack) => stack.stop()));
  }
}

/** Every process below `pid`: what must not outlive the process a test stops. */
export async function descendantsOf(pid: number): Promise<number[]> {
  const { stdout } = await promisify(execFile)('ps', ['-A', '-o', 'pid=,ppid=']);
  const children = new Map<number, number[]>();
  for (const line of stdout.trim().split('\n')) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    if (child === undefined || parent === undefined) continue;
    children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const found: number[] = [];
  const pending = [pid];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    for (const child of children.get(next) ?? []) {
      found.push(child);
      pending.push(child);
    }
  }
  return found;
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
