import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Plan } from '../../lambda/domain/plans';
import type { PromptVersionInput } from '../../admin/table/import-plan';
import type { NewApiKey } from '../../lambda/features/keys/keys';
import { generateApiKey, hashApiKey, keyIdFromHash } from '../../lambda/domain/api-key';
import type { PromptConfig } from '../../lambda/domain/prompt';
import { FixtureStore, type PromptInput } from './fixture-store';
import { registerApiKey } from './log-capture';

export const config = (overrides: Partial<PromptConfig> = {}): PromptConfig => ({
  model: 'gpt-4o-mini',
  temperature: 0.7,
  schema: [],
  inputData: null,
  inputDataRootName: null,
  ...overrides,
});

export const version = (versionNumber: string, overrides: Partial<PromptVersionInput> = {}): PromptVersionInput => ({
  version: versionNumber,
  published: true,
  systemMessage: `System message of ${versionNumber}`,
  userMessage: `Hello \${name}, this is ${versionNumber}`,
  config: config(),
  ...overrides,
});

export const prompt = (promptId: string, versions: PromptVersionInput[], overrides: Partial<PromptInput> = {}): PromptInput => ({
  promptId,
  promptName: `Prompt ${promptId}`,
  versions,
  ...overrides,
});

export class Fixtures {
  readonly admin: FixtureStore;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.admin = new FixtureStore(client, tableName);
  }

  async account(accountId: string, plan: Plan = 'free'): Promise<void> {
    await this.admin.putAccount({ accountId, name: `Account ${accountId}`, plan });
  }

  /** Creates a key for the account and returns it in plaintext, as a user would hold it. */
  async apiKey(accountId: string, options: Pick<NewApiKey, 'monthlyLimit' | 'revoked' | 'scope' | 'expiresAt'> = {}): Promise<string> {
    const apiKey = generateApiKey();
    registerApiKey(apiKey);
    const keyHash = hashApiKey(apiKey);
    await this.admin.putApiKey({
      keyHash,
      keyId: keyIdFromHash(keyHash),
      accountId,
      displayPrefix: apiKey.slice(0, 8),
      ...options,
    });
    return apiKey;
  }

  async prompts(accountId: string, ...inputs: PromptInput[]): Promise<void> {
    for (const input of inputs) await this.admin.importPrompt(accountId, input);
  }
}
