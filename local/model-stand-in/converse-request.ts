import { textNestsDeeperThan } from '../../lambda/domain/content-rules';
import { BedrockError } from './bedrock-errors';
import { characterCount } from './characters';

/**
 * A Converse or ConverseStream body (the same shape for both), checked as Bedrock checks it, and read down
 * to what the stand-in's rule needs. Field names and shapes are the SDK's (`ConverseRequest` of
 * @aws-sdk/client-bedrock-runtime); each refusal is a ValidationException naming the field.
 */
export interface ConverseCall {
  /** The system blocks' text, joined by new lines. */
  readonly system: string;
  /** The text blocks of the last message whose role is `user`, joined by new lines. */
  readonly lastUserText: string;
  /** Characters of the system and of every message: their text, and the JSON text of tool uses and results. */
  readonly inputCharacters: number;
  readonly maxTokens: number | undefined;
  readonly stopSequences: readonly string[];
  /**
   * The tool `toolChoice` forces (`tool`, or `any`: the first tool), when it forces one. Structured output
   * (`outputConfig.textFormat`) is checked, but changes nothing: its answer is the message's text either way.
   */
  readonly forcedTool: string | undefined;
}

/** Deeper than any tool schema or document a prompt needs; refused unread, before JSON.parse meets it. */
export const MAX_BODY_NESTING = 64;
/** Bedrock's own limits. */
const MAX_STOP_SEQUENCES = 2_500;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ROLES = ['user', 'assistant'] as const;

type Json = Record<string, unknown>;

export function parseConverseBody(body: Buffer): ConverseCall {
  const text = body.toString('utf8');
  if (textNestsDeeperThan(text, MAX_BODY_NESTING)) throw invalid('body', `Member must nest at most ${MAX_BODY_NESTING} levels deep`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BedrockError('ValidationException', 'The request body is not valid JSON.');
  }
  if (!isObject(value)) throw new BedrockError('ValidationException', 'The request body must be a JSON object.');

  const messages = messagesOf(value.messages);
  const system = optional(value.system, (blocks) => arrayOf(blocks, 'system', textOfSystemBlock).flat()) ?? [];
  const inference = optional(value.inferenceConfig, inferenceOf) ?? { maxTokens: undefined, stopSequences: [] };
  const forcedTool = optional(value.toolConfig, forcedToolOf);
  optional(value.outputConfig, checkOutputConfig);

  const lastUser = messages.findLast((message) => message.role === 'user');
  return {
    system: system.join('\n'),
    lastUserText: lastUser?.texts.join('\n') ?? '',
    inputCharacters: [...system, ...messages.flatMap((message) => message.counted)].reduce((sum, part) => sum + characterCount(part), 0),
    maxTokens: inference.maxTokens,
    stopSequences: inference.stopSequences,
    forcedTool,
  };
}

interface ReadMessage {
  readonly role: (typeof ROLES)[number];
  /** Its text blocks. */
  readonly texts: string[];
  /** What counts towards the input's characters. */
  readonly counted: string[];
}

function messagesOf(value: unknown): ReadMessage[] {
  if (value === undefined || value === null) throw invalid('messages', 'Member must not be null');
  const messages = arrayOf(value, 'messages', messageOf);
  if (messages.length === 0) throw invalid('messages', 'Member must have length greater than or equal to 1');
  if (messages[0]?.role !== 'user')
    throw new BedrockError(
      'ValidationException',
      'A conversation must start with a user message. Try again with a conversation that starts with a user message.',
    );
  messages.forEach((message, index) => {
    if (index > 0 && messages[index - 1]?.role === message.role) {
      throw new BedrockError(
        'ValidationException',
        'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.',
      );
    }
  });
  return messages;
}

