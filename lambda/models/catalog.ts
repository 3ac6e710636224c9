/**
 * The models a stack may run prompts on (docs/runs.md "Models"): one catalog, three providers. It is a deploy
 * setting (`cdk deploy -c models=...`, handed to the run function as the `MODELS` variable, which lambda/config.ts
 * reads); without one, DEFAULT_CATALOG. Nothing here imports the model SDK: the stack reads this module for IAM, and
 * every function reads lambda/config.ts, whose bundles must not grow.
 */

import { PROVIDERS, type ProviderName } from '../domain/run-rules';

export { PROVIDERS, type ProviderName };

export interface CatalogModel {
  /** What a run names (`model`), unique in the catalog: a Bedrock model or inference profile id, or an endpoint's model name. */
  readonly modelId: string;
  readonly provider: ProviderName;
  /** What people call it. */
  readonly name: string;
  /** Whether the service reads its answer as the model writes it (ConverseStream, SSE); otherwise one answer at the end. */
  readonly streaming: boolean;
  /** Whether it is asked for structured output outright (a forced tool, a JSON schema); otherwise the system message asks. */
  readonly structuredOutput: boolean;
  readonly inputUsdPerMTok: number;
  readonly outputUsdPerMTok: number;
  /** The highest temperature it takes: 1 on Bedrock (and the stand-in, which checks as Bedrock does), 2 on OpenAI's API. */
  readonly maxTemperature: number;
  /** Bedrock inference profiles: the regions it routes to, whose foundation model IAM must allow too. */
  readonly regions?: readonly string[];
  /** OpenAI-compatible endpoints: the base URL (`https://api.openai.com/v1`, `http://localhost:11434/v1`). */
  readonly baseUrl?: string;
  /** OpenAI-compatible endpoints: the model's name there, when it is not `modelId`. */
  readonly endpointModel?: string;
  /** OpenAI-compatible endpoints, deployed: the Secrets Manager secret holding the key (its string value). */
  readonly apiKeySecretArn?: string;
  /** OpenAI-compatible endpoints, locally: the environment variable holding the key. */
  readonly apiKeyEnv?: string;
}

/** What `GET /api/accounts/{a}/models` shows of a model: nothing about where its key is. */
export interface PublicModel {
  readonly modelId: string;
  readonly provider: ProviderName;
  readonly name: string;
  readonly streaming: boolean;
  readonly structuredOutput: boolean;
  readonly inputUsdPerMTok: number;
  readonly outputUsdPerMTok: number;
}

export const publicModel = (model: CatalogModel): PublicModel => ({
  modelId: model.modelId,
  provider: model.provider,
  name: model.name,
  streaming: model.streaming,
  structuredOutput: model.structuredOutput,
  inputUsdPerMTok: model.inputUsdPerMTok,
  outputUsdPerMTok: model.outputUsdPerMTok,
});

/** The regions Amazon Bedrock's US cross-region inference profiles route to. */
const US_PROFILE_REGIONS = ['us-east-1', 'us-east-2', 'us-west-2'];

/**
 * A plain `cdk deploy` runs prompts on these: current Anthropic and Amazon models on Bedrock, through the US
 * cross-region inference profiles (as Bedrock requires for them on demand), and one model id called in the stack's
 * own region. Prices are Bedrock's on-demand prices per million tokens. A stack outside the US regions, or one that
 * wants other models, deploys with `-c models=...` (docs/runs.md).
 */
export const DEFAULT_CATALOG: readonly CatalogModel[] = [
  {
    modelId: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    provider: 'bedrock',
    name: 'Claude Sonnet 4.5',
    streaming: true,
    structuredOutput: true,
    inputUsdPerMTok: 3,
    outputUsdPerMTok: 15,
    maxTemperature: 1,
    regions: US_PROFILE_REGIONS,
  },
  {
    modelId: 'us.anthropic.claude-haiku-4-5-20251001-v1:0',
    provider: 'bedrock',
    name: 'Claude Haiku 4.5',
    streaming: true,
    structuredOutput: true,
    inputUsdPerMTok: 1,
    outputUsdPerMTok: 5,
    maxTemperature: 1,
    regions: US_PROFILE_REGIONS,
  },
  {
    modelId: 'us.amazon.nova-pro-v1:0',
    provider: 'bedrock',
    name: 'Amazon Nova Pro',
    streaming: true,
    structuredOutput: true,
    inputUsdPerMTok: 0.8,
    outputUsdPerMTok: 3.2,
    maxTemperature: 1,
    regions: US_PROFILE_REGIONS,
  },
  {
    modelId: 'us.amazon.nova-lite-v1:0',
    provider: 'bedrock',
    name: 'Amazon Nova Lite',
    streaming: true,
    structuredOutput: true,
    inputUsdPerMTok: 0.06,
    outputUsdPerMTok: 0.24,
    maxTemperature: 1,
    regions: US_PROFILE_REGIONS,
  },
  {
    modelId: 'amazon.nova-micro-v1:0',
    provider: 'bedrock',
    name: 'Amazon Nova Micro',
    streaming: true,
    structuredOutput: true,
    inputUsdPerMTok: 0.035,
    outputUsdPerMTok: 0.14,
    maxTemperature: 1,
  },
];

