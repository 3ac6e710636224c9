import type { RequestListener, Server } from 'node:http';
import { join } from 'node:path';
import { importSeed } from '../admin/import-seed';
import { type Seed, SeedError } from '../admin/seed-file';
import { createDocumentClient } from '../lambda/table/client';
import { Operations } from '../lambda/operations';
import { findMember } from '../lambda/features/members/members';
import type { ManagementDependencies } from '../lambda/management-api/management-handler';
import { managementDependencies } from '../lambda/management-api/runtime';
import { AccountImporter } from '../admin/table/account-importer';
import { ConflictError, StoreUnavailableError } from '../lambda/table/errors';
import type { ImportSummary } from '../admin/table/import-plan';
import { ensureTable } from '../admin/table/ensure-table';
import { isStoreUnavailable } from '../lambda/table/calls';
import type { RequestObserver } from '../lambda/read-api/middleware/request-telemetry';
import { type DashboardServer, startDashboardServer } from './dashboard-server';
import { startEmbeddedStore } from './embedded-store';
import { type DemoUser, ensureDemoUser } from './identity/demo-user';
import { type IdentityStandIn, startIdentityStandIn } from './identity/stand-in';
import { createTokenVerifier, type VerifyToken } from './identity/verify-token';
import { createHttpGateway } from './http-gateway';
import { createManagementGateway } from './management-gateway';
import { createLocalFunctions, gatewayRoutes } from './lambda-functions';
import { LOCAL_CONCURRENCY, LOCAL_STORE_SOCKETS } from './invocation-slots';
import { listenOnLoopback } from './listen';
import { type ModelStandIn, startModelStandIn } from './model-stand-in/server';
import { WEBHOOK_KEY_FILE_NAME } from '../lambda/webhook-delivery/sealer-from-config';
import { configuredPorts, type LocalConfig } from './local-config';

export interface SeedReport {
  readonly path: string;
  readonly seed: Seed;
  readonly summary: ImportSummary;
  readonly elapsedMs: number;
}

export interface DemoRequest {
  /** Plaintext, from the local seed file: the one place a key is ever written down. */
  readonly apiKey: string;
  readonly promptId: string;
  /** The key's account: the one every `prompts` command of the CLI is then pointed at. */
  readonly accountId: string;
}

export interface LocalStack {
  readonly apiUrl: string;
  readonly storeEndpoint: string;
  /** True when this process runs the store (dynalite on DATA_DIR), false for DYNAMODB_ENDPOINT. */
  readonly embeddedStore: boolean;
  readonly tableCreated: boolean;
  readonly seed: SeedReport | undefined;
  readonly demo: DemoRequest | undefined;
  stop(): Promise<void>;
}

export interface LocalStackOptions {
  /** Sees each request's log record as data; the log lines themselves go to stdout, as a function's do. */
  readonly log?: RequestObserver;
  readonly onFunctionError: (functionName: string, error: unknown) => void;
}

/** How long open requests get to finish when the stack stops. */
const DRAIN_MS = 3_000;

export interface LocalStore {
  readonly endpoint: string;
  /** True when this process runs the store (dynalite on DATA_DIR), false for DYNAMODB_ENDPOINT. */
  readonly embedded: boolean;
  readonly tableCreated: boolean;
  readonly seed: SeedReport | undefined;
  close(): Promise<void>;
}

/**
 * The store as `npm start` and `npm run invoke` use it: embedded on DATA_DIR (or DYNAMODB_ENDPOINT),
 * with the table created if missing and SEED_FILE loaded.
 */
