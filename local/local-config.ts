import { resolve } from 'node:path';
import { ConfigError } from '../lambda/config';

/** Settings of the local stack (`npm start`, `npm run invoke`); docs/local-stack.md lists them. */
export interface LocalConfig {
  /**
   * Where the read API and the playground listen: the loopback address unless the person sets HOST (to reach
   * them from a phone or a VM). The dashboard's origin, the user pool's stand-in and the store stay on loopback
   * whatever it says: they hold the local stack's administrative powers (docs/security.md).
   */
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly dynamoPort: number;
  /** The playground page's own origin, so its calls to the API are cross-origin. */
  readonly playgroundPort: number;
  /** The dashboard's origin: its page, and the management API under /api. */
  readonly dashboardPort: number;
  /** The embedded stand-in of the user pool (sign-in, tokens, the Cognito API). */
  readonly identityPort: number;
  /** The local stand-in model (Bedrock Runtime's Converse and ConverseStream), on loopback whatever HOST says. */
  readonly modelPort: number;
  readonly dataDir: string;
  /** Absent when SEED_FILE is set empty: start without seeding. */
  readonly seedPath: string | undefined;
  /** An existing store to use instead of the embedded one. */
  readonly storeEndpoint: string | undefined;
  readonly tableName: string;
  readonly region: string;
  readonly upgradeUrl: string;
}

export const LOOPBACK = '127.0.0.1';
export const DEFAULT_SEED_FILE = resolve(__dirname, '..', 'seed', 'demo-seed.json');
export const DEFAULT_TABLE_NAME = 'prompts-local';
/** A reserved example domain: clearly a placeholder for the deployment's real upgrade page. */
export const DEFAULT_UPGRADE_URL = 'https://example.com/upgrade';

type Environment = Readonly<Record<string, string | undefined>>;

export function loadLocalConfig(env: Environment = process.env): LocalConfig {
  const seedFile = env.SEED_FILE;
  return {
    host: env.HOST?.trim() || LOOPBACK,
    port: portOf(env, 'PORT', 3000),
    dynamoPort: portOf(env, 'DYNAMODB_PORT', 8000),
    playgroundPort: portOf(env, 'PLAYGROUND_PORT', 3001),
    dashboardPort: portOf(env, 'DASHBOARD_PORT', 3002),
    identityPort: portOf(env, 'IDENTITY_PORT', 3003),
    modelPort: portOf(env, 'MODEL_PORT', 3004),
    dataDir: env.DATA_DIR?.trim() || '.data',
    seedPath: seedFile === undefined ? DEFAULT_SEED_FILE : seedFile.trim() || undefined,
    storeEndpoint: urlOf(env, 'DYNAMODB_ENDPOINT'),
    tableName: env.TABLE_NAME?.trim() || DEFAULT_TABLE_NAME,
    region: env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim() || 'us-east-1',
    upgradeUrl: urlOf(env, 'UPGRADE_URL') ?? DEFAULT_UPGRADE_URL,
  };
}

/** Every port the settings name (0, any free port, names none): each is spoken for by one part of the stack. */
export function configuredPorts(config: LocalConfig): number[] {
  return [config.port, config.dynamoPort, config.playgroundPort, config.dashboardPort, config.identityPort, config.modelPort].filter((port) => port !== 0);
}

function portOf(env: Environment, name: string, fallback: number): number {
  const value = env[name]?.trim();
  if (!value) return fallback;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) {
    throw new ConfigError(`${name} must be a port number from 0 to 65535 (0 picks a free one), got "${value}"`);
  }
  return port;
}

function urlOf(env: Environment, name: string): string | undefined {
  const value = env[name]?.trim();
  if (!value) return undefined;
  try {
    new URL(value);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got "${value}"`);
  }
  return value;
}
