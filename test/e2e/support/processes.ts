import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
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
  readonly apiUrl: string;
  readonly storeUrl: string;
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

/**
 * `npm start` as a child process (PORT, DYNAMODB_PORT and PLAYGROUND_PORT 0 unless given),
 * resolved once it prints its banner; rejected with its output if it exits first.
 */
export function startStack(env: Env): Promise<StackProcess> {
  const child = spawn(process.execPath, [...TSX, 'bin/local.ts'], {
    cwd: REPO_ROOT,
    env: childEnv({ PORT: '0', DYNAMODB_PORT: '0', PLAYGROUND_PORT: '0', ...env }),
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
      if (!api || !store || !output.includes('Ctrl+C stops')) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      resolveStart({
        apiUrl: api,
        storeUrl: store,
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

  async start(env: Env): Promise<StackProcess> {
    const stack = await startStack(env);
    this.stacks.push(stack);
    return stack;
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.stacks.splice(0).map((stack) => stack.stop()));
  }
}
