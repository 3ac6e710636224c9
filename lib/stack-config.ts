import { Aws, RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { existsSync, readFileSync } from 'node:fs';
import { LOG_LEVELS, type LogLevel } from '../lambda/config';
import { CatalogError, type CatalogModel, DEFAULT_CATALOG, parseCatalog } from '../lambda/models/catalog';

/** What a deployment may choose, read from CDK context (`cdk.json` defaults, `-c name=value` overrides). */
export interface ServiceSettings {
  /** Names the stack (`PromptService-<stage>`) and tags its resources; letters, digits and hyphens. */
  readonly stage: string;
  /** The absolute http(s) URL put in every 429 body as `upgradeUrl`. */
  readonly upgradeUrl: string;
  /** RETAIN keeps the table (and logs) after `cdk destroy`; DESTROY is for throwaway stages. */
  readonly removalPolicy: RemovalPolicy.RETAIN | RemovalPolicy.DESTROY;
  /** The gateway's steady-state request rate (requests per second) for all clients together. */
  readonly throttleRateLimit: number;
  /** The gateway's burst bucket (requests) for all clients together. */
  readonly throttleBurstLimit: number;
  readonly logRetention: RetentionDays;
  /** Subscribed to the alarm topic when given. */
  readonly alarmEmail: string | undefined;
  /** The functions' log level (POWERTOOLS_LOG_LEVEL). */
  readonly logLevel: LogLevel;
  /** Requests one IP address may make in 5 minutes before WAF blocks it; no WAF when absent. */
  readonly wafRateLimit: number | undefined;
  /** Set the account's API Gateway logging role (once per account and region); false if it is managed elsewhere. */
  readonly apiGatewayAccountRole: boolean;
  /** Invocations of the webhook delivery function at once, at most: its SQS event source's maximum concurrency. */
  readonly deliveryConcurrency: number;
  /**
   * Reserve the account's concurrency for the functions one account's activity drives (deliveries, rollout steps, guard
   * alarms): each then has its share whatever else runs, and no more. Off by default: a deploy that reserves fails
   * where the account's limit leaves Lambda less than 10 unreserved (new accounts often have 10 in all).
   */
  readonly reservedConcurrency: boolean;
  /**
   * The models runs may call (docs/runs.md "Models"): `-c models=<JSON>` or `-c models=<file>`, a list of catalog
   * entries; the default catalog without one. The run function's IAM allows exactly their ARNs.
   */
  readonly models: readonly CatalogModel[];
}

/** The context keys, as written in `cdk.json` and after `-c`. */
export const CONTEXT_KEYS = {
  stage: 'stage',
  upgradeUrl: 'upgradeUrl',
  removalPolicy: 'removalPolicy',
  throttleRateLimit: 'throttleRateLimit',
  throttleBurstLimit: 'throttleBurstLimit',
  logRetentionDays: 'logRetentionDays',
  alarmEmail: 'alarmEmail',
  logLevel: 'logLevel',
  wafRateLimit: 'wafRateLimit',
  apiGatewayAccountRole: 'apiGatewayAccountRole',
  deliveryConcurrency: 'deliveryConcurrency',
  reservedConcurrency: 'reservedConcurrency',
  models: 'models',
} as const;

export const DEFAULT_SETTINGS = {
  stage: 'prod',
  removalPolicy: 'retain',
  throttleRateLimit: 50,
  throttleBurstLimit: 100,
  logRetentionDays: 30,
  logLevel: 'INFO',
  apiGatewayAccountRole: true,
  deliveryConcurrency: 10,
  reservedConcurrency: false,
} as const;

/** What an SQS event source's maximum concurrency may be (Lambda's bounds). */
export const DELIVERY_CONCURRENCY_BOUNDS = { min: 2, max: 1000 } as const;

/** AWS WAF's bounds for a rate-based rule's limit (requests per evaluation window). */
export const WAF_RATE_LIMIT_BOUNDS = { min: 10, max: 2_000_000_000 } as const;

export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}

/** Context values arrive as strings from `-c` and as JSON values from `cdk.json`. */
type ContextLookup = (key: string) => unknown;

export const STAGE_PATTERN = /^[A-Za-z][A-Za-z0-9-]{0,31}$/;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const VALID_RETENTION_DAYS = new Set<number>(Object.values(RetentionDays).filter((value): value is number => typeof value === 'number'));

function text(lookup: ContextLookup, key: string): string | undefined {
  const value = lookup(key);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw new SettingsError(`Context "${key}" must be a plain value, got ${JSON.stringify(value)}`);
  }
  const trimmed = String(value).trim();
  return trimmed === '' ? undefined : trimmed;
}

function positiveInteger(lookup: ContextLookup, key: string, fallback: number): number {
  const raw = text(lookup, key);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    throw new SettingsError(`Context "${key}" must be a whole number of at least 1, got "${raw}"`);
  }
  return value;
}

