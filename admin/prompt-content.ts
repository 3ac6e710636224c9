import type { PromptConfig, PromptContent } from '../lambda/domain/prompt';
import { isValidVersion } from '../lambda/domain/version';
import { at, fail, type Json, readNumber, readObject, readString } from './input-reader';

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
  const content = {
    systemMessage: readString(object, 'systemMessage', path),
    userMessage: readString(object, 'userMessage', path),
    config: readConfig(object.config, at(path, 'config')),
  };
  const bytes = contentBytes(content);
  if (bytes > MAX_CONTENT_BYTES) {
    fail(path, `content is ${Math.ceil(bytes / 1024)} KB, at most ${MAX_CONTENT_BYTES / 1024} KB fit one version`);
  }
  return content;
}

function readConfig(value: unknown, path: string): PromptConfig {
  const config = readObject(value, path, CONFIG_FIELDS);
  const schema = config.schema ?? [];
  if (!Array.isArray(schema)) fail(at(path, 'schema'), 'must be an array');
  const inputData = config.inputData ?? null;
  for (const [field, value] of [
    ['schema', schema],
    ['inputData', inputData],
  ] as const) {
    if (nestsDeeperThan(value, MAX_NESTING_DEPTH)) fail(at(path, field), NESTING_RULE);
  }
  const rootName = config.inputDataRootName ?? null;
  if (rootName !== null && typeof rootName !== 'string') fail(at(path, 'inputDataRootName'), 'must be a string or null');
  return {
    model: readString(config, 'model', path, { nonEmpty: true, max: MAX_MODEL_LENGTH }),
    temperature: readNumber(config, 'temperature', path, TEMPERATURE_RANGE),
    schema,
    inputData,
    inputDataRootName: rootName,
  };
}
