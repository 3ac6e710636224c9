import { BedrockProvider, createBedrockClient } from './bedrock-provider';
import { EndpointKeys, lazySecretsClient } from './api-keys';
import { type CatalogModel, findModel, type ProviderName } from './catalog';
import { OpenAiProvider } from './openai-provider';
import type { CallOptions, ModelAnswer, ModelProvider, ModelRequest } from './provider';
import type { RetryPolicy } from './retry';

/** What the run function needs of its configuration to call models (lambda/config.ts ModelsConfig). */
export interface ModelsSettings {
  readonly catalog: readonly CatalogModel[];
  readonly region: string;
  /** The local stand-in model's address: where the `local` provider's calls go. */
  readonly standInEndpoint: string | undefined;
  /** OpenAI-compatible endpoints' keys from the environment, by model id (locally). */
  readonly endpointKeys: ReadonlyMap<string, string>;
}

/**
 * The catalog and a provider for each of its models: the one way into lambda/models/ for the runs (and the
 * experiments' workers). Built once per cold start; each provider's client is made on its first call.
 */
export class Models {
  constructor(
    readonly catalog: readonly CatalogModel[],
    private readonly providers: Readonly<Record<ProviderName, () => ModelProvider>>,
  ) {}

  find(modelId: string): CatalogModel | undefined {
    return findModel(this.catalog, modelId);
  }

  converse(request: ModelRequest, options: CallOptions): Promise<ModelAnswer> {
    return this.providers[request.model.provider]().converse(request, options);
  }
}

const once = <T>(make: () => T): (() => T) => {
  let made: T | undefined;
  return () => {
    made ??= make();
    return made;
  };
};

export function createModels(settings: ModelsSettings, retry?: RetryPolicy): Models {
  const keys = new EndpointKeys(settings.endpointKeys, lazySecretsClient(settings.region));
  return new Models(settings.catalog, {
    bedrock: once(() => new BedrockProvider(createBedrockClient({ region: settings.region }), retry)),
    local: once(() => {
      if (settings.standInEndpoint === undefined) throw new Error('local models need AWS_ENDPOINT_URL_BEDROCK_RUNTIME: the stand-in model’s address');
      return new BedrockProvider(createBedrockClient({ region: settings.region, endpoint: settings.standInEndpoint }), retry);
    }),
    openai: once(() => new OpenAiProvider(keys, retry)),
  });
}
