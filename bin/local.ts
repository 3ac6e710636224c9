/**
 * `npm start`: the service on this machine. An embedded DynamoDB-compatible store on DATA_DIR (or
 * DYNAMODB_ENDPOINT), the table, the seed (SEED_FILE), and the real Lambda handlers behind an
 * API Gateway stand-in on http://127.0.0.1:$PORT; the playground; the user pool's stand-in and the
 * dashboard's origin, with the demo user; the rollouts' due steps, applied every 15 s; and events, read every second
 * and delivered to webhooks with the deployed dispatcher and delivery code. docs/local-stack.md lists
 * the settings.
 */
import { isAbsolute, relative } from 'node:path';
import { describeSummary } from '../admin/import-seed';
import { seedCounts } from '../admin/seed-file';
import { type DashboardStack, type LocalStack, openLocalStore, serveReadApi, startDashboardStack } from '../local/local-stack';
import { loadLocalConfig } from '../local/local-config';
import { type PlaygroundServer, startPlaygroundServer } from '../local/playground-server';
import { ensureDashboardBuilt } from '../local/dashboard-build';
import { LOCAL_STEPS_INTERVAL_MS, startRolloutSteps } from '../local/rollout-steps-timer';
import { automationDependencies } from '../lambda/rollout-automation/runtime';
import { startLocalEvents } from '../local/local-events';
import { LOCAL_EVENTS_INTERVAL_MS } from '../local/event-poller';

/** How often the stack looks for its parent: fast enough that a killed npm frees the ports within a second. */
const ORPHAN_CHECK_MS = 500;

// Node 20 runs this fine; the SDK's notice about its own future Node support is not for this console.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** A function that threw: the gateway answers 502; the developer sees why on stderr. */
function reportFunctionError(functionName: string, error: unknown): void {
  process.stderr.write(`[${functionName}] the function failed: ${(error as Error)?.stack ?? String(error)}\n`);
}

async function main(): Promise<void> {
  // Before anything starts: a signal during start-up, or right after the banner, must find its handler.
  const stopping = stopOnSignals();
  const config = loadLocalConfig();
  await ensureDashboardBuilt((line) => process.stdout.write(`${line}\n`));
  const store = await openLocalStore(config);
  // The dashboard's side first (the user pool, the demo user's membership, the management API): once the
  // read API answers, everything does.
  const dashboard = await startDashboardStack(config, {
    stack: { storeEndpoint: store.endpoint, seed: store.seed },
    onFunctionError: reportFunctionError,
  }).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  // Set up before the read API listens: once it answers, the banner follows at once.
  // The deployed scheduled function's code, on a timer; the functions' environment as the stack gives it, with the local store.
  const rolloutSteps = startRolloutSteps(
    automationDependencies({ ...process.env, TABLE_NAME: config.tableName, AWS_REGION: config.region, DYNAMODB_ENDPOINT: store.endpoint }),
    { onError: (error) => reportFunctionError('rollout steps', error) },
  );
  // The table's stream and the delivery queue's stand-ins: the deployed dispatcher and attempts, in this process.
  const events = startLocalEvents(config, store.endpoint, { onError: (error) => reportFunctionError('events', error) });
  const stopTimers = () => Promise.all([rolloutSteps.stop(), events.stop()]);
  const stack = await serveReadApi(config, store, { onFunctionError: reportFunctionError }).catch(async (error: unknown) => {
    await stopTimers();
    await Promise.all([dashboard.stop(), store.close()]);
    throw error;
  });
  dashboard.dashboard.setReadApiUrl(stack.apiUrl);
  const playground = await startPlaygroundServer({ host: config.host, port: config.playgroundPort, apiUrl: stack.apiUrl }).catch(async (error: unknown) => {
    await stopTimers();
    await Promise.all([dashboard.stop(), stack.stop()]);
    throw error;
  });
  printBanner(stack, playground, dashboard, config.dataDir, config.tableName);
  // The timers first: a run under way finishes before the store it writes to closes.
  stopping.started(() =>
    stopTimers()
      .then(() => Promise.all([dashboard.stop(), playground.close(), stack.stop()]))
      .then(() => undefined),
  );
}

