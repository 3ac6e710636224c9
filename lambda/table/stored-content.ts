import { type PromptConfig, type PromptContent, toConfigBody } from '../domain/prompt';
import type { StoredContent } from './item-types';

/**
 * A version's content as the table holds it, and back. The config travels as JSON text, because the
 * store's maps go through plain objects on the way (the SDK's marshalling, dynalite): a key named
 * `__proto__` in `schema` or `inputData` would be dropped, and one named `constructor` refused.
 * JSON text keeps every name, and the order the author wrote them in.
 */
export function toStoredContent(content: PromptContent): StoredContent {
  return {
    version: content.version,
    systemMessage: content.systemMessage,
    userMessage: content.userMessage,
    config: JSON.stringify(toConfigBody(content.config)),
  };
}

export function fromStoredContent(stored: StoredContent): PromptContent {
  return {
    version: stored.version,
    systemMessage: stored.systemMessage,
    userMessage: stored.userMessage,
    config: storedConfig(stored.config),
  };
}

function storedConfig(config: StoredContent['config']): PromptConfig {
  return typeof config === 'string' ? (JSON.parse(config) as PromptConfig) : config;
}
