import type { PromptConfig, PromptContent } from '../lambda/domain/prompt';
import { isValidVersion } from '../lambda/domain/version';
import { at, fail, immediately, type Json, readNumber, readObjectEach, readString, type Take } from './input-reader';

import {
  contentBytes,
  MAX_CONTENT_BYTES,
  MAX_MODEL_LENGTH,
  MAX_NESTING_DEPTH,
  NESTING_RULE,
  nestsDeeperThan,
  TEMPERATURE_RANGE,
} from '../lambda/domain/content-rules';

export { MAX_CONTENT_BYTES };

export const CONTENT_FIELDS = ['systemMessage', 'userMessage', 'config'] as const;
const CONFIG_FIELDS = ['model', 'temperature', 'schema', 'inputData', 'inputDataRootName'];

export function readVersionNumber(object: Json, path: string): string {
  const version = readString(object, 'version', path);
  if (!isValidVersion(version)) {
    fail(at(path, 'version'), 'must be MAJOR.MINOR.PATCH (digits, no leading zeros, e.g. 1.2.0)');
  }
  return version;
}

/** systemMessage, userMessage and config of one version; `schema`, `inputData` and `inputDataRootName` may be left out. */
export function readContent(object: Json, path: string): Omit<PromptContent, 'version'> {
  const content = takeContent(object, path, immediately);
  if (!content) throw new Error('a read that stops at the first refusal gives content or throws');
  return content;
}

/** readContent, each field read through `take`: with a Problems, every refusal is kept and the content is undefined. */
export function takeContent(object: Json, path: string, take: Take): Omit<PromptContent, 'version'> | undefined {
  const systemMessage = take(() => readString(object, 'systemMessage', path));
  const userMessage = take(() => readString(object, 'userMessage', path));
  const config = takeConfig(object.config, at(path, 'config'), take);
  if (systemMessage === undefined || userMessage === undefined || config === undefined) return undefined;
  const content = { systemMessage, userMessage, config };
  const bytes = contentBytes(content);
  if (bytes > MAX_CONTENT_BYTES) {
    return take(() => fail(path, `content is ${Math.ceil(bytes / 1024)} KB, at most ${MAX_CONTENT_BYTES / 1024} KB fit one version`));
  }
  return content;
}

function takeConfig(value: unknown, path: string, take: Take): PromptConfig | undefined {
  const config = value === undefined ? take(() => fail(path, 'is required')) : readObjectEach(value, path, CONFIG_FIELDS, take);
  if (config === undefined) return undefined;
  const schema = take(() => {
    const schema = config.schema ?? [];
    if (!Array.isArray(schema)) fail(at(path, 'schema'), 'must be an array');
    if (nestsDeeperThan(schema, MAX_NESTING_DEPTH)) fail(at(path, 'schema'), NESTING_RULE);
    return schema;
  });
  const inputData = take(() => {
    const inputData = config.inputData ?? null;
    if (nestsDeeperThan(inputData, MAX_NESTING_DEPTH)) fail(at(path, 'inputData'), NESTING_RULE);
    return inputData;
  });
  const rootName = take(() => {
    const rootName = config.inputDataRootName ?? null;
    if (rootName !== null && typeof rootName !== 'string') fail(at(path, 'inputDataRootName'), 'must be a string or null');
    return rootName;
  });
  const model = take(() => readString(config, 'model', path, { nonEmpty: true, max: MAX_MODEL_LENGTH }));
  const temperature = take(() => readNumber(config, 'temperature', path, TEMPERATURE_RANGE));
  if (schema === undefined || inputData === undefined || rootName === undefined || model === undefined || temperature === undefined) return undefined;
  return { model, temperature, schema, inputData, inputDataRootName: rootName };
}
