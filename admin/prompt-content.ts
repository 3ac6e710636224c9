import type { PromptConfig, PromptContent } from '../lambda/domain/prompt';
import { isValidVersion } from '../lambda/domain/version';
import {
  at,
  fail,
  type Json,
  nestingDepth,
  readNumber,
  readObject,
  readString,
} from './input-reader';

/**
 * A version's content must fit one store item (400 KB), with room for its keys; the prompt's head
 * holds a copy of its latest version, so the same bound keeps the head within the limit too.
 */
export const MAX_CONTENT_BYTES = 300 * 1024;
/** DynamoDB nests at most 32 levels; config and inputData sit a few levels down already. */
const MAX_INPUT_DATA_DEPTH = 24;

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
  const bytes = Buffer.byteLength(JSON.stringify(content));
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
  if (nestingDepth(inputData) > MAX_INPUT_DATA_DEPTH) {
    fail(at(path, 'inputData'), `must nest at most ${MAX_INPUT_DATA_DEPTH} levels deep`);
  }
  const rootName = config.inputDataRootName ?? null;
  if (rootName !== null && typeof rootName !== 'string') fail(at(path, 'inputDataRootName'), 'must be a string or null');
  return {
    model: readString(config, 'model', path, { nonEmpty: true, max: 256 }),
    temperature: readNumber(config, 'temperature', path, { min: 0, max: 2 }),
    schema,
    inputData,
    inputDataRootName: rootName,
  };
}