/**
 * The user pool's sign-in domain prefix, `prompts-<stage>-<8 hex digits of the stack's id>` (lib/user-pool.ts):
 * unique per region, as Cognito requires, and stable for the stack's life.
 */
export const signInDomainPrefix = (stage: string, stackIdPart: string): string => `prompts-${stage.toLowerCase()}-${stackIdPart}`;

/**
 * Cognito's rule for a domain prefix, and the words it refuses anywhere in one. STAGE_PATTERN keeps every
 * prefix within the rule (test/stack/stack-config.test.ts checks that it does); the words are checked here.
 */
export const COGNITO_DOMAIN_PREFIX_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
export const COGNITO_DOMAIN_PREFIX_RESERVED = ['aws', 'amazon', 'cognito'] as const;

/** A stack id's first group, as the prefix takes it: 8 hex digits, which can spell no reserved word. */
export const STACK_ID_PART_EXAMPLE = '0a1b2c3d';

function stageOf(lookup: ContextLookup): string {
  const stage = text(lookup, CONTEXT_KEYS.stage) ?? DEFAULT_SETTINGS.stage;
  if (!STAGE_PATTERN.test(stage)) {
    throw new SettingsError(`Context "stage" must start with a letter and hold only letters, digits and hyphens (at most 32), got "${stage}"`);
  }
  // Cognito checks the domain prefix only when CloudFormation creates it, half-way through a first deploy.
  const prefix = signInDomainPrefix(stage, STACK_ID_PART_EXAMPLE);
  const reserved = COGNITO_DOMAIN_PREFIX_RESERVED.find((word) => prefix.includes(word));
  if (reserved !== undefined) {
    throw new SettingsError(
      `Context "stage" must not contain "aws", "amazon" or "cognito": it names the user pool's sign-in domain ` +
        `(prompts-<stage>-...), where Cognito refuses "${reserved}"; got "${stage}"`,
    );
  }
  return stage;
}