function messageOf(value: unknown, path: string): ReadMessage {
  const message = objectAt(value, path);
  const role = message.role;
  if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role))
    throw invalid(`${path}.role`, `Member must satisfy enum value set: [${ROLES.join(', ')}]`);
  const blocks = arrayOf(message.content, `${path}.content`, contentBlockOf);
  if (blocks.length === 0) throw invalid(`${path}.content`, 'Member must have length greater than or equal to 1');
  return {
    role: role as ReadMessage['role'],
    texts: blocks.flatMap((block) => (block.text === undefined ? [] : [block.text])),
    counted: blocks.flatMap((block) => block.counted),
  };
}

/** A content block is a union: one member, of which text, tool uses and tool results carry characters. */
function contentBlockOf(value: unknown, path: string): { text: string | undefined; counted: string[] } {
  const [member, content] = unionMember(value, path);
  if (member === 'text') return { text: nonBlankText(content, path), counted: [content as string] };
  if (member === 'toolUse') {
    const toolUse = objectAt(content, `${path}.toolUse`);
    stringAt(toolUse.toolUseId, `${path}.toolUse.toolUseId`);
    stringAt(toolUse.name, `${path}.toolUse.name`);
    return { text: undefined, counted: [JSON.stringify(toolUse.input ?? null)] };
  }
  if (member === 'toolResult') {
    const toolResult = objectAt(content, `${path}.toolResult`);
    stringAt(toolResult.toolUseId, `${path}.toolResult.toolUseId`);
    const parts = arrayOf(toolResult.content, `${path}.toolResult.content`, (part, partPath) => {
      const [kind, inner] = unionMember(part, partPath);
      if (kind === 'text') return [stringAt(inner, `${partPath}.text`)];
      return kind === 'json' ? [JSON.stringify(inner)] : [];
    });
    return { text: undefined, counted: parts.flat() };
  }
  objectAt(content, `${path}.${member}`);
  return { text: undefined, counted: [] };
}

function textOfSystemBlock(value: unknown, path: string): string[] {
  const [member, content] = unionMember(value, path);
  if (member === 'text') return [nonBlankText(content, path)];
  objectAt(content, `${path}.${member}`);
  return [];
}

function inferenceOf(value: unknown): { maxTokens: number | undefined; stopSequences: string[] } {
  const config = objectAt(value, 'inferenceConfig');
  const maxTokens = optional(config.maxTokens, (number) => {
    if (!Number.isInteger(number)) throw invalid('inferenceConfig.maxTokens', 'Member must be an integer');
    if ((number as number) < 1) throw invalid('inferenceConfig.maxTokens', 'Member must have value greater than or equal to 1');
    return number as number;
  });
  for (const name of ['temperature', 'topP'] as const) {
    optional(config[name], (number) => {
      if (typeof number !== 'number' || number < 0 || number > 1) throw invalid(`inferenceConfig.${name}`, 'Member must be a number from 0 to 1');
      return number;
    });
  }
  const stopSequences =
    optional(config.stopSequences, (sequences) => {
      const all = arrayOf(sequences, 'inferenceConfig.stopSequences', (sequence, path) => {
        if (stringAt(sequence, path).length === 0) throw invalid(path, 'Member must have length greater than or equal to 1');
        return sequence as string;
      });
      if (all.length > MAX_STOP_SEQUENCES)
        throw invalid('inferenceConfig.stopSequences', `Member must have length less than or equal to ${MAX_STOP_SEQUENCES}`);
      return all;
    }) ?? [];
  return { maxTokens, stopSequences };
}

