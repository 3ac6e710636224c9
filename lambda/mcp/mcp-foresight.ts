import { isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { isValidPromptId } from '../domain/prompt';
import { isInScope } from '../domain/prompt-scope';
import { atLabelOf } from '../read-api/handlers/get-prompt-handler';
import type { ForesightInput, RouteForesight } from '../read-api/handlers/route-handler';
import { labelFrom, labelOf } from '../read-api/label-query';
import { choose, type ServedPrompt } from '../read-api/served-rollouts';
import { promptPage } from './mcp-prompts';

/**
 * The rollout sides an MCP message will answer, told from memory as the read API's routes tell theirs
 * (handlers/route-handler.ts RouteForesight), so that a warm reading message stays one store operation:
 * `prompts/get` and `prompts/list` at the endpoint's label, and the tools at theirs.
 */
export const foreseeMcp: RouteForesight<'mcp'> = (input) => {
  const read = input.route.message;
  if (read?.kind !== 'message' || !isJSONRPCRequest(read.message)) return [];
  const params: Record<string, unknown> = read.message.params ?? {};
  const endpointLabel = labelOf(input.request);
  switch (read.message.method) {
    case 'prompts/get':
      return foreseenRead(input, params.name, endpointLabel);
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
      // JSON-RPC input: anything but an object names no prompt and no label, so it is read as no arguments.
      const args: Record<string, unknown> = isObject(params.arguments) ? params.arguments : {};
      const label = typeof args.label === 'string' ? labelFrom(args.label) : endpointLabel;
      if (params.name === 'get_prompt') return args.version === undefined ? foreseenRead(input, args.promptId, label) : [];
      if (params.name === 'list_prompts') return foreseenList(input, label);
      return [];
    }
    default:
      return [];
  }
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

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