export async function openLocalStore(config: LocalConfig): Promise<LocalStore> {
  const store = config.storeEndpoint
    ? { endpoint: config.storeEndpoint, close: async () => undefined }
    : await startEmbeddedStore({ dataDir: config.dataDir, port: config.dynamoPort, reservedPorts: configuredPorts(config) });
  const client = createDocumentClient({ region: config.region, endpoint: store.endpoint });
  const close = async () => {
    client.destroy();
    await store.close();
  };
  try {
    const tableCreated = (await reachable(store.endpoint, () => ensureTable(client, config.tableName))) === 'created';
    const seed = config.seedPath ? await loadSeed(new AccountImporter(client, config.tableName), config.seedPath) : undefined;
    return { endpoint: store.endpoint, embedded: !config.storeEndpoint, tableCreated, seed, close };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

/**
 * The whole service on this machine: the store, and the API Gateway stand-in serving the real
 * Lambda handlers on http://127.0.0.1:$PORT.
 */
export async function startLocalStack(config: LocalConfig, options: LocalStackOptions): Promise<LocalStack> {
  const store = await openLocalStore(config);
  try {
    return await serveReadApi(config, store, options);
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
}

/** The read API's gateway over an open store; stopping it closes the store too. */
export async function serveReadApi(config: LocalConfig, store: LocalStore, options: LocalStackOptions): Promise<LocalStack> {
  const functions = createLocalFunctions(config, store.endpoint, {
    ...(options.log ? { observeRequests: options.log } : {}),
    maxSockets: LOCAL_STORE_SOCKETS,
  });
  const gateway = createHttpGateway({
    routes: gatewayRoutes(functions),
    onFunctionError: options.onFunctionError,
    concurrency: LOCAL_CONCURRENCY,
  });
  const port = await listenOnLoopback(gateway, config.port, 'PORT', { host: config.host, reserved: configuredPorts(config) });
  return {
    apiUrl: `http://${urlHost(config.host)}:${port}`,
    storeEndpoint: store.endpoint,
    embeddedStore: store.embedded,
    tableCreated: store.tableCreated,
    seed: store.seed,
    demo: store.seed ? demoRequestOf(store.seed.seed) : undefined,
    stop: async () => {
      await closeGateway(gateway);
      await store.close();
    },
  };
}

async function loadSeed(admin: AccountImporter, path: string): Promise<SeedReport> {
  const started = performance.now();
  try {
    // The seed creates what is missing and leaves the rest: it never undoes what an operator did since.
    const { seed, summary } = await importSeed(admin, path, { mode: 'create-missing' });
    return { path, seed, summary, elapsedMs: Math.round(performance.now() - started) };
  } catch (error) {
    // Name the setting, so the developer knows which file to fix or which variable to change.
    if (error instanceof SeedError) throw new SeedError(`SEED_FILE ${error.message}`, { cause: error });
    if (error instanceof ConflictError) {
      throw new ConflictError(`SEED_FILE ${path} refused, nothing written: ${error.message}`, error.conflicts);
    }
    throw error;
  }
}

/**
 * The local stand-in model on MODEL_PORT: what the AWS SDK's Bedrock Runtime client is pointed at locally
 * (AWS_ENDPOINT_URL_BEDROCK_RUNTIME), answering every model id by the rule of docs/runs.md.
 */
export function startLocalModel(config: LocalConfig): Promise<ModelStandIn> {
  return startModelStandIn({ port: config.modelPort, reservedPorts: configuredPorts(config) });
}

/** How `npm start` waits for the store before it starts without the demo user's membership. */
const MEMBERSHIP_ATTEMPTS_AT_START = 3;
const MEMBERSHIP_RETRY_MS = [250, 1_000] as const;
/** Then it keeps trying in the background, this often, until the store answers or the stack stops. */
const MEMBERSHIP_BACKGROUND_RETRY_MS = 5_000;

/** Whether the demo user owns the demo account yet; `pending` while a store fault keeps it from being made. */
export type DemoMembership = { readonly state: 'ready' } | { readonly state: 'pending'; readonly reason: string; stop(): void };

/**
 * The demo user owns the seed's first account, added as the CLI adds people (and so in its audit log) the
 * first time; a membership that exists, whatever its role now, is left as someone made it. A store that fails
 * meanwhile does not stop `npm start`: the attempt is made again a few times, and then in the background,
 * while the rest of the stack serves (the person is told, and told again once it is done).
 */
async function ensureDemoMembership(deps: ManagementDependencies, accountId: string, user: DemoUser, report: (line: string) => void): Promise<DemoMembership> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= MEMBERSHIP_ATTEMPTS_AT_START; attempt++) {
    try {
      await addDemoMember(deps, accountId, user);
      return { state: 'ready' };
    } catch (error) {
      if (!isStoreFault(error)) throw error;
      lastError = error;
      const wait = MEMBERSHIP_RETRY_MS[attempt - 1];
      if (wait !== undefined) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
  const reason = (lastError as Error)?.message ?? String(lastError);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const retry = () => {
    timer = setTimeout(() => {
      addDemoMember(deps, accountId, user).then(
        () => {
          if (!stopped) report(`The demo user ${user.email} now owns account ${accountId}.`);
        },
        (error: unknown) => {
          if (stopped) return;
          if (isStoreFault(error)) retry();
          else report(`The demo user could not be made owner of account ${accountId}: ${(error as Error)?.message ?? String(error)}`);
        },
      );
    }, MEMBERSHIP_BACKGROUND_RETRY_MS);
    timer.unref();
  };
  retry();
  return {
    state: 'pending',
    reason,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

async function addDemoMember({ table, directory }: ManagementDependencies, accountId: string, user: DemoUser): Promise<void> {
  if (await findMember(table, accountId, user.userId)) return;
  const operations = new Operations({ table, directory, actor: { type: 'cli', operator: 'npm start (demo user)' } });
  await operations.members.add(accountId, { email: user.email, role: 'owner' }).catch((error: unknown) => {
    // Another stack on the same store added it meanwhile.
    if (!(error instanceof ConflictError)) throw error;
  });
}

const isStoreFault = (error: unknown): boolean => error instanceof StoreUnavailableError || isStoreUnavailable(error);

/** The first usable key of the seed, and a prompt its account can read. */
function demoRequestOf(seed: Seed): DemoRequest | undefined {
  for (const account of seed.accounts) {
    const key = account.keys.find((candidate) => candidate.revoked !== true);
    const prompt = account.prompts.find((candidate) => candidate.deleted !== true && candidate.versions.some((version) => version.published));
    if (key && prompt) return { apiKey: key.apiKey, promptId: prompt.promptId, accountId: account.accountId };
  }
  return undefined;
}

async function reachable<T>(endpoint: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isStoreUnavailable(error) || error instanceof StoreUnavailableError) {
      throw new StoreUnavailableError(`cannot reach the store at ${endpoint}: is it running?`, { cause: error });
    }
    throw error;
  }
}

/** How a listening address is written in a URL: IPv6 in brackets. */
export const urlHost = (host: string): string => (host.includes(':') ? `[${host}]` : host);

async function closeGateway(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const drain = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
  await closed;
  clearTimeout(drain);
}

export interface DashboardStack {
  /** The dashboard's origin: its page, and the management API under /api. */
  readonly dashboard: DashboardServer;
  readonly identity: IdentityStandIn;
  readonly demoUser: DemoUser;
  /** Checks an ID token as the deployed Cognito authorizer does: what the management API's gateway calls. */
  readonly verifyToken: VerifyToken;
  /** Whether the demo user owns the demo account yet (absent without a store or a seed). */
  readonly demoMembership: DemoMembership | undefined;
  stop(): Promise<void>;
}

export interface DashboardStackOptions {
  /** The store: the management API reads and writes it; without it /api/* answers 404. */
  readonly stack?: { readonly storeEndpoint: string; readonly seed: SeedReport | undefined };
  /** The local stand-in model's address: the run function's `local` models call it (AWS_ENDPOINT_URL_BEDROCK_RUNTIME). */
  readonly modelEndpoint?: string;
  readonly onFunctionError?: (functionName: string, error: unknown) => void;
  /** Where news that comes after start-up goes (the demo user's membership made in the background). */
  readonly report?: (line: string) => void;
}

/**
 * The dashboard side of `npm start`: the user pool's stand-in (users in DATA_DIR/identity), the demo
 * user, and the dashboard's origin, whose URL becomes the app client's callback as the deployed
 * pool's callback is the CloudFront URL.
 */
export async function startDashboardStack(config: LocalConfig, options: DashboardStackOptions = {}): Promise<DashboardStack> {
  const reservedPorts = configuredPorts(config);
  const identity = await startIdentityStandIn({ dataDir: config.dataDir, port: config.identityPort, reservedPorts });
  try {
    const demoUser = await ensureDemoUser({ endpoint: identity.endpoint, userPoolId: identity.userPoolId, dataDir: config.dataDir });
    const verifyToken = createTokenVerifier(identity);
    let api: RequestListener | undefined;
    let demoMembership: DemoMembership | undefined;
    if (options.stack) {
      // The functions' environment as the stack gives it, with the local store and the stand-in as endpoints.
      const environment = {
        TABLE_NAME: config.tableName,
        AWS_REGION: config.region,
        DYNAMODB_ENDPOINT: options.stack.storeEndpoint,
        USER_POOL_ID: identity.userPoolId,
        COGNITO_ENDPOINT: identity.endpoint,
        // Webhooks to this machine allowed; their secrets sealed by a key kept with the local data (created 0600).
        WEBHOOK_DESTINATIONS: 'local',
        WEBHOOK_LOCAL_KEY_FILE: join(config.dataDir, WEBHOOK_KEY_FILE_NAME),
        // The run function's models: the stand-in's catalog, unless the developer's MODELS names real ones.
        ...(options.modelEndpoint === undefined ? {} : { AWS_ENDPOINT_URL_BEDROCK_RUNTIME: options.modelEndpoint }),
      };
      // One set of clients for the functions and for making the demo user a member, as one cold start would.
      const dependencies = managementDependencies({ ...process.env, ...environment });
      const demoAccountId = options.stack.seed?.seed.accounts[0]?.accountId;
      if (demoAccountId !== undefined) {
        const report = options.report ?? ((line: string) => process.stderr.write(`${line}\n`));
        demoMembership = await ensureDemoMembership(dependencies, demoAccountId, demoUser, report);
      }
      api = createManagementGateway({
        verifyToken,
        dependencies,
        environment: { ...process.env, ...environment },
        ...(options.onFunctionError ? { onFunctionError: options.onFunctionError } : {}),
      });
    }
    const dashboard = await startDashboardServer({
      port: config.dashboardPort,
      identity,
      reservedPorts,
      ...(api ? { api } : {}),
    });
    identity.allowCallbackUrl(`${dashboard.url}/`);
    return {
      dashboard,
      identity,
      demoUser,
      verifyToken,
      demoMembership,
      stop: async () => {
        if (demoMembership?.state === 'pending') demoMembership.stop();
        await dashboard.close();
        await identity.stop();
      },
    };
  } catch (error) {
    await identity.stop().catch(() => undefined);
    throw error;
  }
}
