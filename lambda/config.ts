export interface ServiceConfig {
  readonly tableName: string;
  readonly upgradeUrl: string;
  readonly region: string;
  /** Set to talk to a DynamoDB-compatible store (dynalite, DynamoDB Local) instead of AWS. */
  readonly storeEndpoint: string | undefined;
  /** Names the service in every log line and metric: one per stage, so stages sharing an account stay apart. */
  readonly serviceName: string;
  readonly logLevel: LogLevel;
}

/** Powertools Logger's levels; SILENT writes nothing. */
export const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Environment = Readonly<Record<string, string | undefined>>;

const DEFAULT_REGION = 'us-east-1';
export const DEFAULT_SERVICE_NAME = 'prompt-service-local';
const DEFAULT_LOG_LEVEL: LogLevel = 'INFO';

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

function logLevelOf(env: Environment): LogLevel {
  const value = env.POWERTOOLS_LOG_LEVEL?.trim().toUpperCase();
  if (!value) return DEFAULT_LOG_LEVEL;
  const level = LOG_LEVELS.find((candidate) => candidate === value);
  if (!level) {
    throw new ConfigError(`Environment variable POWERTOOLS_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`);
  }
  return level;
}

/** How every function names itself in its logs and metrics, and how much it logs. */
function loggingOf(env: Environment): Pick<ServiceConfig, 'serviceName' | 'logLevel'> {
  return { serviceName: env.POWERTOOLS_SERVICE_NAME?.trim() || DEFAULT_SERVICE_NAME, logLevel: logLevelOf(env) };
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
    ...loggingOf(env),
  };
}

/** The user pool the management API adds people to (lambda/users/). */
export interface UserPoolConfig {
  readonly userPoolId: string;
  readonly region: string;
  /** The local stand-in of the pool; absent in AWS. The stand-in emails nobody: added people get a temporary password once. */
  readonly cognitoEndpoint: string | undefined;
}

export function loadUserPoolConfig(env: Environment = process.env): UserPoolConfig {
  const endpoint = env.COGNITO_ENDPOINT?.trim();
  return {
    userPoolId: required(env, 'USER_POOL_ID'),
    region: env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim() || DEFAULT_REGION,
    cognitoEndpoint: endpoint ? absoluteUrl('COGNITO_ENDPOINT', endpoint) : undefined,
  };
}

/**
 * Where webhook deliveries may go (lambda/webhook-delivery/destination.ts): `deployed`, https to public addresses only;
 * `local` (npm start, tests), loopback http too. Deployed unless said otherwise: the safe side.
 */
export const WEBHOOK_DESTINATION_MODES = ['deployed', 'local'] as const;
export type WebhookDestinationMode = (typeof WEBHOOK_DESTINATION_MODES)[number];

/** How webhook secrets are sealed and where deliveries may go; set neither key and webhooks cannot be created. */
export interface WebhookConfig {
  readonly destinations: WebhookDestinationMode;
  /** The stack's KMS key (id or ARN) that seals signing secrets (deployed). */
  readonly kmsKeyId: string | undefined;
  /** Locally, the file of the 32-byte key that seals them instead (created, mode 0600, when missing). */
  readonly localKeyFile: string | undefined;
}

export function loadWebhookConfig(env: Environment = process.env): WebhookConfig {
  const mode = env.WEBHOOK_DESTINATIONS?.trim() || 'deployed';
  const destinations = WEBHOOK_DESTINATION_MODES.find((candidate) => candidate === mode);
  if (!destinations) throw new ConfigError(`Environment variable WEBHOOK_DESTINATIONS must be one of ${WEBHOOK_DESTINATION_MODES.join(', ')}, got "${mode}"`);
  return {
    destinations,
    kmsKeyId: env.WEBHOOK_KEY_ID?.trim() || undefined,
    localKeyFile: env.WEBHOOK_LOCAL_KEY_FILE?.trim() || undefined,
  };
}

/** What the management functions read at cold start: the store, the user pool, webhooks, and how they log. */
export interface ManagementConfig extends StoreConfig {
  readonly userPool: UserPoolConfig;
  readonly webhooks: WebhookConfig;
  readonly serviceName: string;
  readonly logLevel: LogLevel;
}

export function loadManagementConfig(env: Environment = process.env): ManagementConfig {
  return {
    ...loadStoreConfig(env),
    userPool: loadUserPoolConfig(env),
    webhooks: loadWebhookConfig(env),
    ...loggingOf(env),
  };
}

/**
 * What the rollout automation's functions read at cold start (lambda/rollout-automation/): the store and how they log. No
 * user pool and no upgrade URL: they add nobody and answer no caller.
 */
export interface AutomationConfig extends StoreConfig {
  readonly serviceName: string;
  readonly logLevel: LogLevel;
}

export function loadAutomationConfig(env: Environment = process.env): AutomationConfig {
  return {
    ...loadStoreConfig(env),
    ...loggingOf(env),
  };
}

/**
 * What the event dispatcher reads at cold start (lambda/event-dispatch/): the store (the account's webhooks), the stack's
 * EventBridge bus and the delivery queue.
 */
export interface DispatcherConfig extends AutomationConfig {
  readonly eventBusName: string;
  readonly deliveryQueueUrl: string;
}

export function loadDispatcherConfig(env: Environment = process.env): DispatcherConfig {
  return {
    ...loadAutomationConfig(env),
    eventBusName: required(env, 'EVENT_BUS_NAME'),
    deliveryQueueUrl: absoluteUrl('DELIVERY_QUEUE_URL', required(env, 'DELIVERY_QUEUE_URL')),
  };
}

/**
 * What the webhook delivery function reads at cold start (lambda/webhook-delivery/): the store, the delivery queue (whose
 * messages it hides until their next attempt), and the webhooks' settings: the key that opens their secrets
 * (WEBHOOK_KEY_ID, required) and where they may point.
 */
export interface DeliveryConfig extends AutomationConfig {
  readonly deliveryQueueUrl: string;
  readonly webhooks: WebhookConfig;
}

export function loadDeliveryConfig(env: Environment = process.env): DeliveryConfig {
  const webhooks = loadWebhookConfig(env);
  if (webhooks.kmsKeyId === undefined && webhooks.localKeyFile === undefined) required(env, 'WEBHOOK_KEY_ID');
  return {
    ...loadAutomationConfig(env),
    deliveryQueueUrl: absoluteUrl('DELIVERY_QUEUE_URL', required(env, 'DELIVERY_QUEUE_URL')),
    webhooks,
  };
}