function printBanner(stack: LocalStack, playground: PlaygroundServer, dashboard: DashboardStack, dataDir: string, tableName: string): void {
  const lines = [
    '',
    'Prompt service, running locally',
    `  API        ${stack.apiUrl}`,
    `  Playground ${playground.url} (a browser page calling the API cross-origin)`,
    `  Dashboard  ${dashboard.dashboard.url} (${dashboard.dashboard.serving}; the management API under /api)`,
    `  Sign in as ${dashboard.demoUser.email} with password ${dashboard.demoUser.password}`,
    ...(dashboard.demoMembership?.state === 'pending'
      ? [`             (not yet an owner of the demo account: the store failed (${dashboard.demoMembership.reason}); retrying every 5 s)`]
      : []),
    `  Identity   ${dashboard.identity.endpoint} (stand-in of the user pool ${dashboard.identity.userPoolId}, users in ${dataDir}/identity)`,
    `  Store      ${stack.storeEndpoint} ${stack.embeddedStore ? `(embedded dynalite, data in ${dataDir})` : '(DYNAMODB_ENDPOINT)'}`,
    `  Table      ${tableName}${stack.tableCreated ? ' (created)' : ''}`,
    `  Rollouts   due steps applied every ${LOCAL_STEPS_INTERVAL_MS / 1000} s; a guard alarm runs deployed only (no local stand-in)`,
    `  Events     read every ${LOCAL_EVENTS_INTERVAL_MS / 1000} s and delivered to webhooks (http://127.0.0.1 and localhost allowed); cursor in ${dataDir}/events-cursor.json`,
  ];
  if (stack.seed) {
    const counts = seedCounts(stack.seed.seed);
    lines.push(
      `  Seed       ${shortPath(stack.seed.path)}: ${counts.accounts} account(s), ` +
        `${counts.prompts} prompt(s), ${counts.versions} version(s), loaded in ${stack.seed.elapsedMs} ms`,
      `             ${describeSummary(stack.seed.summary)}`,
    );
  } else {
    lines.push('  Seed       none (SEED_FILE is empty)');
  }
  const cli = `DYNAMODB_ENDPOINT=${stack.storeEndpoint} TABLE_NAME=${tableName} npm run admin --`;
  if (stack.demo) {
    lines.push(
      `  Account    ${stack.demo.accountId} (the demo account: --account ${stack.demo.accountId} in the admin CLI)`,
      `  Demo key   ${stack.demo.apiKey}`,
      '',
      'Try it:',
      `  curl -H "Authorization: Bearer ${stack.demo.apiKey}" ${stack.apiUrl}/prompts/${stack.demo.promptId}`,
    );
  }
  lines.push('', 'Admin CLI against this store, from this clone:', `  ${cli} accounts list`);
  if (stack.demo) {
    // Ready to paste: the demo account's prompts as a folder of files (docs/prompts-as-code.md).
    lines.push(`  ${cli} prompts pull --account ${stack.demo.accountId} --dir prompts/${stack.demo.accountId}`);
  }
  lines.push('', 'Requests are logged below, one JSON line each. Ctrl+C stops.', '');
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Relative to where the developer stands, when it is below it. */
function shortPath(path: string): string {
  const shorter = relative(process.cwd(), path);
  return shorter === '' || shorter.startsWith('..') || isAbsolute(shorter) ? path : shorter;
}

/**
 * Ctrl+C signals the whole process group, but a process manager or `kill` signals npm alone. The start
 * script execs node in place of npm's shell, so npm's forwarded SIGTERM lands here; and should npm itself
 * die without forwarding anything (SIGKILL), the stack notices it lost its parent and stops all the same,
 * never left holding the ports and DATA_DIR. A stop asked for while the stack is still starting happens
 * as soon as it has started.
 */
function stopOnSignals(): { started(stop: () => Promise<void>): void } {
  let reason: string | undefined;
  let stopStack: (() => Promise<void>) | undefined;
  const shutDown = (stop: () => Promise<void>) =>
    stop().then(
      () => {
        process.stdout.write('Stopped.\n');
        process.exit(0);
      },
      (error: unknown) => {
        process.stderr.write(`npm start: stopping failed: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  const stop = (why: string) => {
    if (reason !== undefined) {
      process.stderr.write(`${why} again: exiting without waiting\n`);
      process.exit(1);
    }
    reason = why;
    process.stdout.write(`\n${why}: stopping...\n`);
    if (stopStack) void shutDown(stopStack);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => stop(signal));
  if (process.env.npm_lifecycle_event !== undefined) stopWhenOrphaned(() => stop('npm exited'));
  return {
    started(stopNow) {
      stopStack = stopNow;
      if (reason !== undefined) void shutDown(stopNow);
    },
  };
}

/** Node has no parent-death signal; a parent that is gone shows as a changed parent pid. */
function stopWhenOrphaned(stop: () => void): void {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    stop();
  }, ORPHAN_CHECK_MS);
  watch.unref();
}

main().catch((error: unknown) => {
  process.stderr.write(`npm start: ${(error as Error)?.message ?? String(error)}\n`);
  process.exit(1);
});
