import { join } from 'node:path';
import { runInvoke, StackSet, type StackProcess, temporaryFolder } from './support/processes';

/** `npm run invoke` beside a running `npm start`: one handler, one event, the running stack's store. */

const stacks = new StackSet();
let folder: { path: string; remove(): Promise<void> };
let stack: StackProcess;
let dataDir: string;

beforeAll(async () => {
  folder = await temporaryFolder('invoke-e2e');
  dataDir = join(folder.path, 'data');
  // DYNAMODB_PORT 0: the store listens wherever the system puts it, never on the default 8000.
  stack = await stacks.start({ DATA_DIR: dataDir, DYNAMODB_PORT: '0' });
}, 60_000);

afterAll(async () => {
  await stacks.stopAll();
  await folder.remove();
});

it("uses the running stack's store at the endpoint the stack recorded, not the default port", async () => {
  const result = await runInvoke(['getPrompt', 'sample-events/get-prompt.json'], { DATA_DIR: dataDir });

  expect(result.stderr).toContain(`DATA_DIR is held by the running local stack: using its store at ${stack.storeUrl}\n`);
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout)).toMatchObject({ statusCode: 200 });
}, 60_000);

it('counts the invoked request in the running stack, like a request over HTTP', async () => {
  const before = await runInvoke(['getPrompt', 'sample-events/get-prompt.json'], { DATA_DIR: dataDir });
  const after = await runInvoke(['getPrompt', 'sample-events/get-prompt.json'], { DATA_DIR: dataDir });

  const remaining = (result: { stdout: string }) => Number((JSON.parse(result.stdout) as { headers: Record<string, string> }).headers['X-RateLimit-Remaining']);
  expect(remaining(before)).toBeGreaterThan(0);
  expect(remaining(after)).toBe(remaining(before) - 1);
}, 60_000);
