export interface ServiceConfig {
  readonly tableName: string;
  readonly upgradeUrl: string;
  readonly region: string;
  /** Set to talk to a DynamoDB-compatible store (dynalite, DynamoDB Local) instead of AWS. */
  readonly storeEndpoint: string | undefined;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Environment = Readonly<Record<string, string | undefined>>;

const DEFAULT_REGION = 'us-east-1';

function required(env: Environment, name: string): string {
  const value = env[name]?.trim();
  if (!value) {
    throw new ConfigError(`Missing required environment variable ${name}`);
  }
  return value;
}

function absoluteUrl(name: string, value: string): string {
  try {
    new URL(value);
    return value;
  } catch {
    throw new ConfigError(`Environment variable ${name} must be an absolute URL, got "${value}"`);
  }
}

export type StoreConfig = Pick<ServiceConfig, 'tableName' | 'region' | 'storeEndpoint'>;

/** What the operator tools need: the store, without the API's own settings. */
export function loadStoreConfig(env: Environment = process.env): StoreConfig {
  const endpoint = env.DYNAMODB_ENDPOINT?.trim();
  return {
    tableName: required(env, 'TABLE_NAME'),
    region: env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim() || DEFAULT_REGION,
    storeEndpoint: endpoint ? absoluteUrl('DYNAMODB_ENDPOINT', endpoint) : undefined,
  };
}

export function loadConfig(env: Environment = process.env): ServiceConfig {
  const store = loadStoreConfig(env);
  return {
    tableName: store.tableName,
    upgradeUrl: absoluteUrl('UPGRADE_URL', required(env, 'UPGRADE_URL')),
    region: store.region,
    storeEndpoint: store.storeEndpoint,
  };
}
