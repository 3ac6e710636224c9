import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import { TemplateVariablesError } from '../../client/src/errors';
import { type Prompt, toPromptBody } from '../domain/prompt';
import { ApiError, badRequest } from '../http/api-error';
import type { PromptReader, PromptStore } from '../read-api/store/api-store';
import { readPrompt } from '../read-api/handlers/get-prompt-handler';
import { readPromptList } from '../read-api/handlers/list-prompts-handler';
import { labelFrom } from '../read-api/label-query';
import { type RolloutAnswer, rolloutField } from '../read-api/served-rollouts';
import { invalidParams } from './json-rpc';
import { chatMessages, compilePrompt } from './mcp-prompts';

/**
 * The endpoint's tools, for agents whose clients surface tools but not prompts: the read API's two reads,
 * answered with its bodies as `structuredContent`. A refusal is a tool result with `isError` and the read
 * API's error body, so the model can read what went wrong and try again.
 */

const TemplateValue = z.union([z.string(), z.number(), z.boolean()]);

/** The get_prompt tool's arguments (its foresight, mcp-foresight.ts, reads them by the same schema). */
export const GetPromptArguments = z.strictObject({
  promptId: z.string().describe('The prompt, as prompts/list or list_prompts names it.'),
  version: z.string().optional().describe('A published version, MAJOR.MINOR.PATCH; the latest when absent.'),
  label: z.string().optional().describe('The version a label points at (e.g. production); not with version.'),
  variables: z
    .record(z.string(), TemplateValue)
    .optional()
    .describe('A value for every ${variable} of the prompt: the answer then holds the filled messages too.'),
});

export const ListPromptsArguments = z.strictObject({
  label: z.string().optional().describe('Only the prompts that carry this label, each at the labelled version.'),
});

/** What the endpoint's URL says (`/mcp?label=...`): the version a tool reads when its arguments name none. */
export interface EndpointDefaults {
  readonly label: string | undefined;
}

const inputSchemaOf = (schema: z.ZodType): Tool['inputSchema'] => {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return json as Tool['inputSchema'];
};

const VERSION = { type: 'string', pattern: '^(0|[1-9][0-9]{0,8})\\.(0|[1-9][0-9]{0,8})\\.(0|[1-9][0-9]{0,8})$' } as const;

/** The read API's Prompt body (openapi.yaml, components.schemas.SinglePrompt); test/unit/mcp-tools.test.ts holds them equal. */
export const PROMPT_BODY_SCHEMA = {
  type: 'object',
  required: ['promptId', 'promptName', 'version', 'systemMessage', 'userMessage', 'config'],
  properties: {
    promptId: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,128}$' },
    promptName: { type: 'string' },
    version: VERSION,
    systemMessage: { type: 'string' },
    userMessage: { type: 'string' },
    config: {
      type: 'object',
      required: ['model', 'temperature', 'schema', 'inputData', 'inputDataRootName'],
      properties: {
        model: { type: 'string' },
        temperature: { type: 'number', minimum: 0, maximum: 2 },
        schema: { type: 'array', items: {} },
        inputData: {},
        inputDataRootName: { type: ['string', 'null'] },
      },
      additionalProperties: false,
    },
    rollout: {
      type: 'object',
      required: ['rolloutId', 'percent', 'from', 'to'],
      properties: {
        rolloutId: { type: 'string' },
        percent: { type: 'number', minimum: 0, maximum: 100 },
        from: VERSION,
        to: VERSION,
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

const CHAT_MESSAGES_SCHEMA = {
  description: 'The prompt compiled with `variables`: the system message (when not empty), then the user message.',
  type: 'array',
  items: {
    type: 'object',
    required: ['role', 'content'],
    properties: { role: { enum: ['system', 'user'] }, content: { type: 'string' } },
    additionalProperties: false,
  },
} as const;

export const TOOLS: readonly Tool[] = [
  {
    name: 'get_prompt',
    title: 'Get a prompt',
    description:
      'One stored prompt (system message, user message template, model configuration) at its latest version, ' +
      'a pinned version or a label. With `variables`, also its messages with every ${variable} filled in.',
    inputSchema: inputSchemaOf(GetPromptArguments),
    outputSchema: {
      ...PROMPT_BODY_SCHEMA,
      properties: { ...PROMPT_BODY_SCHEMA.properties, messages: CHAT_MESSAGES_SCHEMA },
    } as unknown as Tool['outputSchema'],
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  {
    name: 'list_prompts',
    title: 'List prompts',
    description: 'Every prompt the API key may read, by promptId, each at its latest version (or at `label`).',
    inputSchema: inputSchemaOf(ListPromptsArguments),
    outputSchema: {
      type: 'object',
      required: ['prompts'],
      properties: { prompts: { type: 'array', items: PROMPT_BODY_SCHEMA } },
      additionalProperties: false,
    } as unknown as Tool['outputSchema'],
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
];

const answer = (structuredContent: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(structuredContent) }],
  structuredContent,
});

/** The read API's error body, as the model reads it. */
const refusal = (error: ApiError): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify({ error: error.message, code: error.code }) }],
  isError: true,
});

