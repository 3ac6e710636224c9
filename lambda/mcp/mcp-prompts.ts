import type { GetPromptResult, Prompt as McpPrompt, PromptMessage } from '@modelcontextprotocol/sdk/types.js';
import { TemplateVariablesError } from '../../client/src/errors';
import { PromptTemplate } from '../../client/src/template';
import type { CompiledMessages } from '../../client/src/types';
import { isValidPromptId, type Prompt, toConfigBody } from '../domain/prompt';
import { invalidParams } from './json-rpc';

/**
 * How MCP sees a prompt. The placeholders are read and filled by the one template compiler the clients,
 * the dashboard and the playground use (client/src/template.ts): one set of rules everywhere.
 */

/** Prompts per page of `prompts/list`: small enough for any client to show, large enough that most accounts fit in one. */
export const PROMPTS_PAGE_SIZE = 100;

const templateOf = (prompt: Prompt): PromptTemplate => new PromptTemplate(`prompt ${prompt.promptId}`, prompt.systemMessage, prompt.userMessage);

/** `{name, title, description, arguments}`: every placeholder, system message first, each once, and every one required. */
export function toMcpPrompt(prompt: Prompt): McpPrompt {
  return {
    name: prompt.promptId,
    title: prompt.promptName,
    description: `${prompt.promptName} (version ${prompt.version}, for ${prompt.config.model})`,
    arguments: templateOf(prompt).variables.map((name) => ({ name, required: true })),
  };
}

/**
 * The prompt's messages with every placeholder filled, strictly: a missing or unknown name is refused
 * (TemplateVariablesError), as `prompt.compile(values, { strict: true })` refuses it in the TypeScript client.
 */
export function compilePrompt(prompt: Prompt, values: Readonly<Record<string, unknown>>): CompiledMessages {
  return templateOf(prompt).compile(values, { strict: true });
}

/** The chat messages a compiled prompt makes, as OpenAI-compatible SDKs take them (and the Python client returns them). */
export function chatMessages({ systemMessage, userMessage }: CompiledMessages): { role: 'system' | 'user'; content: string }[] {
  return [...(systemMessage === '' ? [] : [{ role: 'system' as const, content: systemMessage }]), { role: 'user', content: userMessage }];
}

/**
 * `prompts/get`: MCP messages are `user` or `assistant`, so the system message (when not empty) comes first as
 * a `user` message; `_meta` carries it again, with the version and the config, for a client that can set a
 * system prompt. A missing or unknown argument is -32602 naming each.
 */
export function getPromptResult(prompt: Prompt, values: Readonly<Record<string, unknown>>): GetPromptResult {
  let compiled: CompiledMessages;
  try {
    compiled = compilePrompt(prompt, values);
  } catch (error) {
    if (!(error instanceof TemplateVariablesError)) throw error;
    throw invalidParams(error.message, { missing: error.missing, unknown: error.unknown, invalid: error.invalid });
  }
  const messages: PromptMessage[] = chatMessages(compiled).map(({ content }) => ({
    role: 'user',
    content: { type: 'text', text: content },
  }));
  return {
    description: toMcpPrompt(prompt).description,
    messages,
    _meta: {
      promptId: prompt.promptId,
      version: prompt.version,
      systemMessage: compiled.systemMessage,
      config: toConfigBody(prompt.config),
    },
  };
}

/** A cursor names the last prompt of the page before: stable while prompts are published or deleted meanwhile. */
const encodeCursor = (promptId: string): string => Buffer.from(promptId, 'utf8').toString('base64url');

function decodeCursor(cursor: string): string {
  const promptId = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!isValidPromptId(promptId) || encodeCursor(promptId) !== cursor) throw invalidParams('cursor: not a cursor this endpoint gave');
  return promptId;
}

/** One page of prompts ordered by promptId, after the cursor's, with the cursor of the next page when there is one. */
export function promptPage(prompts: readonly Prompt[], cursor: string | undefined): { prompts: McpPrompt[]; nextCursor?: string } {
  const after = cursor === undefined ? undefined : decodeCursor(cursor);
  const start = after === undefined ? 0 : prompts.findIndex((prompt) => prompt.promptId > after);
  const page = start === -1 ? [] : prompts.slice(start, start + PROMPTS_PAGE_SIZE);
  const last = page.at(-1);
  const more = start !== -1 && start + PROMPTS_PAGE_SIZE < prompts.length;
  return { prompts: page.map(toMcpPrompt), ...(more && last ? { nextCursor: encodeCursor(last.promptId) } : {}) };
}
