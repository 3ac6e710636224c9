import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { CatalogModel } from './catalog';
import { ModelError, providerMessage } from './errors';

/**
 * Where an OpenAI-compatible endpoint's key comes from: deployed, a Secrets Manager secret (its string value), read
 * once per cold start and kept; locally, an environment variable, read by lambda/config.ts. A key is handed to the
 * provider that sends it and to nothing else: never to an answer, a log line, an event or the audit log.
 */
export interface ApiKeys {
  /** The model's key; undefined for an endpoint that needs none. */
  keyFor(model: CatalogModel): Promise<string | undefined>;
}

export class EndpointKeys implements ApiKeys {
  private readonly secrets = new Map<string, Promise<string>>();

  constructor(
    /** Keys from the environment, by model id (lambda/config.ts reads them). */
    private readonly fromEnvironment: ReadonlyMap<string, string>,
    private readonly secretsClient: () => SecretsManagerClient,
  ) {}

  keyFor(model: CatalogModel): Promise<string | undefined> {
    if (model.apiKeySecretArn !== undefined) return this.secret(model.apiKeySecretArn);
    if (model.apiKeyEnv !== undefined) {
      const key = this.fromEnvironment.get(model.modelId);
      if (key === undefined) return Promise.reject(new ModelError(`the key of model ${model.modelId} is not set: set ${model.apiKeyEnv}`));
      return Promise.resolve(key);
    }
    return Promise.resolve(undefined);
  }

  private secret(arn: string): Promise<string> {
    const cached = this.secrets.get(arn);
    if (cached) return cached;
    const read = this.read(arn);
    this.secrets.set(arn, read);
    // A failed read is tried again by the next run, not kept.
    read.catch(() => this.secrets.delete(arn));
    return read;
  }

  private async read(arn: string): Promise<string> {
    let value: string | undefined;
    try {
      value = (await this.secretsClient().send(new GetSecretValueCommand({ SecretId: arn }), { abortSignal: AbortSignal.timeout(5_000) })).SecretString;
    } catch (error) {
      const name = error instanceof Error ? error.name : 'Error';
      throw new ModelError(providerMessage(`the endpoint's key could not be read from Secrets Manager (${name})`));
    }
    if (value === undefined || value.trim() === '') throw new ModelError("the endpoint's key in Secrets Manager is not a non-empty string");
    return value.trim();
  }
}

/** The Secrets Manager client, made on the first secret read (a stack without one never makes it). */
export function lazySecretsClient(region: string): () => SecretsManagerClient {
  let client: SecretsManagerClient | undefined;
  return () => {
    client ??= new SecretsManagerClient({ region });
    return client;
  };
}
