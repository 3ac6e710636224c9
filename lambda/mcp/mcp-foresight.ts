import { isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { isValidPromptId } from '../domain/prompt';
import { isInScope } from '../domain/prompt-scope';
import { atLabelOf } from '../read-api/handlers/get-prompt-handler';
import type { ForesightInput, RouteForesight } from '../read-api/handlers/route-handler';
import { labelFrom, labelOf } from '../read-api/label-query';
import { choose, type ServedPrompt } from '../read-api/served-rollouts';
import { messageOf } from './mcp-message';
import { compilePrompt, promptPage } from './mcp-prompts';
import { GetPromptArguments, ListPromptsArguments } from './mcp-tools';

/**
 * The rollout sides an MCP message will answer, told from memory as the read API's routes tell theirs
 * (handlers/route-handler.ts RouteForesight), so that a warm reading message stays one store operation:
 * `prompts/get` and `prompts/list` at the endpoint's label, and the tools at theirs.
 */
export const foreseeMcp: RouteForesight<'mcp'> = (input) => {
  const read = messageOf(input.request);
  if (read?.kind !== 'message' || !isJSONRPCRequest(read.message)) return [];
  const params: Record<string, unknown> = read.message.params ?? {};
  const endpointLabel = labelOf(input.request);
  switch (read.message.method) {
    case 'prompts/get': {
      // A prompt whose variables the arguments do not fill is refused (-32602), serving no side: it counts none.
      const values = isObject(params.arguments) ? params.arguments : {};
      return compiling(foreseenRead(input, params.name, endpointLabel), values);
    }
    case 'prompts/list': {
      const listed = foreseenList(input, endpointLabel);
      const cursor = typeof params.cursor === 'string' ? params.cursor : undefined;
      const page = new Set(
        promptPage(
          listed.map(({ prompt }) => prompt),
          cursor,
        ).prompts.map(({ name }) => name),
      );
      return listed.filter(({ prompt }) => page.has(prompt.promptId));
    }
    case 'tools/call': {
      // JSON-RPC input: anything but an object names no prompt and no label, so it is read as no arguments. Arguments
      // the tool refuses (its schema, or variables that do not fill the prompt) serve no side: they count none.
      const args: Record<string, unknown> = isObject(params.arguments) ? params.arguments : {};
      const label = typeof args.label === 'string' ? labelFrom(args.label) : endpointLabel;
      if (params.name === 'get_prompt') {
        const parsed = GetPromptArguments.safeParse(args);
        if (!parsed.success || parsed.data.version !== undefined) return [];
        const served = foreseenRead(input, parsed.data.promptId, label);
        return isObject(args.variables) ? compiling(served, args.variables) : served;
      }
      if (params.name === 'list_prompts') return ListPromptsArguments.safeParse(args).success ? foreseenList(input, label) : [];
      return [];
    }
    default:
      return [];
  }
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The prompts whose side the values compile (as the answer will compile them, as sent); one they do not is refused. */
function compiling(served: readonly ServedPrompt[], values: Readonly<Record<string, unknown>>): readonly ServedPrompt[] {
  return served.filter(({ prompt }) => {
    try {
      compilePrompt(prompt, values);
      return true;
    } catch {
      return false;
    }
  });
}

function foreseenRead({ reader, sides, remembered }: ForesightInput<'mcp'>, promptId: unknown, label: string | undefined): readonly ServedPrompt[] {
  if (label === undefined || typeof promptId !== 'string' || !isValidPromptId(promptId) || !isInScope(reader.scope, promptId)) return [];
  const lookup = remembered.rememberedLabelledPrompt(reader, promptId, label);
  if (!lookup?.found) return [];
  return [choose(sides, atLabelOf(lookup))];
}

function foreseenList({ reader, sides, remembered }: ForesightInput<'mcp'>, label: string | undefined): readonly ServedPrompt[] {
  const listed = label === undefined ? undefined : remembered.rememberedLabelledList(reader, label, false);
  return (listed ?? []).filter((prompt) => isInScope(reader.scope, prompt.promptId)).map((prompt) => choose(sides, prompt));
}