function forcedToolOf(value: unknown): string | undefined {
  const config = objectAt(value, 'toolConfig');
  const names = arrayOf(config.tools, 'toolConfig.tools', (tool, path) => {
    const [member, content] = unionMember(tool, path);
    if (member !== 'toolSpec') return [];
    const spec = objectAt(content, `${path}.toolSpec`);
    const name = stringAt(spec.name, `${path}.toolSpec.name`);
    if (!TOOL_NAME.test(name)) throw invalid(`${path}.toolSpec.name`, `Member must satisfy regular expression pattern: ${TOOL_NAME.source}`);
    const [schemaMember, schema] = unionMember(spec.inputSchema, `${path}.toolSpec.inputSchema`);
    if (schemaMember !== 'json') throw invalid(`${path}.toolSpec.inputSchema`, 'Member must be {json: <a JSON Schema>}');
    objectAt(schema, `${path}.toolSpec.inputSchema.json`);
    return [name];
  }).flat();
  if (names.length === 0) throw invalid('toolConfig.tools', 'Member must have length greater than or equal to 1');
  const duplicate = names.find((name, index) => names.indexOf(name) !== index);
  if (duplicate !== undefined) throw new BedrockError('ValidationException', `The toolConfig field must not name a tool twice: ${duplicate}.`);
  return optional(config.toolChoice, (choice) => {
    const [member, content] = unionMember(choice, 'toolConfig.toolChoice');
    if (member === 'auto') return undefined;
    if (member === 'any') return names[0];
    if (member !== 'tool') throw invalid('toolConfig.toolChoice', 'Member must be one of auto, any or tool');
    const name = stringAt(objectAt(content, 'toolConfig.toolChoice.tool').name, 'toolConfig.toolChoice.tool.name');
    if (!names.includes(name)) throw new BedrockError('ValidationException', `The tool ${name} in toolChoice is not one of toolConfig.tools.`);
    return name;
  });
}

function checkOutputConfig(value: unknown): void {
  const config = objectAt(value, 'outputConfig');
  optional(config.textFormat, (format) => {
    const textFormat = objectAt(format, 'outputConfig.textFormat');
    if (textFormat.type !== 'json_schema') throw invalid('outputConfig.textFormat.type', 'Member must satisfy enum value set: [json_schema]');
    const [member, content] = unionMember(textFormat.structure, 'outputConfig.textFormat.structure');
    if (member !== 'jsonSchema') throw invalid('outputConfig.textFormat.structure', 'Member must be {jsonSchema: {schema, name?, description?}}');
    const schema = stringAt(objectAt(content, 'outputConfig.textFormat.structure.jsonSchema').schema, 'outputConfig.textFormat.structure.jsonSchema.schema');
    if (!isObject(parseOrUndefined(schema))) {
      throw invalid('outputConfig.textFormat.structure.jsonSchema.schema', 'Member must be a JSON Schema, as JSON text');
    }
  });
}

/** A union's one member: its name and content. Names are data, read as own keys only. */
function unionMember(value: unknown, path: string): [string, unknown] {
  const entries = Object.entries(objectAt(value, path));
  if (entries.length !== 1) throw invalid(path, 'Member must set exactly one of its union members');
  return entries[0] as [string, unknown];
}

function nonBlankText(value: unknown, path: string): string {
  const text = stringAt(value, `${path}.text`);
  if (text.trim() === '')
    throw new BedrockError('ValidationException', `The text field in the ${path} block is blank. Add text to the text field, and try again.`);
  return text;
}

function arrayOf<T>(value: unknown, path: string, item: (value: unknown, path: string) => T): T[] {
  if (!Array.isArray(value)) throw invalid(path, 'Member must be a list');
  return value.map((entry, index) => item(entry, `${path}.${index}`));
}

function objectAt(value: unknown, path: string): Json {
  if (!isObject(value)) throw invalid(path, 'Member must be an object');
  return value;
}

function stringAt(value: unknown, path: string): string {
  if (typeof value !== 'string') throw invalid(path, 'Member must be a string');
  return value;
}

function optional<T>(value: unknown, read: (value: unknown) => T): T | undefined {
  return value === undefined || value === null ? undefined : read(value);
}

function invalid(path: string, constraint: string): BedrockError {
  return new BedrockError('ValidationException', `1 validation error detected: Value at '${path}' failed to satisfy constraint: ${constraint}`);
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
