import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';
import { descendantsOf, isRunning, StackSet, type StackProcess, temporaryFolder } from './support/processes';

/**
 * `npm start` stopped the way process managers and `kill $!` stop it: one signal to the npm process alone,
 * not to its process group as Ctrl+C does. Nothing of the stack may survive it, and the ports and DATA_DIR
 * must be free for the next start.
 */

jest.setTimeout(90_000);

const stacks = new StackSet();
let folder: { path: string; remove(): Promise<void> };

beforeAll(async () => {
  folder = await temporaryFolder('npm-start-signals-e2e');
});

/** Every process found under a started npm: should one survive its test, it still must not outlive the run. */
const seen = new Set<number>();

async function childrenOf(stack: StackProcess): Promise<number[]> {
  const children = await descendantsOf(stack.pid);
  for (const pid of children) seen.add(pid);
  return children;
}

afterAll(async () => {
  await stacks.stopAll();
  for (const pid of [...seen].filter(isRunning)) process.kill(pid, 'SIGKILL');
  await folder.remove();
});

const portOf = (url: string) => new URL(url).port;

/** The same ports and DATA_DIR again: what a process manager's restart does. */
function sameSettings(stack: StackProcess, dataDir: string) {
  return {
    DATA_DIR: dataDir,
    PORT: portOf(stack.apiUrl),
    DYNAMODB_PORT: portOf(stack.storeUrl),
    PLAYGROUND_PORT: portOf(stack.playgroundUrl),
    DASHBOARD_PORT: portOf(stack.dashboardUrl),
    IDENTITY_PORT: portOf(stack.identityUrl),
    MODEL_PORT: portOf(stack.modelUrl),
  };
}

async function untilGone(pids: readonly number[]): Promise<void> {
  while (pids.some(isRunning)) await delay(100);
}

test('SIGTERM to the npm process alone stops every process under it', async () => {
  const stack = await stacks.start({ DATA_DIR: join(folder.path, 'term-children') }, { viaNpm: true });
  const children = await childrenOf(stack);
  expect(children.length).toBeGreaterThan(0);

  const { code, output } = await stack.stop('SIGTERM');

  expect(code).toBe(0);
  expect(output).toContain('Stopped.');
  expect(children.filter(isRunning)).toEqual([]);
});

test('after SIGTERM to npm, a new npm start gets the same ports and DATA_DIR', async () => {
  const dataDir = join(folder.path, 'term-restart');
  const first = await stacks.start({ DATA_DIR: dataDir }, { viaNpm: true });
  await childrenOf(first);
  await first.stop('SIGTERM');

  const again = await stacks.start(sameSettings(first, dataDir), { viaNpm: true });

  expect(again.apiUrl).toBe(first.apiUrl);
  expect(again.output()).toMatch(/accounts 0 created, 0 updated, 1 unchanged/);
  // The same demo user, with the same password, from the identity stand-in's data in DATA_DIR.
  expect(/Sign in as .+/.exec(again.output())?.[0]).toBe(/Sign in as .+/.exec(first.output())?.[0]);
  expect((await again.stop('SIGTERM')).code).toBe(0);
});

test('when npm is killed outright (SIGKILL), the stack stops by itself and frees its ports and DATA_DIR', async () => {
  const dataDir = join(folder.path, 'kill');
  const first = await stacks.start({ DATA_DIR: dataDir }, { viaNpm: true });
  const children = await childrenOf(first);

  await first.stop('SIGKILL');
  await untilGone(children);

  const again = await stacks.start(sameSettings(first, dataDir), { viaNpm: true });
  expect(again.apiUrl).toBe(first.apiUrl);
  expect((await again.stop('SIGTERM')).code).toBe(0);
});