function upgradeUrlOf(lookup: ContextLookup): string {
  const raw = text(lookup, CONTEXT_KEYS.upgradeUrl);
  if (raw === undefined) {
    throw new SettingsError('Context "upgradeUrl" is required: pass -c upgradeUrl=https://your.site/pricing');
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SettingsError(`Context "upgradeUrl" must be an absolute URL, got "${raw}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new SettingsError(`Context "upgradeUrl" must be an http(s) URL, got "${raw}"`);
  }
  return raw;
}

function removalPolicyOf(lookup: ContextLookup): ServiceSettings['removalPolicy'] {
  const raw = (text(lookup, CONTEXT_KEYS.removalPolicy) ?? DEFAULT_SETTINGS.removalPolicy).toLowerCase();
  if (raw === 'retain') return RemovalPolicy.RETAIN;
  if (raw === 'destroy') return RemovalPolicy.DESTROY;
  throw new SettingsError(`Context "removalPolicy" must be "retain" or "destroy", got "${raw}"`);
}

function logRetentionOf(lookup: ContextLookup): RetentionDays {
  const days = positiveInteger(lookup, CONTEXT_KEYS.logRetentionDays, DEFAULT_SETTINGS.logRetentionDays);
  if (!VALID_RETENTION_DAYS.has(days)) {
    const allowed = [...VALID_RETENTION_DAYS].sort((a, b) => a - b).join(', ');
    throw new SettingsError(`Context "logRetentionDays" must be one of CloudWatch's periods (${allowed}), got ${days}`);
  }
  return days as RetentionDays;
}

function alarmEmailOf(lookup: ContextLookup): string | undefined {
  const email = text(lookup, CONTEXT_KEYS.alarmEmail);
  if (email !== undefined && !EMAIL_PATTERN.test(email)) {
    throw new SettingsError(`Context "alarmEmail" must be an email address, got "${email}"`);
  }
  return email;
}

function logLevelOf(lookup: ContextLookup): LogLevel {
  const raw = (text(lookup, CONTEXT_KEYS.logLevel) ?? DEFAULT_SETTINGS.logLevel).toUpperCase();
  const level = LOG_LEVELS.find((candidate) => candidate === raw);
  if (!level) throw new SettingsError(`Context "logLevel" must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  return level;
}

function wafRateLimitOf(lookup: ContextLookup): number | undefined {
  const raw = text(lookup, CONTEXT_KEYS.wafRateLimit);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < WAF_RATE_LIMIT_BOUNDS.min || value > WAF_RATE_LIMIT_BOUNDS.max) {
    throw new SettingsError(`Context "wafRateLimit" must be a whole number of requests per IP in 5 minutes, from ${WAF_RATE_LIMIT_BOUNDS.min}, got "${raw}"`);
  }
  return value;
}

function deliveryConcurrencyOf(lookup: ContextLookup): number {
  const value = positiveInteger(lookup, CONTEXT_KEYS.deliveryConcurrency, DEFAULT_SETTINGS.deliveryConcurrency);
  if (value < DELIVERY_CONCURRENCY_BOUNDS.min || value > DELIVERY_CONCURRENCY_BOUNDS.max) {
    throw new SettingsError(
      `Context "deliveryConcurrency" must be from ${DELIVERY_CONCURRENCY_BOUNDS.min} to ${DELIVERY_CONCURRENCY_BOUNDS.max} (an SQS event source's maximum concurrency), got ${value}`,
    );
  }
  return value;
}

function booleanOf(lookup: ContextLookup, key: string, fallback: boolean): boolean {
  const raw = text(lookup, key)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new SettingsError(`Context "${key}" must be true or false, got "${raw}"`);
}

const MAX_MODELS_SETTING = 3_000;

/** The catalog from `-c models=`: JSON (a list, in cdk.json too) or a file holding it; the default without one. */
function modelsOf(lookup: ContextLookup): readonly CatalogModel[] {
  const value = lookup(CONTEXT_KEYS.models);
  if (value === undefined || value === null || value === '') return DEFAULT_CATALOG;
  let json: string;
  if (Array.isArray(value)) json = JSON.stringify(value);
  else if (typeof value !== 'string') throw new SettingsError('Context "models" must be a list of models, as JSON or a file holding it');
  else if (value.trim().startsWith('[')) json = value;
  else if (existsSync(value.trim())) json = readFileSync(value.trim(), 'utf8');
  else throw new SettingsError(`Context "models" must be a list of models, as JSON or a file holding it; no file ${value.trim()}`);
  let models: CatalogModel[];
  try {
    models = parseCatalog(json);
  } catch (error) {
    if (error instanceof CatalogError) throw new SettingsError(`Context "models": ${error.message}`);
    throw error;
  }
  // The run function reads the catalog from its environment, which holds 4 KB in all.
  if (JSON.stringify(models).length > MAX_MODELS_SETTING) {
    throw new SettingsError(
      `Context "models": the catalog must fit ${MAX_MODELS_SETTING} characters of JSON (the run function's environment); leave out names and defaults, or models`,
    );
  }
  const local = models.find((model) => model.provider === 'local');
  if (local)
    throw new SettingsError(`Context "models": ${local.modelId} is a local model, which only npm start has (the stand-in): deploy bedrock or openai models`);
  return models;
}

/** Every setting checked at synth time, so a bad value stops `cdk synth`/`cdk deploy` with one clear line. */
export function settingsFromContext(lookup: ContextLookup): ServiceSettings {
  const throttleRateLimit = positiveInteger(lookup, CONTEXT_KEYS.throttleRateLimit, DEFAULT_SETTINGS.throttleRateLimit);
  const throttleBurstLimit = positiveInteger(lookup, CONTEXT_KEYS.throttleBurstLimit, DEFAULT_SETTINGS.throttleBurstLimit);
  return {
    stage: stageOf(lookup),
    upgradeUrl: upgradeUrlOf(lookup),
    removalPolicy: removalPolicyOf(lookup),
    throttleRateLimit,
    throttleBurstLimit,
    logRetention: logRetentionOf(lookup),
    alarmEmail: alarmEmailOf(lookup),
    logLevel: logLevelOf(lookup),
    wafRateLimit: wafRateLimitOf(lookup),
    apiGatewayAccountRole: booleanOf(lookup, CONTEXT_KEYS.apiGatewayAccountRole, DEFAULT_SETTINGS.apiGatewayAccountRole),
    deliveryConcurrency: deliveryConcurrencyOf(lookup),
    reservedConcurrency: booleanOf(lookup, CONTEXT_KEYS.reservedConcurrency, DEFAULT_SETTINGS.reservedConcurrency),
    models: modelsOf(lookup),
  };
}

const PLACEHOLDER_HOSTS = new Set(['example.com', 'example.org', 'example.net']);

/** True for the `cdk.json` default, which is fine for a synth but not for a deployment people pay through. */
export function isPlaceholderUrl(url: string): boolean {
  const host = new URL(url).hostname;
  return PLACEHOLDER_HOSTS.has(host) || [...PLACEHOLDER_HOSTS].some((placeholder) => host.endsWith(`.${placeholder}`));
}

export const stackNameFor = (stage: string): string => `PromptService-${stage}`;

/**
 * A name for what must be unique across an account's regions (CloudFront's policies and origin access controls,
 * CloudWatch dashboards): the stage and the region, so one stage deploys to two regions without a clash.
 * At most 8 + 32 + 1 + 16 + 1 + 6 = 64 characters for a suffix of 6, the origin access control's limit.
 */
export const regionalName = (stage: string, suffix: string): string => `prompts-${stage}-${Aws.REGION}-${suffix}`;