/**
 * What `npm start` and the tests run on: the default catalog and the demo seed's models (`gpt-4o`, `gpt-4o-mini`,
 * at OpenAI's prices), each answered by the local stand-in model through the Bedrock code path.
 */
export function localCatalog(): CatalogModel[] {
  const seedModels: CatalogModel[] = [
    { modelId: 'gpt-4o', name: 'GPT-4o', inputUsdPerMTok: 2.5, outputUsdPerMTok: 10 },
    { modelId: 'gpt-4o-mini', name: 'GPT-4o mini', inputUsdPerMTok: 0.15, outputUsdPerMTok: 0.6 },
  ].map((model) => ({ ...model, provider: 'local', streaming: true, structuredOutput: true, maxTemperature: 1 }));
  return [...DEFAULT_CATALOG.map(({ regions: _regions, ...model }) => ({ ...model, provider: 'local' as const })), ...seedModels];
}

export class CatalogError extends Error {
  override readonly name = 'CatalogError';
}

const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$/;
const REGION = /^[a-z]{2}(-[a-z]+)+-\d$/;
const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+$/;
const ENV_NAME = /^[A-Z_][A-Z0-9_]{0,127}$/;
const PROFILE_PREFIX = /^(us|eu|apac|jp|au|ca|us-gov)\./;
const MAX_MODELS = 50;
const FIELDS: readonly string[] = [
  'modelId',
  'provider',
  'name',
  'streaming',
  'structuredOutput',
  'inputUsdPerMTok',
  'outputUsdPerMTok',
  'maxTemperature',
  'regions',
  'baseUrl',
  'endpointModel',
  'apiKeySecretArn',
  'apiKeyEnv',
];

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether `modelId` names a Bedrock cross-region inference profile (`us.anthropic...`) rather than a model. */
export const isInferenceProfile = (modelId: string): boolean => PROFILE_PREFIX.test(modelId);

/**
 * A catalog from its JSON text (the deploy setting): a list of models, each checked here, so that a mistake stops
 * `cdk synth` and a cold start with the field named, never a run.
 */
export function parseCatalog(text: string): CatalogModel[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CatalogError('models: must be JSON, a list of models');
  }
  if (!Array.isArray(json) || json.length === 0) throw new CatalogError('models: must be a list of at least one model');
  if (json.length > MAX_MODELS) throw new CatalogError(`models: at most ${MAX_MODELS} models`);
  const models = json.map((entry, index) => catalogModel(entry, `models[${index}]`));
  const seen = new Set<string>();
  for (const [index, model] of models.entries()) {
    if (seen.has(model.modelId)) throw new CatalogError(`models[${index}].modelId: ${model.modelId} is in the catalog twice`);
    seen.add(model.modelId);
  }
  return models;
}