function argumentsProblem(error: z.ZodError): ApiError {
  return badRequest(error.issues.map((issue) => `${issue.path.map(String).join('.') || 'arguments'}: ${issue.message}`).join('; '));
}

async function getPromptTool(
  store: PromptStore,
  reader: PromptReader,
  defaults: EndpointDefaults,
  raw: Readonly<Record<string, unknown>>,
  rollouts: RolloutAnswer,
): Promise<CallToolResult> {
  const parsed = GetPromptArguments.safeParse(raw);
  if (!parsed.success) throw argumentsProblem(parsed.error);
  const { promptId, version, label } = parsed.data;
  const served = await readPrompt(store, reader, { promptId, version, label: label ?? (version === undefined ? defaults.label : undefined) }, rollouts);
  const prompt: Prompt = served.prompt;
  const body: Record<string, unknown> = { ...toPromptBody(prompt), ...rolloutField(served) };
  if (parsed.data.variables === undefined) {
    rollouts.record(served);
    return answer(body);
  }
  try {
    // The values as sent: a parsed copy would drop a name such as `__proto__`, which must be refused as unknown.
    const compiled = compilePrompt(prompt, raw.variables as Readonly<Record<string, unknown>>);
    rollouts.record(served);
    return answer({ ...body, messages: chatMessages(compiled) });
  } catch (error) {
    if (error instanceof TemplateVariablesError) throw badRequest(error.message);
    throw error;
  }
}

async function listPromptsTool(
  store: PromptStore,
  reader: PromptReader,
  defaults: EndpointDefaults,
  raw: Readonly<Record<string, unknown>>,
  rollouts: RolloutAnswer,
): Promise<CallToolResult> {
  const parsed = ListPromptsArguments.safeParse(raw);
  if (!parsed.success) throw argumentsProblem(parsed.error);
  const label = labelFrom(parsed.data.label ?? defaults.label);
  const served = await readPromptList(store, reader, label, rollouts);
  for (const entry of served) rollouts.record(entry);
  return answer({ prompts: served.map((entry) => ({ ...toPromptBody(entry.prompt), ...rolloutField(entry) })) });
}

const TOOL_CALLS = new Map([
  ['get_prompt', getPromptTool],
  ['list_prompts', listPromptsTool],
]);

/**
 * `tools/call`: an unknown tool is -32602 (the call's params name nothing this endpoint has); a read the
 * read API would refuse with 400 or 404 is a tool result with `isError`. A store fault is neither: it
 * propagates, and the request ends in the read API's 503.
 */
export async function callTool(
  store: PromptStore,
  reader: PromptReader,
  defaults: EndpointDefaults,
  name: string,
  raw: Readonly<Record<string, unknown>>,
  rollouts: RolloutAnswer,
): Promise<CallToolResult> {
  const call = TOOL_CALLS.get(name);
  if (!call) throw invalidParams(`Unknown tool: ${name} (this endpoint has ${[...TOOL_CALLS.keys()].join(', ')})`);
  try {
    return await call(store, reader, defaults, raw, rollouts);
  } catch (error) {
    if (error instanceof ApiError && error.statusCode < 500) return refusal(error);
    throw error;
  }
}
