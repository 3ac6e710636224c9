/** Field shapes of the spec's Prompt resource, as the API returns them. */

export interface PromptConfig {
  model: string;
  temperature: number;
  schema: unknown[];
  inputData: unknown;
  inputDataRootName: string | null;
}

export interface PromptContent {
  version: string;
  systemMessage: string;
  userMessage: string;
  config: PromptConfig;
}

export interface Prompt extends PromptContent {
  promptId: string;
  promptName: string;
}

export interface PublishedVersion {
  version: string;
  userMessage: string;
}

export interface PromptWithVersions extends Prompt {
  publishedVersions: PublishedVersion[];
}

export const PROMPT_ID_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

export function isValidPromptId(value: string): boolean {
  return PROMPT_ID_PATTERN.test(value);
}

/** The spec's field order, and nothing the store may carry beside it. */
export function toPromptBody(prompt: Prompt): Prompt {
  const { promptId, promptName, version, systemMessage, userMessage, config } = prompt;
  return { promptId, promptName, version, systemMessage, userMessage, config: toConfigBody(config) };
}

/** The config as the API returns it: missing optional fields are the same as their defaults. */
export function toConfigBody(config: PromptConfig): PromptConfig {
  return {
    model: config.model,
    temperature: config.temperature,
    schema: config.schema ?? [],
    inputData: config.inputData ?? null,
    inputDataRootName: config.inputDataRootName ?? null,
  };
}
