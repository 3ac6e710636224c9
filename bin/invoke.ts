/**
 * `npm run invoke -- <getPrompt|listPrompts|fallback> <event.json>`: one Lambda handler, one event,
 * against the local store, as `sam local invoke` would. The result goes to stdout, request logs to stderr.
 * The store is the one `npm start` uses: the running stack's if DATA_DIR is in use, else DATA_DIR opened
 * (and seeded) here; DYNAMODB_ENDPOINT overrides both.
 */
import { readFile } from 'node:fs/promises';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { JsonSyntaxError, parseJsonText } from '../admin/json-text';
import { DataDirInUseError, recordedStoreEndpoint } from '../local/embedded-store';
import { lambdaContext } from '../local/lambda-context';
import { createLocalFunctions, FUNCTION_NAMES, isFunctionName } from '../local/lambda-functions';
import { type LocalConfig, loadLocalConfig } from '../local/local-config';
import { type LocalStore, openLocalStore } from '../local/local-stack';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const USAGE = `Usage: npm run invoke -- <${FUNCTION_NAMES.join('|')}> <event.json>   (sample events in sample-events/)`;

class InvokeError extends Error {}

async function main(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const [functionName, eventPath, ...extra] = argv;
  if (functionName === undefined || eventPath === undefined || extra.length > 0) throw new InvokeError(USAGE);
  if (!isFunctionName(functionName)) {
    throw new InvokeError(`unknown function "${functionName}": one of ${FUNCTION_NAMES.join(', ')}`);
  }
  const event = await readEvent(eventPath);
  const config = loadLocalConfig();
  const store = await openStore(config);
  try {
    const functions = createLocalFunctions(config, store.endpoint);
    // The function's log lines go to stderr, as to a log stream: stdout is for the result alone.
    const result = await withStdoutOnStderr(() => functions[functionName].handler(event, lambdaContext(functionName, `invoke-${Date.now()}`)));
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

async function readEvent(path: string): Promise<APIGatewayProxyEvent> {
  const text = await readFile(path, 'utf8').catch(() => {
    throw new InvokeError(`${path}: cannot read the event file`);
  });
  let event: unknown;
  try {
    event = parseJsonText(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw new InvokeError(`${path}: ${error.message}`);
    throw error;
  }
  const looksLikeRest =
    typeof event === 'object' &&
    event !== null &&
    typeof (event as { httpMethod?: unknown }).httpMethod === 'string' &&
    typeof (event as { path?: unknown }).path === 'string' &&
    typeof (event as { requestContext?: unknown }).requestContext === 'object';
  if (!looksLikeRest) {
    throw new InvokeError(`${path}: not a REST API (payload 1.0) proxy event (httpMethod, path, requestContext)`);
  }
  return event as APIGatewayProxyEvent;
}

async function withStdoutOnStderr<T>(run: () => Promise<T>): Promise<T> {
  const write = process.stdout.write;
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  try {
    return await run();
  } finally {
    process.stdout.write = write;
  }
}

/**
 * The running stack's store when it holds DATA_DIR, at the endpoint it recorded there; otherwise DATA_DIR
 * (or DYNAMODB_ENDPOINT), as `npm start` opens it.
 */
async function openStore(config: LocalConfig): Promise<LocalStore> {
  try {
    return await openLocalStore({ ...config, dynamoPort: 0 });
  } catch (error) {
    if (!(error instanceof DataDirInUseError)) throw error;
    const endpoint = await recordedStoreEndpoint(config.dataDir);
    if (endpoint === undefined) {
      throw new Error(
        `DATA_DIR ${config.dataDir} is held by another process that recorded no store endpoint there: stop it, or set DATA_DIR or DYNAMODB_ENDPOINT`,
      );
    }
    process.stderr.write(`DATA_DIR is held by the running local stack: using its store at ${endpoint}\n`);
    return openLocalStore({ ...config, storeEndpoint: endpoint, seedPath: undefined });
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`invoke: ${(error as Error)?.message ?? String(error)}\n`);
    process.exitCode = error instanceof InvokeError ? 2 : 1;
  },
);