function catalogModel(entry: unknown, at: string): CatalogModel {
  if (!isRecord(entry)) throw new CatalogError(`${at}: must be an object`);
  for (const field of Object.keys(entry)) if (!FIELDS.includes(field)) throw new CatalogError(`${at}: unknown field ${field}`);
  const text = (field: string, pattern?: RegExp): string | undefined => {
    const value = entry[field];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.trim() === '' || (pattern && !pattern.test(value))) throw new CatalogError(`${at}.${field}: is not valid`);
    return value;
  };
  const price = (field: string): number => {
    const value = entry[field];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1_000) {
      throw new CatalogError(`${at}.${field}: must be a price in US dollars per million tokens, from 0 to 1000`);
    }
    return value;
  };
  const flag = (field: string, fallback: boolean): boolean => {
    const value = entry[field];
    if (value === undefined) return fallback;
    if (typeof value !== 'boolean') throw new CatalogError(`${at}.${field}: must be true or false`);
    return value;
  };
  const modelId = text('modelId', MODEL_ID);
  if (modelId === undefined) throw new CatalogError(`${at}.modelId: is required`);
  const provider = PROVIDERS.find((candidate) => candidate === entry.provider);
  if (!provider) throw new CatalogError(`${at}.provider: must be one of ${PROVIDERS.join(', ')}`);
  const maxTemperatureValue = entry.maxTemperature ?? (provider === 'openai' ? 2 : 1);
  if (typeof maxTemperatureValue !== 'number' || !(maxTemperatureValue > 0 && maxTemperatureValue <= 2)) {
    throw new CatalogError(`${at}.maxTemperature: must be above 0, at most 2`);
  }
  const model: CatalogModel = {
    modelId,
    provider,
    name: text('name') ?? modelId,
    streaming: flag('streaming', true),
    structuredOutput: flag('structuredOutput', true),
    inputUsdPerMTok: price('inputUsdPerMTok'),
    outputUsdPerMTok: price('outputUsdPerMTok'),
    maxTemperature: maxTemperatureValue,
  };
  if (provider === 'openai') return openAiModel(entry, at, model, text);
  for (const field of ['baseUrl', 'endpointModel', 'apiKeySecretArn', 'apiKeyEnv']) {
    if (entry[field] !== undefined) throw new CatalogError(`${at}.${field}: only an openai model has it`);
  }
  const regions = entry.regions;
  if (provider === 'local' || !isInferenceProfile(modelId)) {
    if (regions !== undefined) throw new CatalogError(`${at}.regions: only a Bedrock inference profile has them`);
    return model;
  }
  if (!Array.isArray(regions) || regions.length === 0 || regions.length > 30 || !regions.every((region) => typeof region === 'string' && REGION.test(region))) {
    throw new CatalogError(`${at}.regions: an inference profile lists the regions it routes to (e.g. ["us-east-1", "us-west-2"])`);
  }
  return { ...model, regions: [...new Set<string>(regions)] };
}

function openAiModel(
  entry: Record<string, unknown>,
  at: string,
  model: CatalogModel,
  text: (field: string, pattern?: RegExp) => string | undefined,
): CatalogModel {
  if (entry.regions !== undefined) throw new CatalogError(`${at}.regions: only a Bedrock inference profile has them`);
  const baseUrl = text('baseUrl');
  if (baseUrl === undefined) throw new CatalogError(`${at}.baseUrl: an openai model names its endpoint`);
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new CatalogError(`${at}.baseUrl: must be an absolute http(s) URL`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    throw new CatalogError(`${at}.baseUrl: must be an http(s) URL without credentials, query or fragment`);
  }
  const apiKeySecretArn = text('apiKeySecretArn', SECRET_ARN);
  const apiKeyEnv = text('apiKeyEnv', ENV_NAME);
  const endpointModel = text('endpointModel');
  return {
    ...model,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    ...(endpointModel === undefined ? {} : { endpointModel }),
    ...(apiKeySecretArn === undefined ? {} : { apiKeySecretArn }),
    ...(apiKeyEnv === undefined ? {} : { apiKeyEnv }),
  };
}

/** The model `modelId` names, or undefined. */
export const findModel = (catalog: readonly CatalogModel[], modelId: string): CatalogModel | undefined => catalog.find((model) => model.modelId === modelId);

/** Where the stack is: the ARNs of its Bedrock resources are built with these (tokens in CDK). */
export interface ArnContext {
  readonly partition: string;
  readonly region: string;
  readonly account: string;
}

/**
 * Exactly the ARNs `bedrock:InvokeModel` and `bedrock:InvokeModelWithResponseStream` must allow for the catalog's
 * Bedrock models: a model id is its foundation model in the stack's region; an inference profile is the profile in
 * the stack's account and region, and its foundation model in each region it routes to. Never `*`.
 */
export function bedrockResourceArns(catalog: readonly CatalogModel[], where: ArnContext): string[] {
  const arns = catalog
    .filter((model) => model.provider === 'bedrock')
    .flatMap((model) => {
      if (!isInferenceProfile(model.modelId)) return [`arn:${where.partition}:bedrock:${where.region}::foundation-model/${model.modelId}`];
      const foundation = model.modelId.replace(PROFILE_PREFIX, '');
      return [
        `arn:${where.partition}:bedrock:${where.region}:${where.account}:inference-profile/${model.modelId}`,
        ...(model.regions ?? []).map((region) => `arn:${where.partition}:bedrock:${region}::foundation-model/${foundation}`),
      ];
    });
  return [...new Set(arns)];
}

/** The secrets holding the catalog's endpoint keys: exactly what `secretsmanager:GetSecretValue` must allow. */
export const apiKeySecretArns = (catalog: readonly CatalogModel[]): string[] => [
  ...new Set(catalog.flatMap((model) => (model.apiKeySecretArn === undefined ? [] : [model.apiKeySecretArn]))),
];
